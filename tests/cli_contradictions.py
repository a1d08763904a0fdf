#!/usr/bin/python3
"""Options that ask for two different things at once are a usage error naming both, and so is
an option that changes nothing without another.

    /usr/bin/python3 tests/cli_contradictions.py path/to/tensor-inspect

Before, one of them silently won (`--all --name w` showed w alone, `--stats --expect ...` ran
no check and exited 0, `--json --jsonl` wrote lines, `--graph` with --header, --stats or a
check printed no graph; --view-as, --full, --threshold and --edgeitems with --stats, --list or a
check, --plot-kind without --plot, --list -e, diff --exact --rtol: ignored). Each pair, in both orders, on a file of
several tensors, a one-tensor .npy and (where the options apply) a literal, must exit 2 with
stdout empty and one stderr line naming both options (a JSON error object with --json or
--jsonl); each option alone must still run (exit 0), so the refusal is of the pair only.
Closes with `N passed, M failed`.
"""
import json, os, subprocess, sys, tempfile

import tally
from tally import check

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANY = os.path.join(ROOT, "samples", "mixed.safetensors")
ONE = os.path.join(ROOT, "samples", "weights_f32.npy")
RAW = os.path.join(ROOT, "samples", "raw_f32.bin")
PNG = os.path.join(tempfile.mkdtemp(prefix="ti_contradict_"), "h.png")  # never written: refused first

tally.passes = False



def run(args):
  p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=60)
  return p.returncode, p.stdout, p.stderr


def option_name(opt):
  return opt[0]


# (first, second, inputs): each a list of arguments whose first item is the option's name.
PAIRS = [
  (["--all"], ["--name", "weight"], [MANY, ONE]),
  (["--json"], ["--jsonl"], [MANY, ONE, "[1, 2]"]),
  (["--list"], ["--name", "weight"], [MANY, ONE]),
  (["--list"], ["--all"], [MANY, ONE]),
  (["--meta"], ["--name", "weight"], [MANY]),
  (["--meta"], ["--all"], [MANY]),
  (["--list"], ["--jsonl"], [MANY, ONE]),
  (["--header"], ["--stats"], [ONE, "[1, 2]"]),
  (["--header"], ["--fail-on", "nan"], [ONE]),
  # --stats/--fail-on with --expect/--assert compose in one run since issue 23 (tests/checks_compose.py).
  (["--list"], ["--expect", "ndim=2"], [MANY, ONE]),
  # --graph shows what printing a tensor computes; before, these ignored it silently.
  (["--graph"], ["--header"], [ONE, "[1, 2]"]),
  (["--graph"], ["--stats"], [ONE, MANY, "[1.5]"]),
  (["--graph"], ["--hist"], [ONE]),
  (["--graph"], ["--fail-on", "nan"], [ONE, MANY]),
  (["--graph"], ["--list"], [MANY, ONE]),
  (["--graph"], ["--meta"], [MANY]),
  (["--graph"], ["--expect", "ndim=2"], [ONE]),
  (["--graph"], ["--assert", "(x.abs() >= 0).all()"], [ONE]),
  # A new user's findings: each second option was silently ignored.
  (["--view-as", "B"], ["--stats"], [ONE, "[1.5]"]),
  (["--view-as", "B"], ["--hist"], [ONE]),
  (["--view-as", "B"], ["--plot", PNG], [ONE]),
  (["--view-as", "B"], ["--fail-on", "nan"], [ONE, MANY]),
  (["--view-as", "B"], ["--list"], [MANY, ONE]),
  (["--view-as", "B"], ["--meta"], [MANY]),
  (["--view-as", "B"], ["--expect", "ndim=2"], [ONE]),
  (["--full"], ["--stats"], [ONE, MANY, "[1.5]"]),
  (["--threshold", "5"], ["--stats"], [ONE, MANY]),
  (["--edgeitems", "1"], ["--hist"], [ONE]),
  (["--full"], ["--fail-on", "nan"], [ONE]),
  (["--full"], ["--list"], [MANY, ONE]),
  (["--threshold", "5"], ["--meta"], [MANY]),
  (["--edgeitems", "1"], ["--list"], [MANY]),
  (["--full"], ["--expect", "ndim=2"], [ONE]),
  (["--threshold", "5"], ["--assert", "(x.abs() >= 0).all()"], [ONE]),
  (["--full"], ["--header"], [ONE, "[1, 2]"]),
  (["--list"], ["-e", "x + 1"], [MANY, ONE]),
  (["--meta"], ["-e", "x + 1"], [MANY]),
  (["--list"], ["--meta"], [MANY, ONE]),
  (["--list"], ["--stats"], [MANY, ONE]),
  (["--meta"], ["--fail-on", "nan"], [MANY]),
  (["--list"], ["--header"], [MANY, ONE]),
  (["--json-nonfinite", "python", "--json"], ["--stats"], [ONE, "[1.5]"]),
  (["--json-nonfinite", "python", "--json"], ["--list"], [MANY]),
  (["--json-nonfinite", "python", "--json"], ["--expect", "ndim=2"], [ONE]),
  (["--json-nonfinite", "python", "--json"], ["--header"], [ONE]),
  (["--dtype", "int8"], ["--raw", "float32"], [RAW]),
  (["--list0"], ["--list"], [MANY]),
  (["--list0"], ["--json"], [MANY]),
  (["--list0"], ["--name", "weight"], [MANY]),
  (["--list0"], ["-e", "x + 1"], [MANY]),
]

for first, second, inputs in PAIRS:
  for inp in inputs:
    for args in ([inp, *first, *second], [inp, *second, *first]):
      rc, out, err = run(args)
      lines = err.strip().splitlines()
      text = lines[0] if lines else ""
      if "--json" in args or "--jsonl" in args:
        try:
          text = json.loads(text)["error"]["message"]
        except (ValueError, KeyError, TypeError):
          text = ""
      a, b = option_name(first), option_name(second)
      check(
          f"{args[1:]} on {os.path.basename(inp)}: exit 2, stdout empty, one line naming {a} and {b}", rc == 2 and
          out == "" and len(lines) == 1 and (f"{a} and {b} contradict" in text or f"{b} and {a} contradict" in text),
          (rc, out[:200], err))

# diff: --exact compares bits, a tolerance would be ignored.
for tol in (["--rtol", "0.5"], ["--atol", "1"]):
  for args in (["diff", ONE, ONE, "--exact", *tol], ["diff", ONE, ONE, *tol,
                                                     "--exact"], ["diff", ONE, ONE, "--exact", *tol, "--json"]):
    rc, out, err = run(args)
    text = json.loads(err)["error"]["message"] if "--json" in args and rc == 2 else err
    check(f"{args[3:]}: exit 2 naming --exact and {tol[0]}", rc == 2 and out == "" and len(err.splitlines()) == 1 and
          f"--exact and {tol[0]} contradict" in text, (rc, out[:200], err))

# An option that only qualifies another changes nothing alone: refused, naming both.
ALONE = [
  ([MANY, "--name", "weight", "--plot-kind", "heatmap"], "--plot-kind", "--plot"),
  ([ONE, "--plot-kind", "hist"], "--plot-kind", "--plot"),
  ([ONE, "--json-nonfinite", "python"], "--json-nonfinite", "--json"),
  ([RAW, "--offset", "0"], "--offset", "--raw"),
  ([RAW, "--byte-order", "little"], "--byte-order", "--raw"),
  (["--dtype", "int8", "-e", "Tensor.arange(3)"], "--dtype", "-e"),
  ([ONE, "--default-float", "float64"], "--default-float", ONE),
  ([MANY, "--default-int", "int64", "--stats"], "--default-int", MANY),
  ([MANY, "--default-int", "int64", "--list"], "--default-int", MANY),
]
for args, a, b in ALONE:
  rc, out, err = run(args)
  check(f"{args}: exit 2, stdout empty, "
        f"one line naming {a} and {b}", rc == 2 and out == "" and len(err.splitlines()) == 1 and a in err and b in err,
        (rc, out[:200], err))
with open(os.path.join(ROOT, "samples", "int8.npy"), "rb") as f:
  p = subprocess.run([BIN, "-", "--dtype", "float32"], input=f.read(), capture_output=True, timeout=60)
check("a .npy on stdin with --dtype: exit "
      "2 naming --dtype (it types literals)", p.returncode == 2 and p.stdout == b"" and b"--dtype" in p.stderr and
      len(p.stderr.splitlines()) == 1, (p.returncode, p.stderr))

# Each option alone still runs: the refusal is of the pair.
for args in ([MANY, "--all"], [MANY, "--name", "weight"], [MANY, "--json"], [MANY, "--all",
                                                                             "--jsonl"], [MANY,
                                                                                          "--list"], [MANY, "--meta"],
             [ONE, "--header"], [ONE, "--stats"], [ONE, "--fail-on",
                                                   "nan"], [ONE, "--expect",
                                                            "dtype=float32"], [ONE, "--assert", "(x.abs() >= 0).all()"],
             [ONE, "--stats", "--expect",
              "dtype=float32"], [ONE, "--fail-on", "nan", "--assert",
                                 "(x.abs() >= 0).all()"], [MANY, "--list",
                                                           "--json"], [MANY, "--name", "weight", "--stats"],
             [ONE, "--graph"], [MANY, "--name", "weight",
                                "--graph"], [ONE, "--view-as",
                                             "B"], [ONE, "--full"], [ONE, "--threshold", "5", "--edgeitems",
                                                                     "1"], [MANY, "--list0"],
             [MANY, "--name", "weight", "--plot", PNG, "--plot-kind",
              "hist"], [ONE, "--json", "--json-nonfinite",
                        "python"], [RAW, "--raw", "float32", "--offset", "0", "--byte-order",
                                    "little"], ["--dtype", "int8",
                                                "[1, 2]"], [ONE, "--default-float", "float64", "-e", "x * 1.5"],
             ["[1.5]", "--default-float", "float64"], [ONE, "--default-int", "int64", "--assert",
                                                       "x.sum() > -1e9"], ["diff", ONE, ONE, "--rtol",
                                                                           "0.5"], ["diff", ONE, ONE, "--exact"]):
  rc, out, err = run(args)
  check(f"{args[1:]} alone: exit 0 with output", rc == 0 and out, (rc, err))

sys.exit(tally.summary())
