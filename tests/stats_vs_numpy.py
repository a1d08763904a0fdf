#!/usr/bin/python3
"""Checks `tensor-inspect --stats/--hist/--fail-on` against NumPy, computed here independently.

Usage: /usr/bin/python3 tests/stats_vs_numpy.py BUILD/tensor-inspect

Expected values come from NumPy on the values widened to float64 (min, max, mean, std with
ddof=0, over the finite values; relative 1e-9 for mean and std), exact counts of nan, +inf,
-inf and zero, and exact integer min/max/mean (Python ints) for int dtypes. Inputs: every
samples/*.npy, the safetensors samples (bfloat16 widened by uint16 << 16), the GGUF sample's
quantized tensors (values from samples/gguf_expected.json, NumPy's dequantization from the
block formulas), and files made here with NumPy (nan/inf/zeros, big-endian, int64 extremes,
fp8 decoded from its bit layout, more than one chunk). Histograms are compared with
np.histogram; --fail-on with exit statuses 0/1/2. Exit status 0 when all agree, 1 otherwise.
"""
import glob
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

BIN = sys.argv[1]
failures = []


def run(args, env=None):
    done = subprocess.run([BIN] + args, capture_output=True, text=True, env=env)
    return done.returncode, done.stdout, done.stderr


def strict(name):
    raise ValueError(f"non-standard JSON constant {name}")


SCHEMAS = {}
try:
    import jsonschema  # Debian's python3-jsonschema (scripts/test.sh)
    for path in glob.glob(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "schemas", "*stats.schema.json")):
        with open(path) as f:
            schema = json.load(f)
        SCHEMAS[schema["properties"]["kind"]["const"]] = jsonschema.Draft202012Validator(schema)
except ImportError:
    jsonschema = None


def stats_json(args, env=None):
    code, out, err = run(args + ["--stats", "--json"], env)
    if code != 0:
        failures.append(f"{args}: exit {code}: {err.strip()}")
        return None
    doc = json.loads(out, parse_constant=strict)
    if jsonschema is not None:
        errors = list(SCHEMAS[doc["kind"]].iter_errors(doc)) if doc.get("kind") in SCHEMAS else ["no schema"]
        if errors:
            failures.append(f"{args}: not a valid {doc.get('kind')}: {errors[0]}")
    return doc


def number(v):
    """A JSON number, or one of the strict-JSON strings "nan", "inf", "-inf"."""
    return float(v) if v in ("nan", "inf", "-inf") else v


def close(a, b, rel=1e-9, abs_tol=1e-300):
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_tol)


def expected_stats(values, kind):
    """What --stats must say for `values` (a NumPy array), kind 'f', 'i', 'u' or 'b'."""
    a = np.asarray(values).reshape(-1)
    e = {"count": a.size}
    if kind == "f":
        x = a.astype(np.float64)
        fin = x[np.isfinite(x)]
        e.update(nan=int(np.isnan(x).sum()), posinf=int(np.isposinf(x).sum()), neginf=int(np.isneginf(x).sum()),
                 zero=int((x == 0).sum()), finite=fin.size)
        if fin.size:
            e.update(min=float(fin.min()), max=float(fin.max()), mean=float(np.mean(fin)), std=float(np.std(fin)),
                     absmax=float(np.abs(fin).max()))
        return e
    ints = [int(v) for v in a.tolist()]
    e.update(nan=0, posinf=0, neginf=0, zero=sum(v == 0 for v in ints), finite=len(ints))
    if ints:
        e.update(min=min(ints), max=max(ints), mean=sum(ints) / len(ints), std=float(np.std(a.astype(np.float64))),
                 absmax=max(abs(v) for v in ints))
        if kind == "b":
            # NumPy keeps bool through abs and max: np.abs(a).max() of a bool array is a bool.
            e["min"], e["max"], e["absmax"] = bool(e["min"]), bool(e["max"]), bool(np.abs(a).max())
    return e


def compare(where, got, exp):
    for key in ("count", "finite", "nan", "posinf", "neginf", "zero"):
        if got.get(key) != exp[key]:
            failures.append(f"{where}: {key} {got.get(key)!r} != {exp[key]!r}")
    if exp["finite"] == 0:
        for key in ("min", "max", "mean", "std", "absmax"):
            if got.get(key) is not None:
                failures.append(f"{where}: {key} should be null, got {got.get(key)!r}")
        return
    for key in ("min", "max", "absmax"):
        g, x = got.get(key), exp[key]
        if type(g) is not type(x) and not (isinstance(x, float) and isinstance(g, int)) or g != x:
            failures.append(f"{where}: {key} {g!r} != {x!r}")
    for key in ("mean", "std"):
        g = number(got.get(key))
        if not isinstance(g, (int, float)) or not close(g, exp[key], abs_tol=1e-12 * max(1.0, abs(exp["absmax"]))):
            failures.append(f"{where}: {key} {g!r} != {exp[key]!r}")


def kind_of(dtype):
    return {"f": "f", "i": "i", "u": "u", "b": "b"}[np.dtype(dtype).kind]


def check_npy(path):
    a = np.load(path)
    got = stats_json([path])
    if got is not None:
        compare(path, got, expected_stats(a, kind_of(a.dtype)))


def bf16_values(raw):
    return (np.frombuffer(raw, "<u2").astype(np.uint32) << 16).view(np.float32)


def fp8_value(b, fmt):
    """One fp8 byte decoded from its bit layout (e4m3fn: bias 7, no inf; e5m2: IEEE, bias 15)."""
    s = -1.0 if b & 0x80 else 1.0
    if fmt == "e4m3":
        e, m = (b >> 3) & 0xF, b & 7
        if e == 15 and m == 7:
            return math.nan
        return s * (m / 8 * 2.0 ** -6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7))
    e, m = (b >> 2) & 0x1F, b & 3
    if e == 31:
        return s * math.inf if m == 0 else math.nan
    return s * (m / 4 * 2.0 ** -14 if e == 0 else (1 + m / 4) * 2.0 ** (e - 15))


ST_NP = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1", "U8": "u1",
         "U16": "<u2", "U32": "<u4", "U64": "<u8", "BOOL": "?"}


def safetensors_values(path):
    """name -> (values as NumPy, kind) of every tensor, read with struct + NumPy."""
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        b, e = t["data_offsets"]
        raw = data[b:e]
        if t["dtype"] == "BF16":
            out[name] = (bf16_values(raw), "f")
        elif t["dtype"] in ("F8_E4M3", "F8_E5M2"):
            fmt = "e4m3" if t["dtype"] == "F8_E4M3" else "e5m2"
            out[name] = (np.array([fp8_value(x, fmt) for x in raw]), "f")
        else:
            a = np.frombuffer(raw, ST_NP[t["dtype"]])
            out[name] = (a, kind_of(a.dtype))
    return out


def write_safetensors(path, tensors):
    """tensors: list of (name, dtype tag, shape, raw bytes)."""
    header, blobs, at = {}, [], 0
    for name, tag, shape, raw in tensors:
        header[name] = {"dtype": tag, "shape": shape, "data_offsets": [at, at + len(raw)]}
        blobs.append(raw)
        at += len(raw)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def check_file(path, values):
    got = stats_json([path])
    if got is None:
        return
    rows = {r["name"]: r for r in got["tensors"]}
    for name, (a, kind) in values.items():
        if name not in rows:
            failures.append(f"{path}: no row for {name}")
            continue
        compare(f"{path}:{name}", rows[name], expected_stats(a, kind))
    params = sum(int(np.asarray(a).size) for a, _ in values.values())
    if got["totals"]["parameters"] != params or got["totals"]["tensors"] != len(values):
        failures.append(f"{path}: totals {got['totals']} (expected {len(values)} tensors, {params} parameters)")


def check_hist(path, bins):
    code, out, err = run([path, f"--hist={bins}", "--json"])
    if code != 0:
        failures.append(f"{path} --hist: exit {code}: {err.strip()}")
        return
    h = json.loads(out, parse_constant=strict)["histogram"]
    x = np.load(path).astype(np.float64).reshape(-1)
    fin = x[np.isfinite(x)]
    lo, hi = (float(fin.min()), float(fin.max())) if fin.size else (0.0, 1.0)
    counts, edges = np.histogram(fin, bins=bins, range=(lo, hi))
    if h["counts"] != counts.tolist() or h["edges"] != edges.tolist():
        failures.append(f"{path} --hist={bins}: counts {h['counts']} edges {h['edges']} != {counts.tolist()} {edges.tolist()}")
    if h["nan"] != int(np.isnan(x).sum()) or h["posinf"] != int(np.isposinf(x).sum()):
        failures.append(f"{path} --hist: nan/inf counts {h}")


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    for path in sorted(glob.glob("samples/*.npy")):
        check_npy(path)
    check_file("samples/mixed.safetensors", safetensors_values("samples/mixed.safetensors"))
    shards = {}
    for shard in sorted(glob.glob("samples/sharded/*.safetensors")):
        shards.update(safetensors_values(shard))
    check_file("samples/sharded/model.safetensors.index.json", shards)

    # .npz members through NumPy's own np.load; PyTorch files against samples/pt_expected.json
    # (tolist() reprs PyTorch printed when the samples were made).
    for path in ("samples/arrays.npz", "samples/arrays_compressed.npz"):
        with np.load(path) as z:
            check_file(path, {k: (z[k], kind_of(z[k].dtype)) for k in z.files})
    with open("samples/pt_expected.json") as f:
        pt = json.load(f)
    for fname, tensors in pt.items():
        values = {}
        for name, t in tensors.items():
            text = t["tolist"].replace("nan", "float('nan')").replace("inf", "float('inf')")
            v = eval(text, {"__builtins__": {}, "float": float})  # the repr of nested lists of numbers
            kind = "f" if "float" in t["dtype"] else "b" if t["dtype"] == "bool" else "u" if t["dtype"].startswith("uint") else "i"
            values[name] = (np.array(v, dtype=np.float64 if kind == "f" else object), kind)
        check_file("samples/" + fname, values)

    # GGUF: quantized tensors against NumPy's dequantization (samples/make_gguf_samples.py).
    with open("samples/gguf_expected.json") as f:
        gguf = json.load(f)
    got = stats_json(["samples/quants.gguf"])
    if got is not None:
        rows = {r["name"]: r for r in got["tensors"]}
        for name, t in gguf.items():
            compare(f"quants.gguf:{name}", rows[name], expected_stats(np.array(t["values"], np.float32), "f"))
        if rows["q8_1"]["skipped"] is None or rows["q8_1"]["count"] is not None:
            failures.append(f"quants.gguf: q8_1 should be skipped: {rows['q8_1']}")
        one = stats_json(["samples/quants.gguf", "--name", "q4_k"])
        if one is not None:
            compare("quants.gguf --name q4_k", one, expected_stats(np.array(gguf["q4_k"]["values"], np.float32), "f"))

    rng = np.random.default_rng(7)
    with tempfile.TemporaryDirectory() as tmp:
        made = {}
        f32 = rng.standard_normal(300_001).astype(np.float32) * 3 + 1000  # 5 chunks, ragged tail; offset mean
        f32[[5, 70_000, 299_999]] = [np.nan, np.inf, -np.inf]
        f32[100:150] = 0
        f32[151] = -0.0
        made["f32_chunks.npy"] = f32
        f16 = rng.standard_normal(10_000).astype(np.float16)
        f16[:4] = [np.nan, np.inf, -np.inf, np.float16(6e-8)]  # a subnormal
        made["f16_special.npy"] = f16
        made["f8_be.npy"] = rng.standard_normal((37, 129)).astype(">f8")
        made["i8_be.npy"] = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0, -1, 5] * 1000, ">i8")
        made["u8_big.npy"] = np.array([2**64 - 1, 0, 2**63, 12345] * 30_000, "<u8")
        made["i16_fortran.npy"] = np.asfortranarray(rng.integers(-30000, 30000, (300, 500)).astype(np.int16))
        made["all_nan.npy"] = np.full(10, np.nan, np.float32)
        made["empty.npy"] = np.zeros((0, 3), np.float32)
        made["bool.npy"] = rng.integers(0, 2, 70_001).astype(bool)
        made["u1.npy"] = rng.integers(0, 256, 5000).astype(np.uint8)
        for name, a in made.items():
            np.save(os.path.join(tmp, name), a)
            check_npy(os.path.join(tmp, name))
        for name in ("f32_chunks.npy", "f16_special.npy", "i16_fortran.npy", "u1.npy", "all_nan.npy"):
            check_hist(os.path.join(tmp, name), 17)
        check_hist("samples/float32.npy", 1)

        # Results never depend on the thread count.
        path = os.path.join(tmp, "f32_chunks.npy")
        one = run([path, "--stats", "--hist", "--json"], dict(os.environ, OMP_NUM_THREADS="1"))[1]
        two = run([path, "--stats", "--hist", "--json"], dict(os.environ, OMP_NUM_THREADS="3"))[1]
        if one != two or not one:
            failures.append("OMP_NUM_THREADS=1 and 3 give different statistics")

        # An expression's result (streamed) and a bijective view (scanned in place).
        for expr, fn in (("x * 2 + 1", lambda a: a * np.float32(2) + np.float32(1)), ("x.T.flip(0)", lambda a: a.T[::-1])):
            got = stats_json([path if expr != "x.T.flip(0)" else os.path.join(tmp, "i16_fortran.npy"), "-e", expr])
            src = made["f32_chunks.npy"] if expr != "x.T.flip(0)" else made["i16_fortran.npy"]
            if got is not None:
                compare(f"-e {expr}", got, expected_stats(fn(src), kind_of(src.dtype)))

        # A computed tensor larger than kRealizeBytes (32 MiB) is streamed through the
        # executor, for the statistics and for the histogram's second pass: the same numbers
        # as NumPy's, on 1 and 3 threads, and (outside sanitizer builds) a peak RSS of the
        # mapped input plus a few chunks, not plus a realized copy of the result.
        big = rng.standard_normal(9_000_001).astype(np.float32)
        big[[11, 4_500_000]] = [np.nan, np.inf]
        big_path = os.path.join(tmp, "big_f32.npy")
        np.save(big_path, big)
        expr = "x * 2 + 1"
        want = big * np.float32(2) + np.float32(1)
        got = stats_json([big_path, "-e", expr])
        if got is not None:
            compare(f"streamed -e {expr}", got, expected_stats(want, "f"))
        runs = [run([big_path, "-e", expr, "--stats", "--hist=13", "--json"], dict(os.environ, OMP_NUM_THREADS=t)) for t in ("1", "3")]
        if runs[0][0] != 0 or runs[0][1] != runs[1][1]:
            failures.append(f"streamed -e {expr} --hist: exit {runs[0][0]}, or OMP_NUM_THREADS=1 and 3 differ")
        else:
            h = json.loads(runs[0][1], parse_constant=strict)["histogram"]
            w = want.astype(np.float64)
            fin = w[np.isfinite(w)]
            counts, edges = np.histogram(fin, bins=13, range=(float(fin.min()), float(fin.max())))
            if h["counts"] != counts.tolist() or h["edges"] != edges.tolist() or h["nan"] != 1 or h["posinf"] != 1:
                failures.append(f"streamed -e {expr} --hist=13: {h} != {counts.tolist()}")
        with open(BIN, "rb") as f:
            sanitized = b"__asan_init" in f.read()
        if not sanitized and os.path.exists("/usr/bin/time"):
            p = subprocess.run(["/usr/bin/time", "-f", "%M", BIN, big_path, "-e", expr, "--stats", "--hist=13"], capture_output=True)
            peak = int(p.stderr.decode().split()[-1]) * 1024
            limit = os.path.getsize(big_path) + (24 << 20)
            if p.returncode != 0 or peak > limit:
                failures.append(f"streamed -e {expr}: exit {p.returncode}, peak RSS {peak >> 20} MiB over {limit >> 20} MiB")

        # A mapped tensor read twice (statistics, then the histogram) releases its pages on
        # both passes: the histogram is NumPy's, and the peak RSS stays far under the file's
        # size (a user's finding: a 400 MB .npy with --hist peaked at 394 MB, --stats alone
        # at 15 MB). The bound is generous: the tool's own floor is about 10 MiB.
        flat = rng.standard_normal(16 << 20).astype(np.float32)  # 64 MiB
        flat[[5, 9_000_000]] = [np.nan, -np.inf]
        flat_path = os.path.join(tmp, "flat_f32.npy")
        np.save(flat_path, flat)
        timed = not sanitized and os.path.exists("/usr/bin/time")
        p = subprocess.run((["/usr/bin/time", "-f", "%M"] if timed else []) + [BIN, flat_path, "--stats", "--hist=20", "--json"],
                           capture_output=True)
        if p.returncode != 0:
            failures.append(f"{flat_path} --stats --hist: exit {p.returncode}: {p.stderr.decode().strip()}")
        else:
            h = json.loads(p.stdout, parse_constant=strict)["histogram"]
            w = flat.astype(np.float64)
            fin = w[np.isfinite(w)]
            counts, edges = np.histogram(fin, bins=20, range=(float(fin.min()), float(fin.max())))
            if h["counts"] != counts.tolist() or h["edges"] != edges.tolist() or h["nan"] != 1 or h["neginf"] != 1:
                failures.append(f"{flat_path} --stats --hist=20: {h} != {counts.tolist()} {edges.tolist()}")
            if timed:
                peak = int(p.stderr.decode().split()[-1]) * 1024
                limit = os.path.getsize(flat_path) // 2 + (16 << 20)
                if peak > limit:
                    failures.append(f"{flat_path} --stats --hist: peak RSS {peak >> 20} MiB over {limit >> 20} MiB (pages kept)")

        # safetensors of bfloat16, fp8 and ints made here.
        bf = rng.standard_normal(100_000).astype(np.float32)
        bf_raw = (bf.view(np.uint32) >> 16).astype("<u2")
        bf_raw[[3, 4]] = [0x7FC0, 0xFF80]  # nan, -inf
        st = os.path.join(tmp, "made.safetensors")
        tensors = [("bf", "BF16", [100, 1000], bf_raw.tobytes()),
                   ("e4m3", "F8_E4M3", [256], bytes(range(256))),
                   ("e5m2", "F8_E5M2", [16, 16], bytes(range(256))),
                   ("i32", "I32", [3], np.array([-7, 0, 2**31 - 1], "<i4").tobytes()),
                   ("zeros", "F32", [4], bytes(16))]
        write_safetensors(st, tensors)
        check_file(st, safetensors_values(st))

        # The float lane's one-pass kernel (sums shifted by each block's first finite value)
        # read straight from float32 and bfloat16 words: a large mean with a tiny spread, a
        # block led by a nan, nan/inf inside blocks, ragged blocks and tails, several chunks;
        # the same output on 1 and 3 threads, and with the pages released as the scan goes.
        tiny = 1e6 + rng.standard_normal(200_003) * 1e-2  # mean 1e6, std 1e-2: float32 keeps ~3 digits of it
        tiny32 = tiny.astype(np.float32)
        tiny32[4096] = np.nan  # the first value of a block
        tiny32[[8200, 70_001]] = [np.inf, -np.inf]
        wide = rng.standard_normal(300_007).astype(np.float32) * np.float32(2.0) ** rng.integers(-60, 60, 300_007).astype(np.float32)
        shifted = (rng.standard_normal(131_075) * 0.001 + 300.0).astype(np.float32)  # bfloat16 of 300 +- 0.001: few distinct values
        lane = [("tiny_f32", "F32", [200_003], tiny32.astype("<f4").tobytes()),
                ("tiny_bf16", "BF16", [200_003], (tiny32.view(np.uint32) >> 16).astype("<u2").tobytes()),
                ("wide_f32", "F32", [300_007], wide.astype("<f4").tobytes()),
                ("wide_bf16", "BF16", [300_007], (wide.view(np.uint32) >> 16).astype("<u2").tobytes()),
                ("shifted_bf16", "BF16", [131_075], (shifted.view(np.uint32) >> 16).astype("<u2").tobytes()),
                ("nan_led_bf16", "BF16", [17], np.array([0x7FC0] + [0x3F80 + i for i in range(16)], "<u2").tobytes())]
        lane_path = os.path.join(tmp, "lane.safetensors")
        write_safetensors(lane_path, lane)
        lane_values = safetensors_values(lane_path)
        check_file(lane_path, lane_values)
        for name, (a, kind) in lane_values.items():
            got = stats_json([lane_path, "--name", name])
            if got is not None:
                compare(f"{lane_path} --name {name}", got, expected_stats(a, kind))
            runs = [run([lane_path, "--name", name, "--stats", "--json"], dict(os.environ, OMP_NUM_THREADS=t))[1] for t in ("1", "3")]
            if runs[0] != runs[1] or not runs[0]:
                failures.append(f"{lane_path} --name {name}: OMP_NUM_THREADS=1 and 3 give different statistics")

        # --fail-on: one nan in one of many tensors -> 1 and its name; clean -> 0; corrupt -> 2.
        clean = [(f"layer.{i}.weight", "F32", [64], rng.standard_normal(64).astype("<f4").tobytes()) for i in range(40)]
        bad = list(clean)
        poisoned = np.frombuffer(bad[23][3], "<f4").copy()
        poisoned[17] = np.nan
        bad[23] = (bad[23][0], "F32", [64], poisoned.tobytes())
        write_safetensors(os.path.join(tmp, "clean.safetensors"), clean)
        write_safetensors(os.path.join(tmp, "bad.safetensors"), bad)
        code, out, _ = run([os.path.join(tmp, "clean.safetensors"), "--fail-on", "nan,inf"])
        if code != 0 or "ok" not in out:
            failures.append(f"--fail-on on a clean file: exit {code}, {out!r}")
        code, out, _ = run([os.path.join(tmp, "bad.safetensors"), "--fail-on", "nan,inf"])
        if code != 1 or "layer.23.weight" not in out or "layer.22.weight" in out:
            failures.append(f"--fail-on on one nan: exit {code}, {out!r}")
        code, out, _ = run([os.path.join(tmp, "bad.safetensors"), "--fail-on", "nan", "--json"])
        if code != 1 or json.loads(out)["fail_on"]["failed"] != ["layer.23.weight"]:
            failures.append(f"--fail-on --json on one nan: exit {code}, {out!r}")
        code, out, _ = run([st, "--fail-on", "zero-tensor", "--json"])
        if code != 1 or json.loads(out)["fail_on"]["failed"] != ["zeros"]:
            failures.append(f"--fail-on zero-tensor: exit {code}, {out!r}")
        with open(os.path.join(tmp, "bad.safetensors"), "rb") as f:
            data = f.read()
        with open(os.path.join(tmp, "corrupt.safetensors"), "wb") as f:
            f.write(data[: len(data) - 100])
        code, out, err = run([os.path.join(tmp, "corrupt.safetensors"), "--fail-on", "nan"])
        if code != 2 or out or len(err.strip().splitlines()) != 1:
            failures.append(f"--fail-on on a corrupt file: exit {code}, stdout {out!r}, stderr {err!r}")
        code, out, err = run([os.path.join(tmp, "bad.safetensors"), "--fail-on", "nan,bogus"])
        if code != 2 or out:
            failures.append(f"--fail-on with an unknown check: exit {code}, {out!r}")

    # A range wider than the largest double: NumPy's linspace overflows (nan, inf edges) and
    # np.histogram fails; the bins are those of exact arithmetic (fractions), the JSON strict.
    from fractions import Fraction
    top = 1.7976931348623157e308
    for values, bins in (([-1e308, 1e308], 2), ([-top, top, 0.0, 1e307, -5e307], 4), ([-top, top], 7)):
        code, out, err = run(["--dtype", "float64", repr(values), "--stats", "--json", f"--hist={bins}"])
        try:
            h = json.loads(out, parse_constant=strict)["histogram"]
        except ValueError as e:
            failures.append(f"--hist over {values}: not strict JSON ({e}): {out[:200]!r}")
            continue
        lo, hi = Fraction(min(values)), Fraction(max(values))
        exact = [lo + (hi - lo) * i / bins for i in range(bins + 1)]
        want = [0] * bins
        for v in values:
            want[min(bins - 1, int((Fraction(v) - lo) * bins / (hi - lo)))] += 1
        edges_ok = len(h["edges"]) == bins + 1 and all(abs(Fraction(e) - x) <= abs(x) * Fraction(1, 2**50) + 1
                                                       for e, x in zip(h["edges"], exact))
        if code != 0 or h["counts"] != want or not edges_ok:
            failures.append(f"--hist over {values}: exit {code}, counts {h['counts']} (want {want}), edges {h['edges']}")
    for f in failures:
        print("FAIL:", f)
    print(f"stats_vs_numpy: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
