#!/usr/bin/python3
"""Checks `tensor-inspect --stats/--hist/--fail-on` against NumPy on files made here with NumPy:
nan/inf/zeros, big-endian, int64 extremes, fp8 decoded from its bit layout, more than one chunk;
histograms against np.histogram (and exact fractions where NumPy's edges overflow); --fail-on
with exit statuses 0/1/2. Expected values: tests/stats_expect.py.

Usage: /usr/bin/python3 tests/stats_made_inputs.py BUILD/tensor-inspect
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats_expect import (check_file, check_hist, check_npy, compare, expected_stats, failures,
    kind_of, run, safetensors_values, stats_json, strict, write_safetensors)  # noqa: E402
import stats_expect  # noqa: E402

BIN = stats_expect.BIN = sys.argv[1]


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
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
        for expr, fn in (("x * 2 + 1", lambda a: a * np.float32(2) + np.float32(1)), ("x.T.flip(0)",
                                                                                      lambda a: a.T[::-1])):
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
        runs = [
            run([big_path, "-e", expr, "--stats", "--hist=13", "--json"], dict(os.environ, OMP_NUM_THREADS=t))
            for t in ("1", "3")
        ]
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
            p = subprocess.run(["/usr/bin/time", "-f", "%M", BIN, big_path, "-e", expr, "--stats", "--hist=13"],
                               capture_output=True)
            peak = int(p.stderr.decode().split()[-1]) * 1024
            limit = os.path.getsize(big_path) + (24 << 20)
            if p.returncode != 0 or peak > limit:
                failures.append(f"streamed -e {expr}: exit {p.returncode}, peak "
                                f"RSS {peak >> 20} MiB over {limit >> 20} MiB")

        # A mapped tensor read twice (statistics, then the histogram) releases its pages on
        # both passes: the histogram is NumPy's, and the peak RSS stays far under the file's
        # size (a user's finding: a 400 MB .npy with --hist peaked at 394 MB, --stats alone
        # at 15 MB). The bound is generous: the tool's own floor is about 10 MiB.
        flat = rng.standard_normal(16 << 20).astype(np.float32)  # 64 MiB
        flat[[5, 9_000_000]] = [np.nan, -np.inf]
        flat_path = os.path.join(tmp, "flat_f32.npy")
        np.save(flat_path, flat)
        timed = not sanitized and os.path.exists("/usr/bin/time")
        p = subprocess.run(
            (["/usr/bin/time", "-f", "%M"] if timed else []) + [BIN, flat_path, "--stats", "--hist=20", "--json"],
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
                    failures.append(f"{flat_path} --stats --hist: peak RSS {peak >> 20} "
                                    f"MiB over {limit >> 20} MiB (pages kept)")

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
        wide = rng.standard_normal(300_007).astype(np.float32) * np.float32(2.0)**rng.integers(-60, 60, 300_007).astype(
            np.float32)
        shifted = (rng.standard_normal(131_075) * 0.001 + 300.0).astype(
            np.float32)  # bfloat16 of 300 +- 0.001: few distinct values
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
            runs = [
                run([lane_path, "--name", name, "--stats", "--json"], dict(os.environ, OMP_NUM_THREADS=t))[1]
                for t in ("1", "3")
            ]
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
            failures.append(f"--hist over {values}: exit {code}, counts "
                            f"{h['counts']} (want {want}), edges {h['edges']}")
    for f in failures:
        print("FAIL:", f)
    print(f"stats_made_inputs: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
