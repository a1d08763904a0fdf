"""What tests/stats_vs_numpy.py and tests/stats_made_inputs.py share: running
`tensor-inspect --stats --json`, the statistics NumPy gives for the same values (min, max,
mean, std with ddof=0 over the finite values, exact counts; exact integers for int dtypes),
the comparison, and readers of the stored values written here independently of the tool
(bfloat16 by uint16 << 16, fp8 from its bit layout, safetensors headers with json).

Set BIN before use; every disagreement is appended to `failures`.
"""
import glob
import json
import math
import os
import struct
import subprocess

import numpy as np


BIN = None
failures = []


def run(args, env=None):
    done = subprocess.run([BIN] + args, capture_output=True, text=True, env=env)
    return done.returncode, done.stdout, done.stderr


def strict(name):
    raise ValueError(f"non-standard JSON constant {name}")


SCHEMAS = {}
try:
    import jsonschema  # Debian's python3-jsonschema (scripts/test.sh)
    for path in glob.glob(
            os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "schemas", "*stats.schema.json")):
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
        failures.append(f"{path} --hist={bins}: counts {h['counts']} edges "
                        f"{h['edges']} != {counts.tolist()} {edges.tolist()}")
    if h["nan"] != int(np.isnan(x).sum()) or h["posinf"] != int(np.isposinf(x).sum()):
        failures.append(f"{path} --hist: nan/inf counts {h}")
