#!/usr/bin/python3
"""Checks tensor-inspect against NumPy on .npy files.

Usage: /usr/bin/python3 tests/npy_vs_numpy.py BUILD/tensor-inspect [FILE.npy ...]

With no files, every samples/*.npy is checked, and big- and little-endian files of every
multi-byte dtype made here. For each file, `tensor-inspect --json FILE`
must give what tinygrad's Tensor(np.load(FILE)).data() gives: the struct format of the
dtype, shape, itemsize, nbytes, ndim, C-contiguous strides and tolist() equal to
np.load(FILE).tolist() (floats bit for bit, including -0.0; non-finite floats as the JSON
strings "nan", "inf", "-inf"), and the text `tolist:` line of --full equal to Python's repr
of that list; `--view-as B` must give the array's bytes in native order, whole and summarized.
An empty tensor's data() is a zero-length view of shape (0,), whatever the tensor's shape
(DESIGN.md). Exit status 0 when all agree, 1 otherwise.
"""
import glob
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

# tinygrad's dtype -> struct format (tinygrad/dtype.py), keyed by NumPy's dtype name.
FORMATS = {
    "bool": "?", "int8": "b", "uint8": "B", "int16": "h", "uint16": "H", "int32": "i",
    "uint32": "I", "int64": "q", "uint64": "Q", "float16": "e", "float32": "f", "float64": "d",
}


def strict_constant(name):
    raise ValueError(f"non-standard JSON constant {name}")


def same(expected, got, where):
    """Returns a list of differences between NumPy's tolist() and the JSON value."""
    if isinstance(expected, list):
        if not isinstance(got, list) or len(got) != len(expected):
            return [f"{where}: expected a list of {len(expected)}, got {got!r}"]
        out = []
        for i, (e, g) in enumerate(zip(expected, got)):
            out += same(e, g, f"{where}[{i}]")
        return out
    if isinstance(expected, bool):
        return [] if got is expected else [f"{where}: expected {expected!r}, got {got!r}"]
    if isinstance(expected, int):
        ok = isinstance(got, int) and not isinstance(got, bool) and got == expected
        return [] if ok else [f"{where}: expected {expected!r}, got {got!r}"]
    if isinstance(expected, float):
        if math.isnan(expected):
            ok = got == "nan"
        elif math.isinf(expected):
            ok = got == ("inf" if expected > 0 else "-inf")
        else:
            ok = (isinstance(got, (int, float)) and not isinstance(got, bool) and float(got) == expected
                  and math.copysign(1.0, float(got)) == math.copysign(1.0, expected))
        return [] if ok else [f"{where}: expected {expected!r}, got {got!r}"]
    return [f"{where}: unexpected value type {type(expected).__name__}"]


def c_strides(shape, itemsize):
    strides, step = [], itemsize
    for dim in reversed(shape):
        strides.insert(0, step)
        step *= dim
    return strides


def check(binary, path):
    a = np.load(path, allow_pickle=False)
    name = a.dtype.name
    proc = subprocess.run([binary, "--json", path], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        return [f"exit status {proc.returncode}: {proc.stderr.strip()}"]
    try:
        got = json.loads(proc.stdout, parse_constant=strict_constant)
    except ValueError as e:
        return [f"stdout is not strict JSON ({e}): {proc.stdout[:200]!r}"]

    shape = list(a.shape) if a.size else [0]
    expected = {
        "format": FORMATS[name],
        "dtype": name,
        "shape": shape,
        "ndim": len(shape),
        "itemsize": a.itemsize,
        "nbytes": a.nbytes,
        "strides": c_strides(shape, a.itemsize),
    }
    diffs = [f"{key}: expected {value!r}, got {got.get(key, '<missing>')!r}"
             for key, value in expected.items() if got.get(key, None) != value]
    if not isinstance(got.get("readonly"), bool):
        diffs.append(f"readonly: expected a bool, got {got.get('readonly', '<missing>')!r}")
    diffs += same(a.tolist() if a.size else [], got.get("tolist"), "tolist")
    # The text tolist line is Python's repr of the same list.
    proc = subprocess.run([binary, "--full", path], capture_output=True, text=True, timeout=60)
    line = next((l for l in proc.stdout.splitlines() if l.startswith("tolist: ")), None)
    want = "tolist: " + repr(a.tolist() if a.size else [])
    if proc.returncode != 0 or line != want:
        diffs.append(f"text: expected {want[:80]!r}..., got {(line or proc.stderr)[:80]!r}...")
    return diffs + view_as_bytes(binary, path, a)


def view_as_bytes(binary, path, a):
    """--view-as B (memoryview.cast('B')): data()'s bytes, in native order whatever the
    file's (NumPy's tobytes of the array in native order), whole and summarized as NumPy
    summarizes (--threshold 10: over 10 elements, three at each end), JSON and text."""
    raw = list(a.astype(a.dtype.newbyteorder("=")).tobytes())
    shown = raw if len(raw) <= 10 else raw[:3] + ["..."] + raw[-3:]
    diffs = []
    for extra, want in ((["--json"], raw), (["--json", "--threshold", "10"], shown)):
        proc = subprocess.run([binary, path, "--view-as", "B", *extra], capture_output=True, text=True, timeout=60)
        got = json.loads(proc.stdout).get("tolist") if proc.returncode == 0 else proc.stderr.strip()
        if got != want:
            diffs.append(f"--view-as B {' '.join(extra)}: expected {str(want)[:80]}, got {str(got)[:80]}")
    proc = subprocess.run([binary, path, "--view-as", "B", "--threshold", "10"],
                          capture_output=True,
                          text=True,
                          timeout=60)
    line = next((l for l in proc.stdout.splitlines() if l.startswith("tolist: ")), proc.stderr.strip())
    want = "tolist: [" + ", ".join(map(str, shown)) + "]"
    if line != want:
        diffs.append(f"--view-as B text: expected {want[:80]!r}, got {line[:80]!r}")
    return diffs


def byte_order_files(directory):
    """Big-endian (and explicitly little-endian) copies of every multi-byte dtype, 0-d to
    3-d, empty and large (past the parallel and float16 table thresholds), with -0.0, nan
    and inf among the floats: the printing loops read these bytes in place."""
    rng = np.random.default_rng(10)
    paths = []
    for name in ("int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64"):
        dt = np.dtype(name)
        for shape in ((), (7,), (3, 4), (2, 0), (2, 3, 5), (140000,)):
            n = int(np.prod(shape))
            if dt.kind == "f":
                with np.errstate(over="ignore"):  # float16 tops out at 65504: some become inf
                    a = (rng.standard_normal(n) * 10.0 ** rng.integers(-6, 8, n)).astype(dt)
                a[: min(n, 4)] = np.array([-0.0, np.nan, np.inf, -np.inf], dtype=dt)[: min(n, 4)]
            else:
                info = np.iinfo(dt)
                a = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
            a = a.reshape(shape)
            for order in (">", "<"):
                path = os.path.join(directory,
                                    f"{order == '>' and 'be' or 'le'}_{name}_{'x'.join(map(str, shape)) or '0d'}.npy")
                np.save(path, a.astype(dt.newbyteorder(order)))
                paths.append(path)
    return paths


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    binary = argv[1]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tmp = tempfile.TemporaryDirectory()
    files = argv[2:] or sorted(glob.glob(os.path.join(root, "samples", "*.npy"))) + byte_order_files(tmp.name)
    if not files:
        print("no .npy files to check", file=sys.stderr)
        return 2
    failed = 0
    for path in files:
        diffs = check(binary, path)
        shown = os.path.relpath(path, root) if path.startswith(root) else os.path.basename(path)
        print(f"{'ok  ' if not diffs else 'FAIL'} {shown}")
        for d in diffs[:10]:
            print(f"     {d}")
        failed += bool(diffs)
    print(f"{len(files) - failed}/{len(files)} .npy files agree with NumPy")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
