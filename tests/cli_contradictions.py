#!/usr/bin/python3
"""Options that ask for two different things at once are a usage error naming both.

    /usr/bin/python3 tests/cli_contradictions.py path/to/tensor-inspect

Before, one of them silently won (`--all --name w` showed w alone, `--stats --expect ...` ran
no check and exited 0, `--json --jsonl` wrote lines, `--graph` with --header, --stats or a
check printed no graph). Each pair, in both orders, on a file of
several tensors, a one-tensor .npy and (where the options apply) a literal, must exit 2 with
stdout empty and one stderr line naming both options (a JSON error object with --json or
--jsonl); each option alone must still run (exit 0), so the refusal is of the pair only.
Closes with `N passed, M failed`.
"""
import json, os, subprocess, sys

import tally
from tally import check

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANY = os.path.join(ROOT, "samples", "mixed.safetensors")
ONE = os.path.join(ROOT, "samples", "weights_f32.npy")

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
  (["--stats"], ["--expect", "dtype=float32"], [ONE, "[1.5]"]),
  (["--fail-on", "nan"], ["--assert", "(x.abs() >= 0).all()"], [ONE]),
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
      check(f"{args[1:]} on {os.path.basename(inp)}: exit 2, stdout empty, one line naming {a} and {b}",
            rc == 2 and out == "" and len(lines) == 1 and a in text and b in text, (rc, out[:200], err))

# Each option alone still runs: the refusal is of the pair.
for args in ([MANY, "--all"], [MANY, "--name", "weight"], [MANY, "--json"], [MANY, "--all", "--jsonl"], [MANY, "--list"], [MANY, "--meta"],
             [ONE, "--header"], [ONE, "--stats"], [ONE, "--fail-on", "nan"], [ONE, "--expect", "dtype=float32"],
             [ONE, "--assert", "(x.abs() >= 0).all()"], [MANY, "--list", "--json"], [MANY, "--name", "weight", "--stats"],
             [ONE, "--graph"], [MANY, "--name", "weight", "--graph"]):
  rc, out, err = run(args)
  check(f"{args[1:]} alone: exit 0 with output", rc == 0 and out, (rc, err))

sys.exit(tally.summary())
