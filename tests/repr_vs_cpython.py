#!/usr/bin/python3
"""Checks the printer against CPython's own repr on about 10 million values.

Usage: /usr/bin/python3 tests/repr_vs_cpython.py BUILD/tensor-inspect

On a fixed seed, NumPy makes (in a temporary directory, deleted afterwards):
  - 3,000,000 float64 of random bit patterns (every exponent, subnormals, nan payloads),
  - 1,000,000 float64 with few significant digits at every decimal exponent from 1e-30
    to 1e30 (integral values, the 1e-4 and 1e16 notation switches, trailing zeros),
  - 3,000,000 float32 of random bit patterns and 2,600,000 standard-normal float32,
  - 400,000 int64 of 1 to 19 digits with either sign, and the int64/uint64 extremes,
  - all 65,536 float16 and all 65,536 bfloat16 bit patterns (bfloat16 through --raw).
`tensor-inspect FILE` must print, on its `tolist: ` line, exactly what CPython prints for
repr(array.tolist()) — the Python floats tolist() yields are the widened doubles, so
CPython's float repr is the reference, computed here and not by the code under test.
The float16 values are also checked as JSON against json.dumps (--json-nonfinite python),
and one file is printed with 1 and 3 OpenMP threads: the bytes must not change.
Exit status 0 when everything matches, 1 otherwise (the first differing value is named).
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

BIN = sys.argv[1]
rng = np.random.default_rng(20251201)
failures = 0


def run(args, env=None):
    p = subprocess.run([BIN, "--full", *args], capture_output=True, env=env)  # every value, not a summary
    if p.returncode != 0:
        raise SystemExit(f"{args}: exit {p.returncode}: {p.stderr.decode(errors='replace')}")
    return p.stdout


def tolist_line(out):
    for line in out.split(b"\n"):
        if line.startswith(b"tolist: "):
            return line[len(b"tolist: "):]
    raise SystemExit("no tolist line in the output")


def compare(what, got, values):
    global failures
    want = repr(values).encode()
    if got == want:
        print(f"ok   {what}: {len(values):,} values, {len(want):,} bytes")
        return
    failures += 1
    i = next((k for k in range(min(len(got), len(want))) if got[k] != want[k]), min(len(got), len(want)))
    index = want[:i].count(b",")
    print(f"FAIL {what}: first difference at byte {i}, value {index} = {values[index]!r} "
          f"({np.float64(values[index]).view(np.uint64):#018x} as float64 bits); "
          f"got {got[max(0, i - 30):i + 30]!r}, want {want[max(0, i - 30):i + 30]!r}")


def check_npy(d, name, arr):
    path = os.path.join(d, name + ".npy")
    np.save(path, arr)
    compare(name, tolist_line(run([path])), arr.tolist())
    return path


with tempfile.TemporaryDirectory() as d:
    bits64 = rng.integers(0, 2**64, size=3_000_000, dtype=np.uint64, endpoint=False)
    check_npy(d, "float64_bits", bits64.view(np.float64))

    digits = rng.integers(1, 10**rng.integers(1, 9, size=1_000_000), dtype=np.int64)
    scale = 10.0 ** rng.integers(-38, 23, size=1_000_000)
    short = (digits * scale) * np.where(rng.random(1_000_000) < 0.5, -1.0, 1.0)
    edges = np.array([0.0, -0.0, 1e16, 1e16 - 2, 1e15, 9999999999999998.0, 1e-4, 1e-5, 0.00012345, 5e-324,
                      2.2250738585072014e-308, 1.7976931348623157e308, np.nan, np.inf, -np.inf, 1e22, 1e23,
                      0.1, 0.2, 0.30000000000000004, 123456789012345678.0, 1.5, 100.0, 1e100, 1e-100])
    check_npy(d, "float64_short", np.concatenate([edges, short]))

    bits32 = rng.integers(0, 2**32, size=3_000_000, dtype=np.uint32)
    f32 = check_npy(d, "float32_bits", bits32.view(np.float32))
    check_npy(d, "float32_normal", rng.standard_normal(2_600_000, dtype=np.float32).reshape(1300, 2000))

    mags = rng.integers(0, 2**62, size=400_000, dtype=np.int64) >> rng.integers(0, 62, size=400_000)
    ints = mags * np.where(rng.random(400_000) < 0.5, -1, 1)
    check_npy(d, "int64", np.concatenate([np.array([0, -1, 2**63 - 1, -2**63], dtype=np.int64), ints]))
    check_npy(d, "uint64", np.array([0, 1, 9, 10, 99, 100, 2**64 - 1, 10**19, 10**19 - 1], dtype=np.uint64))

    # Once (formatted value by value) and three times over (past 2^17 elements the printer
    # looks 16-bit reprs up in a table).
    patterns = np.arange(65536, dtype=np.uint32).astype(np.uint16)
    for name, bits in (("all", patterns), ("all_x3", np.tile(patterns, 3))):
        f16 = bits.view(np.float16)
        f16_path = check_npy(d, "float16_" + name, f16)
        for nonfinite, spelled in (("python", f16.tolist()),
                                   ("string",
                                    [repr(v) if v != v or abs(v) == float("inf") else v for v in f16.tolist()])):
            got = run([f16_path, "--json", "--json-nonfinite", nonfinite])
            want = json.dumps(spelled).encode()
            found = got.find(b'"tolist": ' + want + b', "dtype"') >= 0
            print(("ok  " if found else "FAIL") + f" float16_{name} as JSON (--json-nonfinite "
                  f"{nonfinite}) against json.dumps")
            failures += not found
        raw = os.path.join(d, "bfloat16.bin")
        bits.tofile(raw)
        widened = (bits.astype(np.uint32) << 16).view(np.float32)
        compare("bfloat16_" + name, tolist_line(run([raw, "--raw", "bfloat16"])), widened.tolist())

    one = run([f32], env={**os.environ, "OMP_NUM_THREADS": "1"})
    three = run([f32], env={**os.environ, "OMP_NUM_THREADS": "3"})
    print(("ok  " if one == three else "FAIL") + " float32_bits: the same bytes with 1 and 3 threads")
    failures += one != three

sys.exit(1 if failures else 0)
