#!/usr/bin/env python3
"""A remote tensor that an expression reads more than once is fetched once: copied to a temporary file
before the first kernel runs, and every kernel reads the copy (realize/reread_copies.hpp).

    /usr/bin/python3 tests/remote_rereads.py build/tensor-inspect

Over a (4096, 8192) float32 .npy of NumPy's small integers (sums exact), served by a local nginx:
`x.argmax()` (tinygrad's max, then the first index equal to it: two kernels), `(x - x.mean()).abs().max()`,
`x.softmax(1)[:, 5].sum()` (three reads) and `-e 'x - x.mean()' --stats` print what the local file
prints, NumPy's values where NumPy has them, the server sends the file at most 1.05 times (2.0 and 3.0
before), and -v says the tensor was copied; peaks stay under the local run's plus 24 MiB (not under ASan), and
under the idle peak plus 64 MiB where the local run's does (softmax holds its 128 MiB exp either way).
`x.sum()` (one read) and `x[:10].argmax()` (a few rows, fetched alone) make no copy. A running sum
of a (8392704, 2) float32, which tinygrad splits in two passes, is copied and fetched once; one that
outputs rows 100 to 102 reads those alone. With TMPDIR a folder that does not exist the same expressions
print the same values, fetching each time, and -v says why; with TMPDIR a folder of its own, the folder
is empty after the run (the copy has no name).
Prints one line per check and `N passed, M failed`.
"""
import json
import os
import subprocess
import sys

import numpy as np

import tally
from tally import check
from nginx_server import servers
from peak_rss import run_measured

MiB = 1 << 20
ASAN = "ASAN_OPTIONS" in os.environ


def run(binary, source, args, env=None):
    """(exit status, stdout, stderr) of the tool."""
    p = subprocess.run([binary, source, *args], capture_output=True, text=True, timeout=300,
                       env={**os.environ, **(env or {})})
    return p.returncode, p.stdout, p.stderr


def main():
    binary = os.path.abspath(sys.argv[1])
    with servers("ti-rereads-") as (tmp, www, nginx, _fault_url):
        a = np.random.default_rng(41).integers(-1000, 1000, size=(4096, 8192)).astype(np.float32)
        path = os.path.join(www, "x.npy")
        np.save(path, a)
        url = nginx.url("files", "x.npy")
        size = os.path.getsize(path)
        tiny = os.path.join(tmp, "tiny.npy")
        np.save(tiny, np.ones((2, 3), dtype=np.float32))
        _, _, _, idle = run_measured(binary, [tiny, "-e", "x.argmax()"], 60)
        w = a.astype(np.float64)
        cases = [(["-e", "x.argmax()", "--json"], int(a.argmax())),
                 (["-e", "(x - x.mean()).abs().max()", "--json"], None),
                 (["-e", "x.softmax(1)[:, 5].sum()", "--json"], None),
                 (["-e", "x - x.mean()", "--stats", "--json"], None)]
        for args, numpy in cases:
            name = " ".join(args[:-1])
            local = run(binary, path, args)
            _, _, _, local_peak = run_measured(binary, [path, *args], 300)
            mark = nginx.mark()
            status, out, err, peak = run_measured(binary, [url, *args, "-v"], 300)
            sent = sum(int(line.split()[2]) for line in nginx.lines_since(mark))
            strip = lambda text: text.replace(url, "X").replace(path, "X")  # the input's name
            check(f"{name}: remote prints what the local file prints", status == 0 and strip(out) == strip(local[1]),
                  f"exit {status}: {out[:200]!r} vs {local[1][:200]!r} {err[-300:]!r}")
            if numpy is not None:
                check(f"{name}: NumPy's value", json.loads(local[1]).get("tolist") == numpy, local[1][:200])
            check(f"{name}: the server sent the file once", sent <= size * 1.05, f"{sent / size:.2f} times")
            check(f"{name}: -v says the tensor was copied to a temporary file",
                  "were copied to a temporary file" in err, err[-400:])
            if not ASAN:
                check(f"{name}: peak under the local run's plus 24 MiB, and under idle + 64 MiB or the local run's",
                      peak < local_peak + 24 * MiB and (peak < idle + 64 * MiB or local_peak > idle + 64 * MiB),
                      f"peak {peak / MiB:.0f} MiB, local {local_peak / MiB:.0f} MiB, idle {idle / MiB:.0f} MiB")
            # No room for the copy: the same values, fetched on each read.
            mark = nginx.mark()
            status, out, err = run(binary, url, [*args, "-v"], env={"TMPDIR": "/nonexistent-ti-folder"})
            sent = sum(int(line.split()[2]) for line in nginx.lines_since(mark))
            check(f"{name}: with no folder for a copy, the same output, fetched on each read",
                  status == 0 and strip(out) == strip(local[1]) and sent >= size * 1.9 and
                  "are fetched each time: no temporary file can be made" in err,
                  f"exit {status}, {sent / size:.2f} times: {err[-300:]!r}")
        # One read, or reads of a few rows: no copy, and those rows fetched alone.
        for expr, want in (("x.sum()", float(w.sum())), ("x[:10].argmax()", int(a[:10].argmax()))):
            mark = nginx.mark()
            status, out, err = run(binary, url, ["-e", expr, "--json", "-v"])
            sent = sum(int(line.split()[2]) for line in nginx.lines_since(mark))
            check(f"{expr}: NumPy's value, no copy, fetched at most once",
                  status == 0 and json.loads(out)["tolist"] == want and "temporary file" not in err and
                  sent <= size * 1.05 and (expr == "x.sum()" or sent < size / 10),
                  f"{out[:200]!r} {sent / size:.2f} times, {err[-300:]!r}")
        # A scan of more than 2**23 rows reads them twice (tinygrad splits the sum of its chunk totals):
        # copied; one that outputs its first rows reads those alone.
        long = a.reshape(-1)[:8392704 * 2].reshape(8392704, 2)
        np.save(os.path.join(www, "long.npy"), long)
        lurl, lsize = nginx.url("files", "long.npy"), long.nbytes
        first = long[:103].astype(np.float64).cumsum(axis=0)[100:103].tolist()
        for expr, want in (("x.cumsum(axis=0)[-1]", long.astype(np.float64).sum(axis=0).tolist()),
                           ("x.cumsum(axis=0)[100:103]", first)):
            local = run(binary, os.path.join(www, "long.npy"), ["-e", expr, "--json"])
            mark = nginx.mark()
            status, out, err = run(binary, lurl, ["-e", expr, "--json", "-v", "--limit", "remote_memory_bytes=128M"])
            sent = sum(int(line.split()[2]) for line in nginx.lines_since(mark))
            whole = expr.endswith("[-1]")
            check(f"(8392704, 2) float32 {expr}: the local output (NumPy's integers), " +
                  ("copied, fetched once" if whole else "no copy, a few rows fetched"),
                  status == 0 and out.replace(lurl, "X") == local[1].replace(os.path.join(www, "long.npy"), "X") and
                  json.loads(out)["tolist"] == want and
                  ("copied to a temporary file" in err) == whole and
                  (sent <= lsize * 1.05 if whole else sent < lsize / 10),
                  f"{out[:200]!r} vs {local[1][:200]!r}, {sent / lsize:.2f} times: {err[-300:]!r}")
        # The copy has no name: its folder is empty after the run.
        folder = os.path.join(tmp, "spill")
        os.mkdir(folder)
        status, _, err = run(binary, url, ["-e", "x.argmax()", "-v"], env={"TMPDIR": folder})
        check("TMPDIR of its own: the copy is made there and leaves nothing behind",
              status == 0 and folder in err and os.listdir(folder) == [], f"{os.listdir(folder)} {err[-300:]!r}")
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
