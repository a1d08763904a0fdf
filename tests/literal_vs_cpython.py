#!/usr/bin/python3
"""Number spellings in a literal (and in -e) against CPython's own grammar.

Usage: /usr/bin/python3 tests/literal_vs_cpython.py BUILD/tensor-inspect

A user found `[1__0]`, `[1_]`, `[1._5]`, `[1_.5]`, `[0x1__2]` and `[1e1__0]` accepted, which
ast.literal_eval rejects ("invalid decimal literal"): Python allows an underscore only
between two digits, or once after a base prefix (0x_1f). Here about a thousand spellings
are made from parts (integer parts, fractions, exponents, base prefixes, with underscores
in every place) and each `[s]` is given to the tool and to ast.literal_eval:
  - CPython accepts it: the tool prints the same value (an int as int32, a float as
    float32, NumPy's rounding of CPython's float), and `-e s` takes it too;
  - CPython refuses it: the tool exits 2 with one line, and where CPython names the number
    ("invalid decimal literal", "invalid hexadecimal literal", "invalid digit '2' in binary
    literal", "leading zeros ...") the tool's message says the same words; `-e s` refuses it.
Complex numbers (1j) are refused by design and left out. Closes with `N passed, M failed`.
"""
import ast
import itertools
import json
import math
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally

tally.passes = False  # a thousand cases: print failures, then the count
BIN = os.path.abspath(sys.argv[1])

INTS = ["", "1", "10", "1_0", "1__0", "1_", "_1", "0", "00", "0_0", "0_1", "012", "1_2_3", "9_9"]
FRACS = ["", ".", ".5", "._5", ".5_", ".5_5", ".5__5", "._"]
EXPS = ["", "e5", "e_5", "e5_", "e1_0", "e1__0", "e+5", "e-_5", "E+1_0", "e", "e+", "E0_0"]
PREFIXED = [p + body for p in ("0x", "0X", "0o", "0O", "0b", "0B")
            for body in ("1", "_1", "__1", "1_", "1_0", "1__0", "_1_1", "f", "F_f", "g", "2", "8", "", "_", "1g", "12")]
OTHERS = ["0_x1", "1_e5", "1e", ".", "._5", "1.e5", "1..5", "0x1.5", "1_.", "5_.", "1__", "00_0", "0_00", "1e1_0_0"]

PYTHON_WORDS = ("invalid decimal literal", "invalid hexadecimal literal", "invalid octal literal",
                "invalid binary literal", "invalid digit",
                "leading zeros in decimal integer literals are not permitted")


def spellings():
  seen = set()
  for i, f, e in itertools.product(INTS, FRACS, EXPS):
    s = i + f + e
    if s and s not in seen:
      seen.add(s)
      yield s
  for s in PREFIXED + OTHERS:
    if s not in seen:
      seen.add(s)
      yield s


def cpython(text):
  """('ok', value) or ('error', message) as ast.literal_eval has it."""
  try:
    return "ok", ast.literal_eval(text)
  except SyntaxError as e:
    return "error", e.msg
  except ValueError as e:  # a name (e5, _1): malformed node
    return "error", str(e)


def tool(args):
  p = subprocess.run([BIN, *args], capture_output=True, timeout=30)
  return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def main():
  cases = 0
  for s in spellings():
    kind, want = cpython(f"[{s}]")
    if kind == "ok" and isinstance(want[0], complex):
      continue
    cases += 1
    rc, out, err = tool(["--json", "--", f"[{s}]"])
    erc, eout, eerr = tool(["-e", s, "--json"])
    if kind == "ok":
      v = want[0]
      with np.errstate(over="ignore"):
        expect_dtype, expect = ("int32", v) if isinstance(v, int) else ("float32", float(np.float32(v)))
      if expect in (math.inf, -math.inf):
        expect = "inf" if expect > 0 else "-inf"  # strict JSON's spelling
      got = json.loads(out) if rc == 0 else None
      tally.check(f"[{s}] is {v!r} as CPython reads it", got is not None and got["dtype"] == expect_dtype and
                  got["tolist"] == [expect], f"{rc} {out[:120]!r} {err.strip()!r}")
      tally.check(f"-e {s} is accepted as CPython accepts it", erc == 0, f"{erc} {eerr.strip()!r}")
    else:
      # `_1.5__5` is a name to Python, which tokenizes the whole text first and names the
      # number after it; the tool stops at the name.
      said = next((w for w in PYTHON_WORDS if want.startswith(w)), None) if not s.startswith("_") else None
      ok = rc == 2 and not out and len(err.splitlines()) == 1 and (said is None or want.split(";")[0] in err)
      tally.check(f"[{s}] is refused as CPython refuses it ({want!r})", ok, f"{rc} {out[:80]!r} {err.strip()!r}")
      tally.check(f"-e {s} is refused as "
                  f"CPython refuses it", erc == 2 and not eout, f"{erc} {eout[:80]!r} {eerr.strip()!r}")
  tally.check(f"{cases} spellings compared", cases > 500, str(cases))
  return tally.summary()


if __name__ == "__main__":
  sys.exit(main())
