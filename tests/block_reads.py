#!/usr/bin/env python3
"""A kernel that reads a large tensor out of order (a permute, a broadcast of rows) reads it through a
bounded block cache (realize/block_reads.hpp), with the values it printed before, in bounded memory.

    /usr/bin/python3 tests/block_reads.py build/tensor-inspect

1. Values: over .npy files of NumPy's standard-normal values (seed 8; float32 with a nan and a -0.0,
   float16, int32, float64) of few rows and of many, each expression prints exactly what it prints with
   `--limit out_of_order_bytes=1G` (the file map, as before the caches) under
   `--limit out_of_order_bytes=512K`, which sends every file here through caches of 16 slots of 16 KiB a
   thread: 7 rows fit them, 40 take 4 KiB blocks, 2,500 the map again; float64 sums match NumPy's.
   A tall table read column by column (x.T.contiguous() of 16 MiB, 131,072 and 262,144 rows) runs band
   by band (realize/chunk_order.hpp): its caches read the tensor once, in 16 KiB blocks, where 32
   columns went to the map; both print NumPy's values; x.T.argmax() folds in the file's order
   (reduce.cpp), through no cache.
2. Memory: over a 256 MiB float32 file of 150 rows (a column walk: every row for each column), the
   permuted reductions below match NumPy's float64 value and peak under the tool's idle peak plus 64 MiB
   (they held the whole file: 261 MiB), and so does a flip of half the file (`x.reshape(2, -1).flip(1)`,
   read in order a block of 128 MiB at a time: 137 MiB); x.T[::1000].sum(), which uses 4 bytes of each
   block it reads but reads none again, keeps 16 KiB blocks; a kernel of three Loads read out of order
   shares the cap among them (it held 32 MiB each). Over 16,384 rows, more than any cache holds,
   x.T[::2].sum() and x.T[1::3, ::-2].max() fold in the file's order under the same bound, and
   x.T.argmax() prints NumPy's index.
3. Remote: the same file of 150 rows through a local nginx with `--limit remote_memory_bytes=128M` prints
   what the local file prints, under the idle peak plus 64 MiB (it fetched the whole tensor: 146 MiB),
   and with the default remote_memory_bytes fetches at most 1.1 times the file (the threads share one
   cache; separate ones fetched 1.55 times).
4. Remote, more rows than the remote cache holds (4,096 under `--limit remote_memory_bytes=16M`): the
   tensor, which the kernel reads twice (x and x.T), is copied to a temporary file once and read from
   there as a local file (realize/reread_copies.hpp, buffer/spill_file.hpp); two column walks print
   NumPy's exact values (ternary float32), peak under the local run's peak plus 24 MiB (the tensor,
   128 MiB, was fetched whole once) and fetch at most 1.05 times it (2.0 when only x.T read the copy),
   with --cache too (a second run then fetches nothing), and on 4 threads under a 4M limit (eight runs,
   NumPy's values); with TMPDIR a missing folder, one line naming the URL, exit 2.
Under ASan (CI's instrumented run) only the small values.
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
ASAN = "ASAN_OPTIONS" in os.environ
# (rows, cols): few rows (16 KiB blocks), a middle count (4 KiB blocks on 2 threads), more (256
# bytes), too many (the map).
SHAPES = [(7, 40000), (40, 8000), (600, 1000), (2500, 120)]
THREADS = len(os.sched_getaffinity(0))


def block_words(rows, budget=512 * 1024):
    """What -vv says x.T.contiguous() of `rows` rows read through: each thread's cache (the budget
    split among the threads) in the largest power-of-two blocks, 16 KiB to 256 bytes, of which it
    holds one a row; else the map (realize/block_reads.hpp)."""
    for size in (16384, 8192, 4096, 2048, 1024, 512, 256):
        if budget // THREADS // size >= rows:
            return f"blocks of {size // 1024} KiB read" if size >= 1024 else f"blocks of {size} bytes read"
    return "through the file map"
EXPRS = ["x.T.sum()", "x.T.max()", "x.T[::2].sum()", "x.T[1:, ::-1].min()", "(x.T * 2).sum(axis=1)",
         "(x[:, None, :] + x[None, :2, :]).sum()", "x.T.contiguous().sum(axis=0)", "(x + x.flip(0)).T.mean()"]


def run(binary, path, expr, *extra, log=None):
    """The value the tool prints (an error's text when it fails); `log` (a list) gets its -vv lines."""
    p = subprocess.run([binary, path, "-e", expr, "--json", "--json-nonfinite", "python", *extra] +
                       (["-vv"] if log is not None else []), capture_output=True, text=True, timeout=300)
    if log is not None:
        log += p.stderr.splitlines()
    return json.loads(p.stdout)["tolist"] if p.returncode == 0 else "exit %d: %s" % (p.returncode, p.stderr[-300:])


def tinygrad_fold(flat):
    """A float32 sum as the tool folds it: blocks of 2,048 elements left to right (cumsum is sequential),
    the block partials met in the tree combine(first n // 2, rest)."""
    blocks = (flat.size + 2047) // 2048
    padded = np.zeros(blocks * 2048, np.float32)
    padded[:flat.size] = flat
    parts = np.cumsum(padded.reshape(blocks, 2048), axis=1, dtype=np.float32)[:, -1]

    def tree(p):
        return p[0] if len(p) == 1 else np.float32(tree(p[:len(p) // 2]) + tree(p[len(p) // 2:]))
    return tree(list(parts))


def values(binary, tmp):
    rng = np.random.default_rng(8)
    shapes = SHAPES[:2] if ASAN else SHAPES
    for shape in shapes:
        for dt in ("float32",) if ASAN else ("float32", "float16", "int32", "float64"):
            a = (rng.standard_normal(shape) * 100).astype(dt)
            if dt == "float32":
                a.flat[3], a.flat[2100] = -0.0, np.nan
            if dt == "float16":
                a /= 64
            path = os.path.join(tmp, "a.npy")
            np.save(path, a)
            exprs = EXPRS[:3] + EXPRS[6:7] if ASAN else EXPRS
            differ, log = [], {}
            for e in exprs:
                cached = run(binary, path, e, "--limit", "out_of_order_bytes=512K", log=log.setdefault(e, []))
                mapped = run(binary, path, e, "--limit", "out_of_order_bytes=1G")
                if isinstance(cached, str) or json.dumps(cached) != json.dumps(mapped):
                    differ.append(f"{e}: {cached} vs {mapped}")
            check(f"{dt} {shape}: through the caches as through the map", not differ, f"differ: {differ}")
            # What -vv says the caches did in the column walk of x.T.contiguous(): on 2 threads 16 KiB
            # blocks for 7 rows, 4 KiB for 40, 256 bytes for 600, the map for 2,500. (x.T[::2].sum()
            # of 2,500 rows folds in the file's order instead: reduce_file_order.hpp.)
            said = [line for line in log["x.T.contiguous().sum(axis=0)"] if "read out of order through" in line]
            want = block_words(shape[0])
            check(f"{dt} {shape}: -vv says x.T.contiguous() read the tensor {want}",
                  len(said) == 1 and want in said[0], f"{said}")
            if dt == "float32" and not ASAN:
                # The file-order folds (x.T[::2] merged into one view, x.T.flatten() unflattened) fold
                # blocks of 2,048 elements left to right and meet the partials in a pairwise tree, as
                # every reduction does (realize/kernels.hpp): recomputed here, bit for bit.
                for e, flat in (("x.T[::2].sum()", a.T[::2].reshape(-1)), ("x.T.flatten().sum()", a.T.reshape(-1))):
                    got, want = run(binary, path, e), tinygrad_fold(flat)
                    check(f"{dt} {shape}: {e} is the fold of blocks of 2,048 and a pairwise tree, bit for bit",
                          str(np.float32(got)) == str(want), f"{got} vs {want}")
            if dt == "float64":
                got = run(binary, path, "x.T[::2].sum()", "--limit", "out_of_order_bytes=512K")
                check(f"{dt} {shape}: x.T[::2].sum() matches NumPy's", np.isclose(got, a.T[::2].sum(), rtol=1e-9),
                      f"{got}")


def tables(binary, tmp):
    """A tall table read column by column (x.T.contiguous()) runs band by band: the caches read each
    16 KiB block once (1,024 of them, the 16 MiB tensor) for 16 columns and for 32 (which went to the
    map when the walk ran column after column); the values are the map's either way, and x.T.argmax()
    (a whole reduction) folds in the file's order, through no cache at all."""
    rng = np.random.default_rng(10)
    for cols, want in ((16, ": 1024 blocks of 16 KiB read"), (32, ": 1024 blocks of 16 KiB read")):
        a = rng.standard_normal(((16 * MiB) // 4 // cols, cols), dtype=np.float32)
        path = os.path.join(tmp, "table.npy")
        np.save(path, a)
        log = []
        expr = "x.T.contiguous().max(axis=0)"
        cached = run(binary, path, expr, "--limit", "out_of_order_bytes=512K", log=log)
        mapped = run(binary, path, expr, "--limit", "out_of_order_bytes=1G")
        check(f"({a.shape[0]}, {cols}) float32: {expr} is NumPy's through the caches and the map",
              cached == mapped == a.max(axis=1).tolist(), f"{str(cached)[:200]}, {str(mapped)[:200]}")
        said = [line for line in log if "read out of order through" in line]
        check(f"({a.shape[0]}, {cols}) float32: -vv says {expr} read the tensor {want}",
              len(said) >= 1 and all(want in s for s in said), f"{said}")
        log = []
        got = run(binary, path, "x.T.argmax()", "--limit", "out_of_order_bytes=512K", log=log)
        said = [line for line in log if "read out of order" in line]
        check(f"({a.shape[0]}, {cols}) float32: x.T.argmax() is NumPy's, read in the file's order",
              got == int(a.T.argmax()) and not said, f"{got} vs {a.T.argmax()}: {said}")


def measure(binary, args, value, idle, name):
    status, out, err, peak = run_measured(binary, args + ["--json"], 300)
    got = json.loads(out)["tolist"] if status == 0 else None
    check(f"{name} matches NumPy's float64 value", got is not None and np.isclose(got, value, rtol=1e-3, atol=1e-2),
          f"status {status}: {got} vs {value}: {err[-300:]!r}")
    check(f"{name} peaks under idle + 64 MiB", peak < idle + 64 * MiB,
          f"peak {peak / MiB:.0f} MiB, idle {idle / MiB:.0f} MiB")
    return got


def memory(binary, tmp):
    tiny = os.path.join(tmp, "tiny.npy")
    np.save(tiny, np.ones((2, 3), dtype=np.float32))
    _, _, _, idle = run_measured(binary, [tiny, "-e", "x.T.sum()"], 60)
    a = np.random.default_rng(9).standard_normal((150, (1 << 26) // 150), dtype=np.float32)
    path = os.path.join(tmp, "rows.npy")
    np.save(path, a)
    w = a.astype(np.float64)
    del a
    exprs = [("x.T.sum()", w.sum()), ("x.T[::2].sum()", w.T[::2].sum()), ("x.T.max()", w.max()),
             ("(x[:, None, :] * x[None, :1, :]).sum()", (w * w[:1]).sum()),
             ("x.reshape(2, -1).flip(1).sum()", w.sum()), ("x.T[::1000].sum()", w.T[::1000].sum()),
             ("(x.T + x.T.flip(0) + x.T.flip(1) + x.T * 2).sum()", 5 * w.sum())]
    del w
    for expr, value in exprs:
        measure(binary, [path, "-e", expr], value, idle, f"(150, 447392) float32: {expr}")
    # Many rows (16,384 of 16 KiB: more than any block cache holds a block of): a stepped transpose
    # and a whole argmax fold in the file's order (view_merge.hpp, reduce.cpp), the map held 267 MiB.
    many = os.path.join(tmp, "many.npy")
    b = np.random.default_rng(12).standard_normal((16384, 4096), dtype=np.float32)
    np.save(many, b)
    _, out, _, _ = run_measured(binary, [many, "-e", "x.T.argmax()", "--json"], 300)
    check("(16384, 4096) float32: x.T.argmax() is NumPy's", json.loads(out or "{}").get("tolist") == int(b.T.argmax()),
          out[-200:])
    wide = b.astype(np.float64)
    del b
    for expr, value in (("x.T[::2].sum()", wide.T[::2].sum()), ("x.T[1::3, ::-2].max()", wide.T[1::3, ::-2].max())):
        measure(binary, [many, "-e", expr], value, idle, f"(16384, 4096) float32: {expr}")
    del wide
    os.unlink(many)
    # A sparse step reads each 16 KiB block once and uses 4 bytes of it: not thrashing (no block is
    # read again), so no smaller blocks and no map.
    log = []
    run(binary, path, "x.T[::1000].sum()", log=log)
    said = [line for line in log if "read out of order through" in line]
    check("(150, 447392) float32: x.T[::1000].sum() keeps 16 KiB blocks",
          len(said) == 1 and "blocks of 16 KiB read" in said[0], f"{said}")
    return path


def remote(binary, path):
    from nginx_server import servers  # only here: the ASan run does not start nginx
    with servers("ti-block-reads-") as (_, www, nginx, _):
        os.symlink(path, os.path.join(www, "rows.npy"))
        np.save(os.path.join(www, "tiny.npy"), np.ones((2, 3), dtype=np.float32))
        limit = ["--limit", "remote_memory_bytes=128M"]
        _, _, _, idle = run_measured(binary, [nginx.url("files", "tiny.npy"), "-e", "x.T.sum()"] + limit, 60)
        for expr in ("x.T.sum()", "x.T[::2].sum()"):
            want = run(binary, path, expr)
            url = nginx.url("files", "rows.npy")
            status, out, err, peak = run_measured(binary, [url, "-e", expr, "--json"] + limit, 300)
            got = json.loads(out)["tolist"] if status == 0 else err[-300:]
            check(f"remote {expr} prints what the local file's does", got == want, f"{got} vs {want}")
            check(f"remote {expr} peaks under idle + 64 MiB", peak < idle + 64 * MiB,
                  f"peak {peak / MiB:.0f} MiB, idle {idle / MiB:.0f} MiB")
        # With the default remote_memory_bytes the threads' one cache (64 MiB) fetches each block once:
        # separate caches each fetched the blocks at the edges of their thread's share (1.55 times).
        mark = nginx.mark()
        got = run(binary, nginx.url("files", "rows.npy"), "x.T.sum()")
        sent, size = nginx.bytes_since(mark), os.path.getsize(path)
        check("remote x.T.sum() fetches at most 1.1 times the file", got == run(binary, path, "x.T.sum()") and
              sent <= 1.1 * size, f"{got}: {sent / size:.2f} times its {size / MiB:.0f} MiB")
        spilled(binary, www, nginx, idle)


def spilled(binary, www, nginx, idle):
    """4. A column walk over more rows than the remote cache holds: 4,096 rows of 8,192 float32 (128 MiB)
    under `--limit remote_memory_bytes=16M` (a cache of 64 blocks of 64 KiB). The tensor is copied to a
    temporary file once and read as a local file is (buffer/spill_file.hpp); it was fetched whole."""
    a = np.random.default_rng(4).integers(-1, 2, size=(4096, 8192)).astype(np.float32)  # sums exact in float32
    np.save(os.path.join(www, "wide.npy"), a)
    url, size = nginx.url("files", "wide.npy"), a.nbytes
    limit = ["--limit", "remote_memory_bytes=16M"]
    square = a[:, :4096]
    want = {"(x[:, :4096] + x[:, :4096].T).sum()": float((square + square.T).sum(dtype=np.float64)),
            "(x[:, :4096].T * x[:, 4096:]).sum(axis=0)[:6]": (square.T * a[:, 4096:]).sum(axis=0)[:6].tolist()}
    # The copy is read as the local file is: the remote run's peak is the local run's, plus the remote
    # machinery's own (its idle peak is about 9 MiB higher).
    local = {expr: run_measured(binary, [os.path.join(www, "wide.npy"), "-e", expr, "--json"], 300)[3]
             for expr in want}
    for expr, value in want.items():
        mark = nginx.mark()
        status, out, err, peak = run_measured(binary, [url, "-e", expr, "--json", "-v"] + limit, 300)
        sent = nginx.bytes_since(mark)
        got = json.loads(out)["tolist"] if status == 0 else err[-300:]
        check(f"remote {expr} through a temporary copy prints NumPy's value", got == value, f"{got} vs {value}")
        check(f"remote {expr}: -v says the tensor was copied to a temporary file",
              "copied to a temporary file" in err, err[-300:])
        # One copy, which both Loads read (realize/reread_copies.hpp): not a fetch per column, nor two.
        check(f"remote {expr} peaks under the local run's + 24 MiB and fetches at most 1.05 times the tensor",
              peak < local[expr] + 24 * MiB and sent <= 1.05 * size,
              f"peak {peak / MiB:.0f} MiB (local {local[expr] / MiB:.0f}), {sent / size:.2f} times the tensor")
    # With --cache the copy streams through the block cache (remote/cached_stream.cpp): the same bound,
    # where the tensor was fetched into memory and kept; a second run takes it all from the cache.
    expr = "(x[:, :4096] + x[:, :4096].T).sum()"
    with tempfile.TemporaryDirectory(prefix="ti-block-reads-cache-") as cache:
        for n in ("first", "second"):
            mark = nginx.mark()
            status, out, err, peak = run_measured(binary, [url, "-e", expr, "--json", "--cache", cache, "--cache-size",
                                                           "1G"] + limit, 300)
            sent = nginx.bytes_since(mark)
            got = json.loads(out)["tolist"] if status == 0 else err[-300:]
            most = MiB if n == "second" else 1.05 * size
            check(f"remote {expr} with --cache, {n} run: NumPy's value, peak under the local run's + 24 MiB, " +
                  ("nothing fetched" if n == "second" else "fetched once"),
                  got == want[expr] and peak < local[expr] + 24 * MiB and sent <= most,
                  f"{got}: peak {peak / MiB:.0f} MiB (local {local[expr] / MiB:.0f}), {sent / size:.2f} times")
    # On 4 threads under a 4M limit: the copy's caches of the other threads, made from their next
    # batch, read it (they read the remote file's unfetched memory, zeros, in 2 of 5 runs), and they
    # take a local file's share of out_of_order_bytes (a share of 4M thrashed and gave up to the
    # copy's map, the whole tensor resident).
    env4 = dict(os.environ, OMP_NUM_THREADS="4")
    walks = {"x[:, :4096].T.contiguous()[::97, ::89]": a[:, :4096].T[::97, ::89].tolist(),  # (the output: 64 MiB)
             "(x[:, :4096] + x[:, :4096].T).sum()": want["(x[:, :4096] + x[:, :4096].T).sum()"]}
    wrong, peaks = 0, []
    for expr, value in walks.items():
        for _ in range(4):
            p = subprocess.run(["/usr/bin/time", "-f", "%M", binary, url, "-e", expr, "--json", "--limit",
                                "remote_memory_bytes=4M"], capture_output=True, text=True, timeout=300, env=env4)
            wrong += p.returncode != 0 or json.loads(p.stdout)["tolist"] != value
            peaks += [int(p.stderr.split()[-1]) * 1024] if "sum" in expr else []
    check("4 threads, remote_memory_bytes=4M: eight runs of a copy's column walks print NumPy's values",
          wrong == 0, f"{wrong} of 8 wrong")
    expr = "(x[:, :4096] + x[:, :4096].T).sum()"
    check("4 threads, remote_memory_bytes=4M: the copy's sum peaks under the local run's + 24 MiB",
          max(peaks) < local[expr] + 24 * MiB,
          f"peaks {[round(q / MiB) for q in peaks]} MiB, local {local[expr] / MiB:.0f}")
    # No folder for the copy: one line naming the URL, exit 2, nothing on stdout.
    # The other threads stop there too: they fell back to fetching the whole tensor before the first
    # one's error ended the run.
    env = dict(os.environ, TMPDIR="/nonexistent-ti-folder")
    mark = nginx.mark()
    p = subprocess.run([binary, url, "-e", "(x[:, :4096] + x[:, :4096].T).sum()"] + limit, capture_output=True,
                       text=True, timeout=300, env=env)
    lines, sent = p.stderr.splitlines(), nginx.bytes_since(mark)
    check("no folder for the temporary copy: exit 2, one line naming the URL and TMPDIR, no stdout, "
          "a tenth of the tensor fetched at most", p.returncode == 2 and p.stdout == "" and len(lines) == 1 and
          url in lines[0] and "TMPDIR" in lines[0] and sent < size / 10,
          f"exit {p.returncode}: {p.stderr[-300:]!r} {p.stdout[:100]!r}, {sent / size:.2f} times the tensor")


def main():
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="ti-block-reads-") as tmp:
        values(binary, tmp)
        tables(binary, tmp)
        if not ASAN:
            path = memory(binary, tmp)
            remote(binary, path)
    return tally.summary()


if __name__ == "__main__":
    tally.pass_details = True
    sys.exit(main())
