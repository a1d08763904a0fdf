#!/usr/bin/python3
"""Expressions, --assert and heatmaps give a mapped file's pages back behind their scan (issue 25 part 3).

    /usr/bin/python3 tests/local_pages_peak_rss.py build/tensor-inspect

A float32 safetensors tensor of 288 MiB (NumPy's integers in [-8, 8] as float32, seed 25,
so every partial sum is exact and the results are NumPy's exactly) is reduced with
`-e 'x.sum()'` and `-e 'x.abs().max()'`, checked with `--assert '(x.abs() < 100).all()'`,
and drawn with `--plot ... --plot-kind heatmap`. Before, each kept every page it read: a
peak RSS of the tensor's size. Each run's peak (GNU time, the tool alone) must stay under the
tool's own idle peak (the same command over a 4 x 4 tensor: under ASan it holds the
sanitizer's own memory) plus one batch of the executor's pages (8 M elements, 32 MiB) plus
a margin, far under the file's size. OMP_NUM_THREADS=2 fixes the threads' share. Prints one
line per check and `N passed, M failed`.
"""
import json
import os
import struct
import sys
import tempfile

import numpy as np

import tally
from peak_rss import run_measured
from tally import check

tally.pass_details = True
MiB = 1 << 20
ROWS, COLS = 8192, 9216  # 288 MiB of float32
WINDOW = 32 * MiB
# Under ASan freed memory waits in its quarantine and allocations carry redzones (the remote
# scans measured idle + 58-66 MiB there): a larger margin, still far under the file's size.
MARGIN = (100 if "ASAN_OPTIONS" in os.environ else 32) * MiB


def write_safetensors(path, name, arr):
    header = {name: {"dtype": "F32", "shape": list(arr.shape), "data_offsets": [0, arr.nbytes]}}
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        f.write(np.ascontiguousarray(arr).tobytes())


def scalar_of(out):
    """The value a 0-d -e result prints (its `tolist:` line), or None."""
    for line in out.splitlines():
        if line.startswith("tolist:"):
            return float(line.split(":", 1)[1])
    return None


def main():
    binary = os.path.abspath(sys.argv[1])
    os.environ["OMP_NUM_THREADS"] = "2"
    ints = np.random.default_rng(25).integers(-8, 9, (ROWS, COLS), dtype=np.int8)
    want_sum, want_absmax = int(ints.sum(dtype=np.int64)), int(np.abs(ints).max())
    with tempfile.TemporaryDirectory() as d:
        big, tiny = os.path.join(d, "big.safetensors"), os.path.join(d, "tiny.safetensors")
        write_safetensors(big, "w", ints.astype(np.float32))
        del ints
        write_safetensors(tiny, "w", np.arange(16, dtype=np.float32).reshape(4, 4))
        size = os.path.getsize(big)
        runs = [
            ("-e 'x.sum()'", ["-e", "x.sum()"], lambda out: scalar_of(out) == want_sum, f"sum {want_sum}"),
            ("-e 'x.abs().max()'", ["-e", "x.abs().max()"], lambda out: scalar_of(out) == want_absmax,
             f"max {want_absmax}"),
            ("--assert '(x.abs() < 100).all()'", ["--assert", "(x.abs() < 100).all()"], lambda out: True, ""),
            ("--plot heatmap", ["--plot", os.path.join(d, "h.png"), "--plot-kind", "heatmap"],
             lambda out: os.path.exists(os.path.join(d, "h.png")), "a PNG written"),
        ]
        for label, args, ok, want in runs:
            _, _, _, idle = run_measured(binary, [tiny, "--name", "w"] + args, 60)
            if os.path.exists(os.path.join(d, "h.png")):
                os.remove(os.path.join(d, "h.png"))  # the idle run's picture
            status, out, err, peak = run_measured(binary, [big, "--name", "w"] + args, 300)
            check(f"{label}: exit 0 and {want or 'the assertion holds'}", status == 0 and ok(out),
                  f"exit {status}, {out.strip()[-200:]!r} {err.strip()[-200:]}")
            bound = idle + WINDOW + MARGIN
            check(f"{label} over {size / MiB:.0f} MiB: peak under idle + {WINDOW // MiB} + {MARGIN // MiB} MiB",
                  status == 0 and peak < bound, f"peak {peak / MiB:.0f} MiB, idle {idle / MiB:.0f} MiB")
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
