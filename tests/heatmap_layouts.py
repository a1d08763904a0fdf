#!/usr/bin/env python3
"""A heatmap of a transposed or flipped tensor reads the stored bytes in their order.

    /usr/bin/python3 tests/heatmap_layouts.py build/tensor-inspect

A Fortran-order .npy, `-e 'x.T'` and `-e 'x.flip(0)'` are transposes and flips of the matrix the
file stores (stats/heatmap_layout.hpp). Their heatmap used to be drawn from a C-order copy (a
256 MiB Fortran-order file: 542 MiB peak, 2.2 s); now the bytes are read in place.
1. Pictures: over NumPy's small integers (every cell's sum exact), the SVG heatmap of each layout
   equals the heatmap of a C-order file holding the same matrix (NumPy's ascontiguousarray of
   it), element for element: the same cells in the same colours, for shapes over and under 512
   (cells that average blocks, and cells of one element), with a NaN and an inf placed apart.
   A computed tensor (`-e 'x * 2 - 1'`) or a view no layout expresses (`-e 'x[::2, 1:]'`) is
   streamed through the executor in C order: its picture too equals that of NumPy's values' file.
2. Memory (not under ASan): the heatmap of a 256 MiB Fortran-order float32 file, and of `-e 'x * 2'`
   of a C-order one, peak under the tool's idle peak plus 64 MiB.
Prints one line per check and `N passed, M failed`.
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally
from tally import check
from peak_rss import run_measured
import numpy as np

MiB = 1 << 20


def cells(binary, path, *extra):
    """What the SVG heatmap of `path` draws apart from its title: the cells (an embedded image, one
    pixel a cell) and the filled shapes (the scale, the legend's marks), in order; or the error."""
    svg = path + ".svg"
    p = subprocess.run([binary, path, *extra, "--plot", svg, "--plot-kind", "heatmap"], capture_output=True,
                       text=True, timeout=300)
    if p.returncode != 0:
        return "exit %d: %s" % (p.returncode, p.stderr[-300:])
    with open(svg, "rb") as f:
        data = f.read()
    os.remove(svg)
    return re.findall(rb"<image[^>]*>|<path style=\"[^\"]*fill:rgb[^>]*>", data)


def main():
    binary = os.path.abspath(sys.argv[1])
    rng = np.random.default_rng(33)
    with tempfile.TemporaryDirectory(prefix="ti-heatmap-") as tmp:
        for shape in ((7, 5), (600, 37), (40, 1100), (1, 9)):
            a = rng.integers(-50, 50, shape).astype(np.float32)
            a.flat[min(3, a.size - 1)] = np.nan
            a.flat[a.size // 2] = np.inf
            for label, stored, extra, logical in (
                    ("a Fortran-order file", np.asfortranarray(a), [], a),
                    ("-e 'x.T'", a, ["-e", "x.T"], a.T),
                    ("-e 'x.flip(0)'", a, ["-e", "x.flip(0)"], a[::-1]),
                    ("-e 'x.T.flip(1)'", np.asfortranarray(a), ["-e", "x.T.flip(1)"], a.T[:, ::-1]),
                    # Computed, or views no layout expresses: streamed through the executor in C order.
                    ("-e 'x * 2 - 1'", a, ["-e", "x * 2 - 1"], a * 2 - 1),
                    ("-e 'x[::2, 1:]'", a, ["-e", "x[::2, 1:]"], a[::2, 1:]),
                    ("-e '(x + x.flip(1)).T'", a, ["-e", "(x + x.flip(1)).T"], (a + a[:, ::-1]).T)):
                if logical.size == 0:
                    continue
                path, want_path = os.path.join(tmp, "in.npy"), os.path.join(tmp, "want.npy")
                np.save(path, stored)
                np.save(want_path, np.ascontiguousarray(logical))
                got, want = cells(binary, path, *extra), cells(binary, want_path)
                size = lambda r: len(r) if isinstance(r, list) else r  # noqa: E731
                check(f"{shape}: the heatmap of {label} is that of its C-order copy",
                      isinstance(got, list) and got == want and len(got) > 0, f"{size(got)} vs {size(want)}")
        if "ASAN_OPTIONS" in os.environ:  # CI's instrumented run: the pictures; peak RSS is Release's
            return tally.summary()
        tiny = os.path.join(tmp, "tiny.npy")
        np.save(tiny, np.ones((4, 4), np.float32, order="F"))
        big = os.path.join(tmp, "big.npy")
        np.save(big, np.asfortranarray(rng.standard_normal((4096, 16384), dtype=np.float32)))
        out = os.path.join(tmp, "h.png")
        _, _, _, idle = run_measured(binary, [tiny, "--plot", out, "--plot-kind", "heatmap"], 60)
        os.remove(out)
        status, _, err, peak = run_measured(binary, [big, "--plot", out, "--plot-kind", "heatmap"], 300)
        check("the heatmap of a 256 MiB Fortran-order file is written", status == 0 and os.path.exists(out),
              f"exit {status}: {err[-300:]}")
        check("it peaks under idle + 64 MiB", peak < idle + 64 * MiB,
              f"peak {peak / MiB:.0f} MiB, idle {idle / MiB:.0f} MiB")
        # A computed tensor's heatmap streams it (it was realized whole: 300 MiB for 256).
        np.save(big, rng.standard_normal((4096, 16384), dtype=np.float32))
        status, _, err, peak = run_measured(binary, [big, "-e", "x * 2", "--plot", out, "--plot-kind", "heatmap"], 300)
        check("the heatmap of -e 'x * 2' of a 256 MiB file peaks under idle + 64 MiB", status == 0 and
              peak < idle + 64 * MiB, f"exit {status}, peak {peak / MiB:.0f} MiB, idle {idle / MiB:.0f} MiB")
    return tally.summary()


if __name__ == "__main__":
    tally.pass_details = True
    sys.exit(main())
