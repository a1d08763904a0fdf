#!/usr/bin/python3
"""Checks the tool's dequantization of every ggml quant type against gguf-py's, bit for bit.

Usage: /usr/bin/python3 tests/ggml_reference.py BUILD/tensor-inspect

tests/data/ggml_ref/<TYPE>.gguf holds random blocks with realistic scales (a 1-D tensor `v` whose
second and third blocks have an inf and a NaN scale, a 2-D tensor `m`), and <TYPE>.npz the float32
values gguf-py's quants.py dequantizes them to (scripts/ggml_reference.py made both; gguf-py is not
needed here). For each type: the values (--json) equal gguf-py's bit for bit, NaN where it has NaN;
--stats agrees with NumPy on them; -e slices, --fail-on nan, --hist counts and diff against itself
work; validate exits 0. Exit status 0 when all agree, 1 otherwise.
"""
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np

BIN = sys.argv[1]
DATA = Path(__file__).resolve().parent / "data" / "ggml_ref"
failures = []


def run(args):
    done = subprocess.run([BIN] + args, capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def number(v):
    return float(v) if v in ("nan", "inf", "-inf") else v


def tool_values(path, name, expr=None):
    args = [str(path), "--name", name, "--json"] + (["-e", expr] if expr else [])
    code, out, err = run(args)
    if code != 0:
        failures.append(f"{path.name} {name} {expr or ''}: exit {code}: {err.strip()}")
        return None
    doc = json.loads(out)
    return np.array(json.loads(json.dumps(doc["tolist"]), parse_float=float, object_hook=None), dtype=object)


def as_float32(values):
    flat = [number(v) for v in np.asarray(values, dtype=object).reshape(-1)]
    return np.array(flat, dtype=np.float64).astype(np.float32)


def same_bits(where, got, want):
    got, want = as_float32(got), want.reshape(-1)
    if got.shape != want.shape:
        failures.append(f"{where}: {got.size} values, want {want.size}")
        return
    nan_got, nan_want = np.isnan(got), np.isnan(want)
    if not np.array_equal(nan_got, nan_want):
        failures.append(f"{where}: NaN at {np.flatnonzero(nan_got != nan_want)[:5]} differs from gguf-py")
    differ = np.flatnonzero((got.view(np.uint32) != want.view(np.uint32)) & ~nan_want)
    if differ.size:
        i = differ[0]
        failures.append(f"{where}: {differ.size} values differ from gguf-py, first [{i}] {got[i]!r} != {want[i]!r}")


def check_stats(where, path, name, want):
    code, out, err = run([str(path), "--name", name, "--stats", "--json"])
    if code != 0:
        failures.append(f"{where} --stats: exit {code}: {err.strip()}")
        return
    got = json.loads(out)
    x = want.astype(np.float64).reshape(-1)
    fin = x[np.isfinite(x)]
    exp = {"count": x.size, "finite": fin.size, "nan": int(np.isnan(x).sum()), "posinf": int(np.isposinf(x).sum()),
           "neginf": int(np.isneginf(x).sum()), "zero": int((x == 0).sum())}
    for key, value in exp.items():
        if got.get(key) != value:
            failures.append(f"{where} --stats: {key} {got.get(key)!r} != {value!r}")
    for key, value in (("min", fin.min()), ("max", fin.max()), ("absmax", np.abs(fin).max())):
        if number(got.get(key)) != float(value):
            failures.append(f"{where} --stats: {key} {got.get(key)!r} != {float(value)!r}")
    for key, value in (("mean", np.mean(fin)), ("std", np.std(fin))):
        g = number(got.get(key))
        if not isinstance(g, (int, float)) or not math.isclose(
                g, float(value), rel_tol=1e-9, abs_tol=1e-12 * np.abs(fin).max()):
            failures.append(f"{where} --stats: {key} {g!r} != {float(value)!r}")


def check_hist(where, path, want):
    code, out, err = run([str(path), "--name", "m", "--hist", "--json"])
    if code != 0:
        failures.append(f"{where} --hist: exit {code}: {err.strip()}")
        return
    hist = json.loads(out).get("histogram") or {}
    counts = hist.get("counts")
    if counts is None or sum(counts) != want.size:
        failures.append(f"{where} --hist: counts {counts!r} do not sum to {want.size}")


def check_type(gguf):
    name = gguf.stem
    want = np.load(gguf.with_suffix(".npz"))
    for tensor in ("v", "m"):
        got = tool_values(gguf, tensor)
        if got is not None:
            same_bits(f"{name}:{tensor}", got, want[tensor])
        check_stats(f"{name}:{tensor}", gguf, tensor, want[tensor])
    got = tool_values(gguf, "m", "x[1, 3:11] * 2")
    if got is not None:
        same_bits(f"{name}: -e x[1, 3:11] * 2", got, want["m"][1, 3:11] * np.float32(2))
    check_hist(name, gguf, want["m"])
    for tensor, expected in (("v", 1 if np.isnan(want["v"]).any() else 0), ("m", 0)):
        code, _, err = run([str(gguf), "--name", tensor, "--fail-on", "nan"])
        if code != expected:
            failures.append(f"{name}:{tensor} --fail-on nan: exit {code}, want {expected}: {err.strip()}")
    code, out, err = run(["diff", str(gguf), str(gguf)])
    if code != 0:
        failures.append(f"{name}: diff against itself: exit {code}: {err.strip() or out.strip()}")
    code, out, err = run(["validate", str(gguf)])
    if code != 0:
        failures.append(f"{name}: validate exit {code}: {out.strip()} {err.strip()}")


def main():
    files = sorted(DATA.glob("*.gguf"))
    if len(files) < 22:
        failures.append(f"{DATA}: {len(files)} reference files, want 22")
    for gguf in files:
        check_type(gguf)
    for f in failures:
        print("FAIL", f)
    print(f"{len(files)} ggml types checked against gguf-py, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
