#!/usr/bin/env python3
"""Local scans other than --stats give their pages back behind them: `diff` of two large
safetensors files keeps its peak RSS flat instead of holding both files.

    /usr/bin/python3 tests/local_release.py build/tensor-inspect

Writes two files of 192 MiB of NumPy's standard-normal float32 (seed 0), the second with
1,000 elements changed by known amounts. `diff A B --json` must report NumPy's count of
mismatched elements (np.isclose's rule, rtol 1e-5, atol 1e-8), first mismatch and max |a - b|,
and peak under the tool's own idle peak (the same diff of two tiny files: under ASan it holds
the sanitizer's memory) plus 2 x 32 MiB (one batch of each file's pages) plus a 48 MiB
margin: holding the files' pages would take 384 MiB more. So do scans: x.cumsum(axis=0)[-1]
and x.T.cumsum(axis=1)[:, -1] of the same values as a (196608, 256) file, within the float32
bound of NumPy's float64 column sums, bit-identical to each other, under the idle peak plus
48 MiB (they held the file), and so does a scan of 8,392,704 rows, read twice. Reductions of a column of
the same values as a (6144, 8192) file (x[:, 5].sum(), x[::3, 7].max(), a softmax's column) print NumPy's
values under the same bound (they held the file). Prints one line per check and `N passed, M failed`.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

import tally
from tally import check
from peak_rss import run_measured

MiB = 1 << 20


def write_safetensors(path, name, arr):
    text = json.dumps({name: {"dtype": "F32", "shape": list(arr.shape), "data_offsets": [0, arr.nbytes]}}).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        f.write(arr.tobytes())


def main():
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="ti-local-release-") as tmp:
        rng = np.random.default_rng(0)
        a = rng.standard_normal(48 * MiB // 4 * 4, dtype=np.float32)
        b = a.copy()
        at = np.sort(rng.choice(a.size, 1000, replace=False))
        b[at] += rng.uniform(0.01, 2.0, at.size).astype(np.float32)
        pa, pb = os.path.join(tmp, "a.safetensors"), os.path.join(tmp, "b.safetensors")
        write_safetensors(pa, "w", a)
        write_safetensors(pb, "w", b)
        ta, tb = os.path.join(tmp, "ta.safetensors"), os.path.join(tmp, "tb.safetensors")
        write_safetensors(ta, "w", a[:4])
        write_safetensors(tb, "w", b[:4])
        _, _, _, idle = run_measured(binary, ["diff", ta, tb, "--json"], 60)
        status, out, err, peak = run_measured(binary, ["diff", pa, pb, "--json"], 300)
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        close = np.abs(a64 - b64) <= 1e-8 + 1e-5 * np.abs(b64)
        row = json.loads(out)["tensors"][0] if status in (0, 1) and out else {}
        check("diff reports NumPy's mismatch count, first mismatch and max |a - b|",
              row.get("mismatched") == int((~close).sum()) and row.get("first_mismatch") == [int(at[0])] and
              row.get("max_abs") == float(np.abs(a64 - b64).max()), f"status {status}: {err[-300:]!r} {row}")
        bound = idle + 2 * 32 * MiB + 48 * MiB
        check("diff of two 192 MiB files peaks under idle + 2 x 32 MiB + 48 MiB", peak < bound,
              f"peak {peak / MiB:.0f} MiB, idle {idle / MiB:.0f} MiB, files 2 x {a.nbytes / MiB:.0f} MiB")
        scans(binary, tmp, a.reshape(-1, 256), idle)
        sparse(binary, tmp, a.reshape(-1, 8192), idle)
    return tally.summary()


def scans(binary, tmp, x, idle):
    """Running sums down the rows of a (196608, 256) float32 (the 192 MiB `a` above, reshaped):
    x.cumsum(axis=0) reads the file in order and gives its pages back by rows; x.T.cumsum(axis=1),
    the same lanes, reads it with the scanned axis first (realize/scan_sum.cpp), not column by column
    through the map. Both held the whole file. Their last row is a float32 sum of each column: within
    len * eps * sum|x| of NumPy's float64 sums, and bit-identical to each other (the same additions)."""
    path = os.path.join(tmp, "rows.npy")
    np.save(path, x)
    x64 = x.astype(np.float64)
    want, tol = x64.sum(axis=0), x.shape[0] * np.finfo(np.float32).eps * np.abs(x64).sum(axis=0)
    got = {}
    for expr in ("x.cumsum(axis=0)[-1]", "x.T.cumsum(axis=1)[:, -1]"):
        status, out, err, peak = run_measured(binary, [path, "-e", expr, "--json"], 300)
        got[expr] = np.array(json.loads(out)["tolist"]) if status == 0 else None
        check(f"{expr} of a {x.nbytes / MiB:.0f} MiB file: within the float32 bound of NumPy's float64 column sums",
              got[expr] is not None and bool((np.abs(got[expr] - want) <= tol).all()), err[-300:])
        check(f"{expr} of a {x.nbytes / MiB:.0f} MiB file peaks under idle + 48 MiB", peak < idle + 48 * MiB,
              f"peak {peak / MiB:.0f} MiB, idle {idle / MiB:.0f} MiB")
    check("both orders give the same bits", all(v is not None for v in got.values()) and
          np.array_equal(*got.values()))
    # Rows past 2**23 (tinygrad splits the sum of their chunk totals): the scan reads them twice, and
    # gives them back in each pass (it held the file: 70 MiB for this one's 64 MiB).
    long = x.reshape(-1)[:8392704 * 2].reshape(8392704, 2)
    path = os.path.join(tmp, "long.npy")
    np.save(path, long)
    l64 = long.astype(np.float64)
    want, tol = l64.sum(axis=0), long.shape[0] * np.finfo(np.float32).eps * np.abs(l64).sum(axis=0)
    status, out, err, peak = run_measured(binary, [path, "-e", "x.cumsum(axis=0)[-1]", "--json"], 300)
    got = np.array(json.loads(out)["tolist"]) if status == 0 else None
    check("x.cumsum(axis=0)[-1] of (8392704, 2): within the float32 bound of NumPy's float64 sums, "
          "peak under idle + 48 MiB", got is not None and bool((np.abs(got - want) <= tol).all()) and
          peak < idle + 48 * MiB, f"{err[-300:]} peak {peak / MiB:.0f} MiB, idle {idle / MiB:.0f} MiB")


def sparse(binary, tmp, x, idle):
    """Reductions of a column of a (6144, 8192) float32 (the same 192 MiB, rows of 32 KiB): one element
    in 32 KiB or 96 KiB, read in blocks (pread), not through the map, each of whose read faults mapped
    a folio of up to 2 MiB (x[:, 5].sum() held the file: 261 MiB of a 256 MiB one)."""
    path = os.path.join(tmp, "wide.npy")
    np.save(path, x)
    col, every3 = x[:, 5].astype(np.float64), x[::3, 7]
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    soft = (e[:, 5] / e.sum(axis=1)).sum()
    del e
    cases = [("x[:, 5].sum()", col.sum(), x.shape[0] * np.finfo(np.float32).eps * np.abs(col).sum()),
             ("x[::3, 7].max()", float(every3.max()), 0.0),
             ("x.softmax(1)[:, 5].sum()", soft, 1e-4 * soft)]
    for expr, want, tol in cases:
        status, out, err, peak = run_measured(binary, [path, "-e", expr, "--json"], 300)
        got = json.loads(out)["tolist"] if status == 0 else None
        check(f"{expr} of a {x.nbytes / MiB:.0f} MiB (6144, 8192) file: NumPy's value (float64, within float32's "
              f"bound), peak under idle + 48 MiB", got is not None and abs(got - want) <= tol and
              peak < idle + 48 * MiB, f"{got} vs {want}: {err[-300:]} peak {peak / MiB:.0f} MiB, idle {idle / MiB:.0f}")


if __name__ == "__main__":
    tally.pass_details = True
    sys.exit(main())
