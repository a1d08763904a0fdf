#!/usr/bin/env python3
"""A full reduction under a permute (`x.T.sum()`) reads its file in the file's order, a few scans of it,
in bounded memory, with the values of the fold in the permuted order bit for bit.

    /usr/bin/python3 tests/permute_reads.py build/tensor-inspect

1. Values: over .npy files of NumPy's standard-normal values (seed 4; float32 with a nan and a -0.0,
   float64, float16, int32, bool) of shapes whose permuted blocks of 2048 elements hold the file's
   rows in order, or turn back once or twice, or too often (the old fold then), `x.T.OP()` (sum, max,
   min, mean, prod), `x.T[::2].sum()` and 3-d permutes must print exactly what the same reduction
   prints over the `.contiguous()` copy (a buffer in memory: the fold in the permuted order), and
   float64 sums must match NumPy's to 1e-9.
2. Memory: over a 256 MiB float32 file (1024 x 65536), `x.T.sum()`, `x.permute(1, 0).max()`,
   `x.T.mean()` and a 3-d permute must print NumPy's float64 value to 1e-3 and peak
   under the tool's idle peak (a tiny file) plus 64 MiB: the permuted fold read the file column by
   column, every page of it resident (261 MiB). The same for `x.T.sum()` of a remote tensor (a
   local nginx, `--limit remote_memory_bytes=16M`): it fetched the whole tensor before the kernel ran.
   A remote tensor small enough to be fetched whole (an 8 MB Fortran-order file) is fetched once.
Under ASan (CI's instrumented run) only a few small values, no large file.
Prints one line per check and `N passed, M failed`.
"""
import json
import os
import sys
import tempfile

import numpy as np

import tally
from tally import check
from peak_rss import run_measured
from reduce_leading import tool  # one element-by-element tolist runner for both tests

MiB = 1 << 20
ASAN = "ASAN_OPTIONS" in os.environ
# (rows, cols) of the file: x.T's blocks hold whole file columns in order (4096), turn back once
# (1024, 3000: a block over two columns), twice (700), or too often to take (3: the old fold).
SHAPES = [(4096, 5), (1024, 9), (3000, 7), (700, 30), (3, 5000), (40, 30, 60)]


def values(binary, tmp):
    rng = np.random.default_rng(4)
    shapes = [(1024, 9), (40, 30, 60)] if ASAN else SHAPES
    for shape in shapes:
        t = "x.permute(2, 0, 1)" if len(shape) == 3 else "x.T"
        for dt in ("float32",) if ASAN else ("float32", "float64", "float16", "int32", "bool"):
            a = rng.standard_normal(shape) > 0 if dt == "bool" else (rng.standard_normal(shape) * 100).astype(dt)
            if dt == "float32":
                a.flat[3], a.flat[min(2100, a.size - 1)] = -0.0, np.nan
            if dt == "float16":
                a /= 64
            path = os.path.join(tmp, "a.npy")
            np.save(path, a)
            ops = ["sum", "max"] if dt == "bool" else ["sum", "max", "min", "mean", "prod"]
            exprs = [(t, f"{op}()") for op in ops]  # (view, reduction)
            if ASAN:  # six processes in all
                exprs = exprs[:2] if len(shape) == 2 else exprs[:1]
            elif len(shape) == 2:
                exprs += [("x.T[::2]", "sum()"), ("x.T[1:, ::-1]", "max()"), ("(x.T * 2)", "sum()")]
            else:
                exprs += [("x.permute(2, 1, 0)", "sum(axis=0)"), ("x.permute(1, 2, 0)", "max(axis=1)")]
            differ = [f"{v}.{r}" for v, r in exprs if json.dumps(tool(binary, path, f"{v}.{r}")) !=
                      json.dumps(tool(binary, path, f"{v}.contiguous().{r}"))]
            names = ", ".join(f"{v}.{r}" for v, r in exprs)
            check(f"{dt} {shape}: {names} equal the fold of the contiguous copy", not differ, f"differ: {differ}")
            if dt == "float64" and not ASAN:
                got = tool(binary, path, f"{t}.sum()")
                check(f"{dt} {shape}: {t}.sum() matches NumPy's", np.isclose(got, a.sum(), rtol=1e-9), f"{got}")


def measure(binary, args, value, idle, name, limit=64 * MiB):
    status, out, err, peak = run_measured(binary, args + ["--json"], 300)
    got = json.loads(out)["tolist"] if status == 0 else None
    check(f"{name} matches NumPy's float64 value", got is not None and np.isclose(got, value, rtol=1e-3, atol=1e-2),
          f"status {status}: {got} vs {value}: {err[-300:]!r}")
    check(f"{name} peaks under idle + {limit // MiB} MiB", peak < idle + limit,
          f"peak {peak / MiB:.0f} MiB, idle {idle / MiB:.0f} MiB")


def memory(binary, tmp):
    tiny = os.path.join(tmp, "tiny.npy")
    np.save(tiny, np.ones((2, 3), dtype=np.float32))
    _, _, _, idle = run_measured(binary, [tiny, "-e", "x.T.sum()"], 60)
    a = np.random.default_rng(5).standard_normal((1024, 65536), dtype=np.float32)
    path = os.path.join(tmp, "wide.npy")
    np.save(path, a)
    w = a.astype(np.float64)
    del a
    exprs = [("x.T.sum()", w.sum()), ("x.permute(1, 0).max()", w.max()), ("x.T.mean()", w.mean()),
             ("x.reshape(1024, 256, 256).permute(2, 0, 1).min()", w.min())]
    del w
    for expr, value in exprs:
        measure(binary, [path, "-e", expr], value, idle, f"(1024, 65536) float32: {expr}")
    os.remove(path)


def remote(binary):
    from nginx_server import servers  # only here: the ASan run does not start nginx
    with servers("ti-permute-reads-") as (_, www, nginx, _):
        a = np.random.default_rng(6).standard_normal((4099, 8191), dtype=np.float32)
        np.save(os.path.join(www, "big.npy"), a)
        np.save(os.path.join(www, "tiny.npy"), np.ones((2, 3), dtype=np.float32))
        value = a.astype(np.float64).sum()
        del a
        limit = ["--limit", "remote_memory_bytes=16M"]
        _, _, _, idle = run_measured(binary, [nginx.url("files", "tiny.npy"), "-e", "x.T.sum()"] + limit, 60)
        want = tool(binary, os.path.join(www, "big.npy"), "x.T.sum()")
        url = nginx.url("files", "big.npy")
        got = tool(binary, url, "x.T.sum()")
        check("remote x.T.sum() prints what the local file's does", got == want, f"{got} vs {want}")
        measure(binary, [url, "-e", "x.T.sum()"] + limit, value, idle, "remote (4099, 8191) float32: x.T.sum()",
                16 * MiB + 40 * MiB)
        # A remote tensor small enough to be fetched whole is fetched once: folded in the file's
        # order, each of its scans fetched it again (x.sum() of this Fortran-order file: 4 scans, 3.97
        # times its bytes; x[::2].argmax() 7.97).
        small = os.path.join(www, "fortran.npy")
        np.save(small, np.asfortranarray(np.random.default_rng(7).random((1000, 1000))))
        for e in ("x.sum()", "x[::2].argmax()", "x.T.max(axis=1)"):
            want = tool(binary, small, e)
            m = nginx.mark()
            got = tool(binary, nginx.url("files", "fortran.npy"), e)
            sent = sum(int(line.split()[2]) for line in nginx.lines_since(m))
            check(f"remote 8 MB Fortran-order file: {e} prints what the local file's does, its bytes fetched once",
                  got == want and sent <= os.path.getsize(small), f"{sent} bytes: {str(got)[:80]}")


def main():
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="ti-permute-reads-") as tmp:
        values(binary, tmp)
        if not ASAN:
            memory(binary, tmp)
            remote(binary)
    return tally.summary()


if __name__ == "__main__":
    tally.pass_details = True
    sys.exit(main())
