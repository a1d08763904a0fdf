#!/usr/bin/env python3
"""A kernel that walks a tall table's columns (`x.T.contiguous()`, `export -e 'x.T'`) runs band by band
(realize/chunk_order.hpp): each block of the file is read once, whatever the row count, and the values
are NumPy's, bit for bit.

    /usr/bin/python3 tests/banded_walks.py build/tensor-inspect

1. Values: a (65536, 48) float32 table of NumPy's standard-normal values with a nan and a -0.0, under
   `--limit out_of_order_bytes=512K` (caches of 256 KiB a thread: 1,024 rows of 256 bytes, where the walk
   crosses 65,536). `export -e` of x.T, x.T * 2 + 1, x.T.flip(1) and x.T[::-3] to .npy, .safetensors and
   .npz files, to a regular file on stdout and to a pipe holds exactly NumPy's bytes (the .npz's CRC
   checks out in Python's zipfile, which verifies it); the same on 1 and 3 threads.
   `-e 'x.T.contiguous().max(axis=0)'` prints NumPy's values (the nan's row aside: max meets it in an
   order of its own) and what the file map gives, and -vv says its caches read each block once (before:
   the walk thrashed the caches and went through the file map).
   A cast that raises at a nan and later at an inf (export --dtype int8) names the nan on 1, 2 and 3
   threads alike (the lowest failing chunk's error; 2 threads named either).
2. Memory (not under ASan): export -e 'x.T' of a (393216, 64) float32 table (96 MiB) under the same limit,
   to a .npy file, peaks under the tool's idle peak plus 32 MiB; it held the file's pages, about 100 MiB.
Prints one line per check and `N passed, M failed`.
"""
import json
import os
import subprocess
import sys
import tempfile
import zipfile

import numpy as np

import tally
from tally import check
from peak_rss import run_measured

MiB = 1 << 20
ASAN = "ASAN_OPTIONS" in os.environ
LIMIT = ["--limit", "out_of_order_bytes=512K"]
EXPRS = {"x.T": lambda a: a.T, "x.T * 2 + 1": lambda a: a.T * np.float32(2) + np.float32(1),
         "x.T.flip(1)": lambda a: a.T[:, ::-1], "x.T[::-3]": lambda a: a.T[::-3]}


def tool(binary, *args, threads=None, stdout=subprocess.DEVNULL):
    """The tool's exit status and stderr; stdout goes to `stdout`."""
    env = dict(os.environ)
    if threads:
        env["OMP_NUM_THREADS"] = str(threads)
    p = subprocess.run([binary, *args], stdout=stdout, stderr=subprocess.PIPE, text=True, env=env, timeout=300)
    return p.returncode, p.stderr


def stored(path, fmt):
    """The array a .npy, .npz or .safetensors file holds (its one tensor)."""
    if fmt == "npz":
        with zipfile.ZipFile(path) as z:
            bad = z.testzip()  # reads every member and checks its CRC
        assert bad is None, f"bad CRC in {bad}"
        return np.load(path)["x"]
    if fmt == "npy":
        return np.load(path)
    raw = open(path, "rb").read()
    n = int.from_bytes(raw[:8], "little")
    head = json.loads(raw[8:8 + n])
    meta = head["x"]
    begin, end = meta["data_offsets"]
    return np.frombuffer(raw[8 + n + begin:8 + n + end], dtype=np.float32).reshape(meta["shape"])


def same(got, want):
    """Equal shapes and bytes (a nan's bits and a -0.0's sign included)."""
    return got.shape == want.shape and np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes()


def values(binary, tmp):
    a = np.random.default_rng(21).standard_normal((65536, 48), dtype=np.float32)
    a[7, 3], a[60000, 47] = np.nan, -0.0
    src = os.path.join(tmp, "table.npy")
    np.save(src, a)
    for expr, numpy in EXPRS.items():
        want = numpy(a)
        for fmt in ("npy", "safetensors", "npz"):
            out = os.path.join(tmp, f"out.{fmt}")
            for threads in (1, 3):
                status, err = tool(binary, "export", src, "-e", expr, "-o", out, "--force", *LIMIT, threads=threads)
                try:
                    got = stored(out, fmt) if status == 0 else None
                except AssertionError as e:
                    got, err = None, str(e)
                check(f"export -e '{expr}' to .{fmt} on {threads} thread(s): NumPy's bytes",
                      got is not None and same(got, want), f"exit {status}: {err[-300:]!r}")
        # Standard output: a regular file takes the runs at their places, a pipe in order.
        out = os.path.join(tmp, "stdout.npy")
        with open(out, "wb") as f:
            status, err = tool(binary, "export", src, "-e", expr, "-o", "-", "--format", "npy", *LIMIT, stdout=f)
        check(f"export -e '{expr}' -o - into a regular file: NumPy's bytes",
              status == 0 and same(np.load(out), want), f"exit {status}: {err[-300:]!r}")
        p = subprocess.Popen([binary, "export", src, "-e", expr, "-o", "-", "--format", "npy", *LIMIT],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        body, err = p.communicate(timeout=300)
        with open(out, "wb") as f:
            f.write(body)
        check(f"export -e '{expr}' -o - into a pipe: NumPy's bytes",
              p.returncode == 0 and same(np.load(out), want), f"exit {p.returncode}: {err[-300:]!r}")
    expr = "x.T.contiguous().max(axis=0)"
    status, err = tool(binary, src, "-e", expr, "--json", "-vv", *LIMIT, stdout=subprocess.PIPE)
    def printed(lim):
        p = subprocess.run([binary, src, "-e", expr, "--json", "--limit", f"out_of_order_bytes={lim}"],
                           capture_output=True, text=True, timeout=300)
        return json.loads(p.stdout or "{}").get("tolist")
    got, mapped = printed("512K"), printed("1G")
    # (max's nan depends on the order it meets it in: conformance/README.md; row 7 holds the nan)
    want = a.max(axis=1).tolist()
    check(f"{expr} prints NumPy's values (but at the nan's row) and what the file map gives, nan included",
          got is not None and str(got) == str(mapped) and str(got[:7] + got[8:]) == str(want[:7] + want[8:]),
          f"{str(got)[:200]}")
    said = [line for line in err.splitlines() if "read out of order through" in line]
    blocks = [int(line.split(": ")[-1].split()[0]) * 16384 for line in said if "blocks of 16 KiB read" in line]
    check(f"-vv says {expr} read each block of the 12 MiB table once, in 16 KiB blocks",
          len(blocks) == 1 and blocks[0] <= a.nbytes * 1.05, f"{said}")


def first_error(binary, tmp):
    """A cast that raises at a nan and, later, at an inf names the nan on any thread count: the lowest
    failing chunk's error (it named either at random on 2 threads)."""
    a = np.random.default_rng(23).standard_normal((70000, 3), dtype=np.float32)
    a[0, 0], a[60000, 2] = np.nan, np.inf
    src, out = os.path.join(tmp, "bad.npy"), os.path.join(tmp, "bad_out.npy")
    np.save(src, a)
    for expr in ("x.T", "x"):
        said = set()
        for threads in (1, 2, 2, 2, 2, 3, 3, 3):
            status, err = tool(binary, "export", src, "-e", expr, "--dtype", "int8", "-o", out, "--force",
                               threads=threads)
            said.add((status, err.strip()))
        check(f"export -e '{expr}' --dtype int8 over a nan, then an inf: one error on 1, 2 and 3 threads, the nan's",
              len(said) == 1 and next(iter(said))[0] == 2 and "NaN" in next(iter(said))[1], f"{said}")


def memory(binary, tmp):
    tiny = os.path.join(tmp, "tiny.npy")
    np.save(tiny, np.ones((2, 3), dtype=np.float32))
    _, _, _, idle = run_measured(binary, ["export", tiny, "-e", "x.T", "-o", os.path.join(tmp, "t.npy")], 60)
    a = np.random.default_rng(22).integers(-8, 8, size=(393216, 64)).astype(np.float32)
    src, out = os.path.join(tmp, "tall.npy"), os.path.join(tmp, "tall_t.npy")
    np.save(src, a)
    status, _, err, peak = run_measured(binary, ["export", src, "-e", "x.T", "-o", out, *LIMIT], 300)
    check("export -e 'x.T' of a (393216, 64) float32 table: NumPy's bytes",
          status == 0 and same(np.load(out), a.T), f"exit {status}: {err[-300:]!r}")
    check("export -e 'x.T' of a (393216, 64) float32 table (96 MiB) peaks under idle + 32 MiB",
          peak < idle + 32 * MiB, f"peak {peak / MiB:.0f} MiB, idle {idle / MiB:.0f} MiB")


def main():
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="ti-banded-") as tmp:
        values(binary, tmp)
        first_error(binary, tmp)
        if not ASAN:
            memory(binary, tmp)
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
