#!/usr/bin/env python3
"""A reduction over the leading axes of a file (`x.sum(axis=0)`) reads it in order, in bounded memory,
with the values of the column-by-column fold bit for bit.

    /usr/bin/python3 tests/reduce_leading.py build/tensor-inspect

1. Values: over .npy files of NumPy's standard-normal values (seed 2; float32 with a nan and a -0.0,
   float64, float16, int32, bool) of shapes around the block of 2048 rows and the 2048-element chunk,
   `x.OP(axis=0)` (sum, max, min, mean, prod; var of float32) must print exactly what the same reduction prints over
   `x.permute(1, .., 0).contiguous()` along its last axis (a buffer in memory: the column-by-column
   path), and the float sums must match NumPy's float64 sums to 1e-3.
   The same under a permute whose reduced axes are the file's leading ones (`x.T.OP(axis=-1)`, read
   row after row of the file) against the same reduction of `x.T.contiguous()`, and full reductions
   of views read in order (`x[::2]`, `x[:, ::3]`, `x[1:]`, `x.flip(0)`, a pad) against the same over
   their `.contiguous()` copy.
2. Memory: `x.sum(axis=0)` of a 256 MiB float32 file (wide: 1024 x 65536, and tall: 131072 x 512)
   must print what NumPy's float64 sum rounds to within 1e-3 and peak under the tool's idle peak
   (a tiny file) plus 64 MiB; reading the columns one by one kept the whole file resident. The
   same for reductions under views of the wide file that read it in order (a step, a shrink, a
   flip, a pad, a permute whose reduced axis is the file's first): they kept every page they touched.
Prints one line per check and `N passed, M failed`.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

import tally
from tally import check
from peak_rss import run_measured

MiB = 1 << 20
SHAPES = [(3, 5), (2049, 7), (5000, 3), (3, 4097), (7000, 2, 3), (2100, 4100)]
DTYPES = ("float32", "float64", "float16", "int32", "bool")
# CI's instrumented run (ASan + UBSan, where a process costs 8x and the RSS is the sanitizer's):
# each fold path on shapes across the block of 2048 rows, in one float and one int dtype, and
# the memory section's expressions on a 16 MiB file for their values. It took 439 s whole.
SANITIZED = "ASAN_OPTIONS" in os.environ
if SANITIZED:
    SHAPES, DTYPES = [(3, 5), (2049, 7), (7000, 2, 3)], ("float32", "int32")


def tool(binary, path, expr):
    p = subprocess.run([binary, path, "-e", expr, "--json", "--json-nonfinite", "python"], capture_output=True,
                       text=True, timeout=120)
    return json.loads(p.stdout)["tolist"] if p.returncode == 0 else "exit %d: %s" % (p.returncode, p.stderr[-200:])


def values(binary, tmp):
    rng = np.random.default_rng(2)
    for shape in SHAPES:
        perm = ", ".join(str(i) for i in list(range(1, len(shape))) + [0])
        tperm = perm  # x.permute(1, .., 0): the file's first axis last
        for dt in DTYPES:
            a = rng.standard_normal(shape) > 0 if dt == "bool" else (rng.standard_normal(shape) * 100).astype(dt)
            if dt == "float32":
                a.flat[3], a.flat[min(17, a.size - 1)] = -0.0, np.nan
            path = os.path.join(tmp, "a.npy")
            np.save(path, a)
            ops = ["sum", "max"] if dt == "bool" else ["sum", "max", "min", "mean", "prod"]
            if dt == "float32":  # a sum of squares over <= 32 rows: tinygrad's MULACC chain on each path
                ops.append("var")
            differ = [op for op in ops if json.dumps(tool(binary, path, f"x.{op}(axis=0)")) !=
                      json.dumps(tool(binary, path, f"x.permute({perm}).contiguous().{op}(axis=-1)"))]
            check(f"{dt} {shape}: {', '.join(ops)} over axis 0 equal the column-by-column fold", not differ,
                  f"differ: {differ}")
            differ = [op for op in ops if json.dumps(tool(binary, path, f"x.permute({tperm}).{op}(axis=-1)")) !=
                      json.dumps(tool(binary, path, f"x.permute({tperm}).contiguous().{op}(axis=-1)"))]
            check(f"{dt} {shape}: {', '.join(ops)} under a permute over the file's axis 0 equal the in-memory fold",
                  not differ, f"differ: {differ}")
            views = ["x[::2]", "x[1:]", "x.flip(0)", f"x.pad((({'(1, 2), ' * (len(shape) - 1)}(0, 3))))"]
            if len(shape) > 1:
                views.append("x[:, ::3]")
            red = "sum" if dt == "bool" else "prod" if dt == "int32" else "sum"
            differ = [v for v in views if json.dumps(tool(binary, path, f"{v}.{red}()")) !=
                      json.dumps(tool(binary, path, f"{v}.contiguous().{red}()"))]
            check(f"{dt} {shape}: {red} of views read in order equal the in-memory fold", not differ,
                  f"differ: {differ}")
            if dt in ("float64", "int32"):
                got = np.array(tool(binary, path, "x.sum(axis=0)"), dtype=np.float64)
                want = a.astype(np.float64).sum(axis=0)
                check(f"{dt} {shape}: sum over axis 0 matches NumPy's", np.allclose(got, want, rtol=1e-9, atol=1e-6))


def memory(binary, tmp):
    tiny = os.path.join(tmp, "tiny.npy")
    np.save(tiny, np.ones((2, 3), dtype=np.float32))
    _, _, _, idle = run_measured(binary, [tiny, "-e", "x.sum(axis=0)"], 60)
    rng = np.random.default_rng(3)
    files = (("wide", (1024, 65536)), ("tall", (131072, 512))) if not SANITIZED else (("wide", (1024, 4096)),)
    for name, shape in files:
        a = rng.standard_normal(shape, dtype=np.float32)
        path = os.path.join(tmp, name + ".npy")
        np.save(path, a)
        want = a.astype(np.float64).sum(axis=0)
        exprs = [("x.sum(axis=0)", want)]
        if name == "wide":  # views read in order: values from NumPy's float64 copy, read before it goes
            w = a.astype(np.float64)
            exprs += [("x[::2].sum()", w[::2].sum()), ("x[:, ::3].sum()", w[:, ::3].sum()),
                      ("x[10:].sum()", w[10:].sum()), ("x.flip(0).sum()", w.sum()),
                      ("x[::-3, ::5].max()", w[::-3, ::5].max()), ("x.pad(((1, 1), (2, 2))).sum()", w.sum()),
                      ("x.T.sum(axis=1)", w.sum(axis=0)), ("x.permute(1, 0).mean(axis=-1)", w.mean(axis=0)),
                      ("x[:, ::16].sum()", w[:, ::16].sum())]
            del w
        del a
        for expr, value in exprs:
            status, out, err, peak = run_measured(binary, [path, "-e", expr, "--json"], 300)
            got = np.array(json.loads(out)["tolist"], dtype=np.float64) if status == 0 else np.zeros(0)
            check(f"{name} {shape}: {expr} matches NumPy's float64 value",
                  got.shape == np.shape(value) and np.allclose(got, value, rtol=1e-3, atol=1e-2),
                  f"status {status}: {err[-300:]!r}")
            if not SANITIZED:
                check(f"{name} {shape}: {expr} peaks under idle + 64 MiB", peak < idle + 64 * MiB,
                      f"peak {peak / MiB:.0f} MiB, idle {idle / MiB:.0f} MiB, "
                      f"file {os.path.getsize(path) / MiB:.0f} MiB")
        os.remove(path)


def main():
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="ti-reduce-leading-") as tmp:
        values(binary, tmp)
        memory(binary, tmp)
    return tally.summary()


if __name__ == "__main__":
    tally.pass_details = True
    sys.exit(main())
