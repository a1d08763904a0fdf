#!/usr/bin/env python3
"""What a user tester found in --plot, checks and statistics, each rebuilt and checked from
outside: two tensors whose --plot paths meet (1), --expect on a tensor that cannot be decoded
(2), errors inside an --assert naming it (3), fail_on.failed of the unnamed tensor (4), skipped
rows of the --stats table aligned (5).

    python3 tests/user_faults_checks.py path/to/tensor-inspect

Inputs are written by NumPy in a temporary folder or are the samples; what each check expects
is computed here, never copied from the tool's output. Closes with `N passed, M failed`.
"""
import json, os, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally
from user_faults_common import QUANTS, run, trouble


def fault1_plot_paths_meet(tmp):
  """1. --plot 'pc/{name}.png' --all over members dir/a and dir_a: both became pc/dir_a.png,
  the second replaced the first, exit 0. Now a usage error naming both and the path, before a
  file is written."""
  import numpy as np
  npz = os.path.join(tmp, "clash.npz")
  np.savez(npz, **{"dir/a": np.arange(4, dtype=np.float32), "dir_a": np.ones(3, dtype=np.float32)})
  out_dir = os.path.join(tmp, "pc")
  os.mkdir(out_dir)
  pattern = os.path.join(out_dir, "{name}.png")
  path = os.path.join(out_dir, "dir_a.png")
  trouble("1: --plot over dir/a and dir_a: exit 2 naming both tensors and the path",
          [npz, "--all", "--plot", pattern], ["--plot", "'dir/a'", "'dir_a'", path])
  tally.check("1: nothing written in the folder", os.listdir(out_dir) == [], repr(os.listdir(out_dir)))
  rc, out, err = run([npz, "--name", "dir_a", "--plot", pattern])
  tally.check("1: one of them alone still draws its PNG", rc == 0 and os.path.exists(path), f"{rc} {err!r}")


def fault2_expect_undecodable():
  """2. --name q8_1 --expect shape=32 exited 2 (cannot dequantize Q8_1) though --expect reads
  the header alone and --list shows (32,). Now shape and ndim check; dtype, format and nbytes
  (which need a decoded dtype) fail saying why; --assert, which needs values, stays trouble."""
  for spec in ("shape=32", "shape=(32,)", "ndim=1"):
    rc, out, err = run([QUANTS, "--name", "q8_1", "--expect", spec])
    tally.check(f"2: --expect {spec} on q8_1: exit 0", rc == 0 and "1 check passed" in out and not err,
                f"{rc} {out!r} {err!r}")
  rc, out, err = run([QUANTS, "--name", "q8_1", "--expect", "shape=2,16"])
  tally.check("2: --expect shape=2,16 on "
              "q8_1: exit 1, shape is (32,)", rc == 1 and "shape is (32,)" in out, f"{rc} {out!r} {err!r}")
  for key, value in (("dtype", "float32"), ("format", "f"), ("nbytes", "128")):
    rc, out, err = run([QUANTS, "--name", "q8_1", "--expect", f"{key}={value}", "--json"])
    try:
      actual = json.loads(out)["results"][0]["actual"]
    except (ValueError, KeyError, IndexError):
      actual = None
    tally.check(f"2: --expect {key}={value} on q8_1: exit 1, its actual names Q8_1",
                rc == 1 and actual is not None and "Q8_1" in actual and not err, f"{rc} {out!r} {err!r}")
  rc, out, err = run([QUANTS, "--all", "--expect", "ndim=1"])
  tally.check("2: --all --expect ndim=1: exit "
              "1 (some are 2-d), not trouble", rc == 1 and "q8_1" not in out, f"{rc} {out[-300:]!r} {err!r}")
  trouble("2: --assert on q8_1: exit 2, "
          "its values cannot be decoded", [QUANTS, "--name", "q8_1", "--assert", "x.sum() > 0"], ["q8_1", "Q8_1"])


def fault3_assert_errors_named(tmp):
  """3. An error inside an --assert said "x.npy: expression: column 3: ..." (-e's or which
  --assert?). Now the --assert is named in place of "expression"."""
  import numpy as np
  x = os.path.join(tmp, "x.npy")
  np.save(x, np.arange(12, dtype=np.float32).reshape(3, 4))
  expr = "x.reshape(5,5).sum() > 0"
  trouble(f"3: -e 'x * 2' --assert {expr!r}: names the --assert", [x, "-e", "x * 2", "--assert", expr],
          [f"{x}: --assert '{expr}': column 3: ", "(3, 4)", "(5, 5)"])
  trouble("3: --assert 'x.shape': "
          "names the --assert", [x, "--assert", "x.shape"], [f"{x}: --assert 'x.shape': column 1: ", "tuple"])
  trouble("3: the second of two "
          "--assert is the one named", [x, "--assert", "x.sum() > 0", "--assert", "x.T.reshape(7)"],
          ["--assert 'x.T.reshape(7)': column "])
  trouble("3: -e errors stay as they were", [x, "-e", "x.reshape(5,5)"], [f"{x}: expression: column 3: "])


def fault4_failed_unnamed(tmp):
  """4. --fail-on --json on a lone .npy gave fail_on.failed [""] while name was null: now null."""
  import numpy as np
  npy = os.path.join(tmp, "nan.npy")
  np.save(npy, np.array([1.0, np.nan], dtype=np.float32))
  for mode in (["--json"], ["--jsonl"]):
    rc, out, err = run([npy, "--fail-on", "nan"] + mode)
    try:
      doc = json.loads(out.splitlines()[0])
      got = (doc["name"], doc["fail_on"]["failed"])
    except (ValueError, KeyError, IndexError):
      got = None
    tally.check(f"4: {mode[0]}: name null "
                f"and fail_on.failed [null]", rc == 1 and got == (None, [None]), f"{rc} {out!r} {err!r}")
  rc, out, err = run([npy, "--all", "--fail-on", "nan", "--json"])
  try:
    doc = json.loads(out)
    got = (doc["tensors"][0]["name"], doc["fail_on"]["failed"])
  except (ValueError, KeyError, IndexError):
    got = None
  tally.check("4: --all --json (file_stats): the "
              "row's name and fail_on.failed both null", rc == 1 and got == (None, [None]), f"{rc} {out!r} {err!r}")


def fault5_skipped_rows_aligned():
  """5. In the --stats table, a skipped row (GGUF Q8_1) did not pad name, dtype and shape as the
  other rows do. Now its cells start where the header's do, its reason after the shape column."""
  rc, out, err = run([QUANTS, "--stats"])
  lines = [l for l in out.splitlines() if l and not l.startswith("total:")]
  head = lines[0]
  dtype_at, shape_at = head.index("dtype"), head.index("shape")
  shape_width = max(len(l[shape_at:].split("  ")[0]) for l in lines)
  problems = []
  for l in lines[1:]:
    name, dtype, shape = l[:dtype_at].rstrip(), l[dtype_at:shape_at].rstrip(), l[shape_at:].split("  ")[0]
    if not name or " " in name or not dtype or " " in dtype or not shape.startswith("("):
      problems.append(l)
  skipped = [l for l in lines if "skipped:" in l]
  problems += [l for l in skipped if l.index("skipped:") != shape_at + shape_width + 2]
  tally.check("5: --stats on quants.gguf: every row's name, dtype and shape in the header's columns, one skipped row",
              rc == 0 and len(skipped) == 1 and not problems, f"{rc} {problems!r}")


def main():
  with tempfile.TemporaryDirectory() as tmp:
    fault1_plot_paths_meet(tmp)
    fault2_expect_undecodable()
    fault3_assert_errors_named(tmp)
    fault4_failed_unnamed(tmp)
  fault5_skipped_rows_aligned()
  return tally.summary()


if __name__ == "__main__":
  sys.exit(main())
