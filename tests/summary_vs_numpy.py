#!/usr/bin/env python3
"""Summarized printing against NumPy: tensor-inspect shows exactly numpy.array2string's elements.

    /usr/bin/python3 tests/summary_vs_numpy.py build/tensor-inspect

For shapes from 0-d to 4-d (empty axes included) and print options (threshold, edgeitems),
it saves np.arange(size).reshape(shape) as an int64 .npy, so that each element names its
own position, and compares the tool's output with NumPy's
np.array2string(a, threshold=T, edgeitems=E, separator=', ', max_line_width=sys.maxsize):

  text   the `tolist:` line equals NumPy's string with its whitespace folded away
         (Python and NumPy print ints alike), and the `summary:` line counts NumPy's numbers;
  JSON   `tolist` equals NumPy's string parsed as JSON with `...` as the string "...",
         and `summary.shown` counts its numbers.

Then values: a float32 array whose elements print differently in NumPy and Python; the
positions come from NumPy's string of the index array, the values from Python's repr of
a.flat[k] (what memoryview.tolist() gives), and the tool's line must equal that exactly.
The same for every samples/*.npy (each dtype, big-endian, Fortran order, 0-d, empty).
Defaults: text with no option summarizes as np.get_printoptions() (threshold 1000,
edgeitems 3); JSON with no option and --full give the complete a.tolist().

Prints one line per failure and a closing `N passed, M failed`; exits 0 when all passed.
"""
import json
import os
import re
import subprocess
import sys

import tally
from tally import check
import tempfile

import numpy as np

SHAPES = [(), (0,), (1,), (5,), (7,), (2000,), (3, 0, 4), (0, 2000), (1, 1, 1), (10, 10), (4, 3000),
          (2, 1, 7), (7, 1), (3, 4, 5, 6), (2, 1, 7, 8), (7, 7, 7, 7), (1, 2001)]
OPTIONS = [(0, 0), (0, 1), (1, 2), (10, 3), (1000, 3), (24, 2), (5000, 1), (0, 10)]

tally.passes = False


def numpy_layout(a, threshold, edgeitems):
    """NumPy's summarized string of `a`, whitespace folded away."""
    s = np.array2string(a, threshold=threshold, edgeitems=edgeitems, separator=", ", max_line_width=sys.maxsize)
    return re.sub(r"\s+", "", s)


def run(tool, *args):
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def text_field(out, key):
    for line in out.splitlines():
        if line.startswith(key + ": "):
            return line[len(key) + 2:]
    return None


def as_python(layout, values):
    """NumPy's folded layout of an index array as the Python-like text of `values` at those indices."""
    return re.sub(r"\d+", lambda m: repr(values[int(m.group())]), layout).replace(",", ", ")


def main():
    if len(sys.argv) != 2:
        print(f"usage: {sys.argv[0]} <path to tensor-inspect>", file=sys.stderr)
        return 2
    tool = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="ti-summary-") as tmp:
        for shape in SHAPES:
            a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
            path = os.path.join(tmp, "a.npy")
            np.save(path, a)
            name = f"shape {shape}"
            for threshold, edgeitems in OPTIONS + [(None, None)]:
                opts = [] if threshold is None else ["--threshold", str(threshold), "--edgeitems", str(edgeitems)]
                want = numpy_layout(a, 1000, 3) if threshold is None else numpy_layout(a, threshold, edgeitems)
                shown = len(re.findall(r"\d+", want))
                code, out, err = run(tool, path, *opts)
                label = f"{name} {' '.join(opts) or 'default'}"
                got = text_field(out, "tolist")
                check(f"{label}: text exit 0", code == 0, err.strip())
                check(f"{label}: text tolist", got is not None and re.sub(r"\s+", "", got) == want,
                      f"got {got!r}, NumPy {want!r}")
                summary = text_field(out, "summary")
                if "..." in want:
                    check(
                        f"{label}: summary line",
                        summary == f"{shown} of {a.size} {'element' if a.size == 1 else 'elements'} "
                        f"shown (--full prints all)", f"got {summary!r}, NumPy shows {shown} of {a.size}")
                else:
                    check(f"{label}: no summary line when NumPy prints all", summary is None, repr(summary))
                if threshold is None:
                    continue
                code, out, err = run(tool, path, *opts, "--json")
                check(f"{label}: JSON exit 0", code == 0, err.strip())
                doc = json.loads(out) if code == 0 else {}
                check(f"{label}: JSON tolist", doc.get("tolist") == json.loads(want.replace("...", '"..."')),
                      f"got {doc.get('tolist')!r}, NumPy {want!r}")
                check(f"{label}: JSON summary", doc.get("summary") == {"summarized": "..." in want, "shown": shown,
                                                                       "size": a.size if a.size else 0},
                      repr(doc.get("summary")))
            for opts in (["--full"], ["--json"]):
                code, out, err = run(tool, path, *opts, *(["--json"] if opts == ["--full"] else []))
                doc = json.loads(out) if code == 0 else {}
                want = a.tolist() if a.size else []
                check(f"{name} {opts[0]}: every element", doc.get("tolist") == want and "summary" not in doc,
                      f"got {str(doc.get('tolist'))[:200]}")

        # Values: Python's repr of each shown float32, where NumPy would print 0.1 or 1e+20.
        rng = np.random.default_rng(7)
        for shape in [(3000,), (40, 50), (3, 4, 5, 6)]:
            f = (rng.standard_normal(shape) * 10.0 ** rng.integers(-8, 20, shape)).astype(np.float32)
            f.flat[0], f.flat[-1] = np.float32(0.1), np.float32(-0.0)
            path = os.path.join(tmp, "f.npy")
            np.save(path, f)
            index = np.arange(f.size).reshape(shape)
            flat = f.reshape(-1).tolist()
            for threshold, edgeitems in [(1000, 3), (10, 1), (0, 0)]:
                want = as_python(numpy_layout(index, threshold, edgeitems), flat)
                code, out, err = run(tool, path, "--threshold", str(threshold), "--edgeitems", str(edgeitems))
                got = text_field(out, "tolist")
                check(f"float32 {shape} threshold {threshold} edgeitems {edgeitems}: values as Python prints them",
                      got == want, f"got {got!r}, want {want!r}")
        # Every dtype and layout of the .npy samples (big-endian, Fortran order, bool, float16, 0-d, empty).
        samples = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "samples")
        for sample in sorted(f for f in os.listdir(samples) if f.endswith(".npy")):
            a = np.load(os.path.join(samples, sample))
            flat = a.reshape(-1).tolist()
            for threshold, edgeitems in [(1, 1), (0, 0)]:
                want = as_python(numpy_layout(np.arange(a.size).reshape(a.shape), threshold, edgeitems), flat)
                code, out, err = run(tool, os.path.join(samples, sample), "--threshold", str(threshold),
                                     "--edgeitems", str(edgeitems))
                got = text_field(out, "tolist")
                check(f"samples/{sample} threshold {threshold} edgeitems {edgeitems}", got == want,
                      f"got {got!r}, want {want!r}")
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
