#!/usr/bin/python3
"""--graph shows, on stderr, the lazy graph and kernels of what the run computes, and is never
silently ignored.

    /usr/bin/python3 tests/cli_graph.py path/to/tensor-inspect

Before, --graph printed nothing when the print was summarized (the tensor over NumPy's
threshold, or --threshold/--edgeitems with --json), and nothing with --header, --stats or a
check: the option was ignored without a word. Now a summarized print shows the graph of the
shown elements, the only ones it computes: its last kernel makes exactly the shape NumPy's
summary shows (edgeitems at each end of each axis longer than 2 * edgeitems, worked out
here), never the whole tensor; a whole print shows the whole tensor's kernel; stdout is the
same as without --graph. The refusals (--header, --stats, ... with --graph) are in
tests/cli_contradictions.py; a file of several tensors without --name is refused here.
Closes with `N passed, M failed`.
"""
import os, re, subprocess, sys

import numpy as np

import tally
from tally import check

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANY = os.path.join(ROOT, "samples", "mixed.safetensors")
BIG_ENDIAN = os.path.join(ROOT, "samples", "big_endian_f8.npy")


def run(args):
  p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=60)
  return p.returncode, p.stdout, p.stderr


def shown_shape(shape, edgeitems=3):
  """The shape of the elements numpy.array2string shows of a summarized array."""
  return tuple(2 * edgeitems if n > 2 * edgeitems else n for n in shape)


def shape_text(shape):
  return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def kernel_shapes(err):
  """The output shape of each kernel of the schedule(s) --graph printed, in order."""
  return re.findall(r"^kernel \d+: \w+ \w+ (\([^)]*\)) <-", err, re.M)


CASES = [
    # (what, args, the tensor's shape, summarized)
    ("arange(3000), text", ["-e", "Tensor.arange(3000)"], (3000,), True),
    ("arange(20000) as (2000, 10), text", ["-e", "Tensor.arange(20000).reshape(2000, 10)"], (2000, 10), True),
    ("(2000, 10) * 2, JSON "
     "with --threshold 100", ["-e", "Tensor.arange(20000).reshape(2000, "
                              "10) * 2", "--json", "--threshold", "100"], (2000, 10), True),
    ("(2000, 10) --edgeitems 1", ["-e", "Tensor.arange(20000).reshape(2000, 10)", "--edgeitems",
                                  "1"], (2000, 10), True),
    ("arange(3000) --full", ["-e", "Tensor.arange(3000) + 1", "--full"], (3000,), False),
    ("(2, 3), whole", ["[[1, 2, 3], [4, 5, 6]]", "-e", "x * 2"], (2, 3), False),
]
for what, args, shape, summarized in CASES:
  rc, out, err = run([*args, "--graph"])
  rc0, out0, err0 = run(args)
  edge = int(args[args.index("--edgeitems") + 1]) if "--edgeitems" in args else 3
  want = shape_text(shown_shape(shape, edge) if summarized else shape)
  kernels = kernel_shapes(err)
  check(f"{what}: exit 0, stdout as without --graph", rc == 0 and rc0 == 0 and out == out0, (rc, err[-300:]))
  check(f"{what}: a graph and a schedule on stderr", err.startswith("graph:\n") and "\nschedule:\n" in err, err[:300])
  check(f"{what}: the last kernel "
        f"makes {want}, what is printed", kernels and kernels[-1] == want, (kernels, err[-400:]))
  if summarized:
    check(f"{what}: no kernel makes the whole {shape_text(shape)}", shape_text(shape) not in kernels, kernels)

rc, out, err = run(["-e", "Tensor.arange(3000)", "--graph=dot"])
check("--graph=dot of a summary: one "
      "digraph of the shown elements", rc == 0 and err.startswith("digraph") and err.count("digraph") == 1 and
      "(6,)" in err, err[:300])

# --view-as over a big-endian file, summarized: the shown bytes gathered from the stored ones.
values = np.load(BIG_ENDIAN)
nbytes = values.astype(values.dtype.newbyteorder("=")).nbytes
rc, out, err = run([BIG_ENDIAN, "--view-as", "B", "--threshold", "4", "--graph"])
kernels = kernel_shapes(err)
check(f"big-endian --view-as B summarized ({nbytes} bytes): the graph of the 6 shown bytes", rc == 0 and
      "byte-swapped" in err and kernels and kernels[-1] == "(6,)" and shape_text(
          (nbytes,)) not in kernels, (rc, kernels, err[:400]))

# Several tensors: a graph per printed tensor; a listing computes nothing.
rc, out, err = run([MANY, "--all", "--graph"])
printed = out.count("\n== ") + out.startswith("== ")
check("--all --graph: one "
      "graph per printed tensor", rc == 0 and printed > 1 and err.count("graph:\n") == printed,
      (rc, printed, err[:300]))
rc, out, err = run([MANY, "--graph"])
check("a file of several tensors, --graph without --name: exit 2 naming --graph and --name", rc == 2 and out == "" and
      len(err.splitlines()) == 1 and "--graph" in err and "--name" in err, (rc, out[:100], err))

sys.exit(tally.summary())
