#!/usr/bin/python3
"""The printer's output path at its limits.

Usage: /usr/bin/python3 tests/output_limits.py BUILD/tensor-inspect

- A reader that stops early (`| head -c 100`) ends the run quietly, as for cat: nothing on
  stderr, and the process ends by SIGPIPE (or, if it was done already, with status 0).
- A full disk (/dev/full) is still trouble: exit status 2 and one line on stderr.
- Printing 10 million float32 values (about 206 MB of text) keeps peak RSS under 64 MiB,
  and the same values printed from a file twice as large do not raise it by more than a
  few MiB: memory does not grow with the output.
Exit status 0 when all hold, 1 otherwise.
"""
import os
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally  # noqa: E402

import numpy as np

BIN = sys.argv[1]


def peak_rss_mib(args):
    """Runs args with stdout to /dev/null; returns (exit status, the child's peak RSS in MiB).
    GNU time measures from a small parent; a fork of this Python would start the child's
    high-water mark at this process's size."""
    with open(os.devnull, "wb") as null:
        p = subprocess.run(["/usr/bin/time", "-f", "%M", BIN, "--full", *args], stdout=null, stderr=subprocess.PIPE)
    return p.returncode, int(p.stderr.decode().split()[-1]) / 1024


with tempfile.TemporaryDirectory() as d:
    p = subprocess.Popen([BIN, "--full", "-e", "Tensor.arange(2000000)"],
                         stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    head = p.stdout.read(100)
    p.stdout.close()
    err = p.stderr.read()
    p.wait()
    tally.check(f"closed pipe after 100 bytes: quiet (stderr {err!r}, status {p.returncode})",
                head.startswith(b"dtype: int32") and err == b"" and p.returncode in (0, -signal.SIGPIPE))

    with open("/dev/full", "wb") as full:
        q = subprocess.run([BIN, "--full", "-e", "Tensor.arange(200000)"], stdout=full, stderr=subprocess.PIPE)
    lines = q.stderr.decode().splitlines()
    tally.check(f"/dev/full: exit {q.returncode}, stderr {lines!r}",
                q.returncode == 2 and len(lines) == 1 and "write error" in lines[0])

    rng = np.random.default_rng(5)
    small = os.path.join(d, "f32_1e7.npy")
    np.save(small, rng.standard_normal(10_000_000, dtype=np.float32).reshape(10000, 1000))
    large = os.path.join(d, "f32_2e7.npy")
    np.save(large, rng.standard_normal(20_000_000, dtype=np.float32).reshape(20000, 1000))
    for path in (small, large):  # into the page cache, so both runs see the same
        with open(path, "rb") as f:
            while f.read(1 << 24):
                pass
    code1, rss1 = peak_rss_mib([small])
    code2, rss2 = peak_rss_mib([large])
    code3, rss3 = peak_rss_mib([small, "--json"])
    tally.check(
        f"peak RSS printing 1e7 float32: {rss1:.1f} MiB text, "
        f"{rss3:.1f} MiB JSON; 2e7: {rss2:.1f} MiB (limit 64)", code1 == code2 == code3 == 0 and
        max(rss1, rss2, rss3) < 64)
    tally.check(f"peak RSS does not grow with the output: 1e7 {rss1:.1f} MiB, 2e7 {rss2:.1f} MiB",
                rss2 < rss1 + 8)

sys.exit(tally.summary())
