#!/usr/bin/env python3
"""tests/conformance.py — the project's own runner of the conformance cases
(tests/conformance/cases.jsonl, kept in step with ../shared/conformance by
scripts/sync-conformance.sh).

Each case names an input literal, a dtype, an optional expression over x, and what
tinygrad's Tensor.data() returns for it (computed by tinygrad and CPython, not by us).
The tool runs once in text mode and once with --json; a case passes when both agree
with the expectation:
  * text: the lines `format: shape: itemsize: nbytes: tolist:` hold Python's repr
    exactly (other lines may come too);
  * JSON: the keys format shape itemsize nbytes ndim tolist dtype, non-finite floats
    as "nan"/"inf"/"-inf" (or NaN/Infinity), integers exact;
  * "approx": floats within a relative tolerance of the dtype's precision (float64: 4 ulp);
  * "error": exit status 2, one message on stderr, nothing on stdout;
  * "strict_error" (no struct format): additionally --strict exits 2 with stdout empty;
  * a signal, an exit status over 2 or a run over --timeout seconds always fails.

    tests/conformance.py --bin build/tensor-inspect [--cases FILE] [--jobs N] [--filter S]
                         [--summary-only] [--timeout S]
Prints failures, then `N passed, M failed`; exit status 0 only when none failed.
"""
import argparse, concurrent.futures, json, math, os, re, struct, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
RTOL = {"float32": 2.0**-23 * 8, "float16": 2.0**-9, "bfloat16": 2.0**-6, "fp8e4m3": 2.0**-2, "fp8e5m2": 2.0**-1}
NONFINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "NaN": math.nan, "Infinity": math.inf,
             "-Infinity": -math.inf, "-0.0": -0.0}


class Failure(Exception):
  pass


def expected_values(v):
  """The case file's tolist: non-finite floats and -0.0 spelled as strings."""
  if isinstance(v, list): return [expected_values(x) for x in v]
  if isinstance(v, str): return NONFINITE[v]
  return v


def actual_json_values(v):
  if isinstance(v, list): return [actual_json_values(x) for x in v]
  if isinstance(v, str):
    if v in ("nan", "inf", "-inf"): return NONFINITE[v]
    raise Failure(f"string {v!r} in tolist")
  return v


TOKEN = re.compile(r"\s*(\[|\]|,|True|False|-?inf|nan|-?\d+\.\d*(?:e[-+]?\d+)?|-?\d+e[-+]?\d+|-?\d+)")


def python_repr_values(text):
  """Parses the repr of a tolist() value: nested lists of ints, floats and bools."""
  pos, stack, root = 0, [], None
  def add(v):
    nonlocal root
    if stack: stack[-1].append(v)
    elif root is None: root = v
    else: raise Failure(f"tolist text has more than one value: {text[:60]!r}")
  while pos < len(text):
    m = TOKEN.match(text, pos)
    if not m: raise Failure(f"tolist text does not parse at char {pos}: {text[pos:pos + 30]!r}")
    tok, pos = m.group(1), m.end()
    if tok == "[": stack.append([])
    elif tok == "]":
      if not stack: raise Failure("unbalanced ] in tolist text")
      add(stack.pop())
    elif tok == ",": continue
    elif tok in ("True", "False"): add(tok == "True")
    elif tok in ("inf", "-inf", "nan"): add(NONFINITE[tok])
    elif re.fullmatch(r"-?\d+", tok): add(int(tok))
    else: add(float(tok))
  if stack or root is None: raise Failure("incomplete tolist text")
  return root


def ordered(x):
  i = struct.unpack("<q", struct.pack("<d", x))[0]
  return i if i >= 0 else -(i & 0x7FFFFFFFFFFFFFFF)


def same_value(want, got, approx_dtype, where):
  if isinstance(want, list):
    if not isinstance(got, list) or len(got) != len(want):
      raise Failure(f"{where}: expected a list of {len(want)}, got {str(got)[:60]}")
    for i, (w, g) in enumerate(zip(want, got)): same_value(w, g, approx_dtype, f"{where}[{i}]")
    return
  if isinstance(want, bool) or isinstance(got, bool):
    if type(want) is not type(got) or want != got: raise Failure(f"{where}: expected {want!r}, got {got!r}")
    return
  if isinstance(want, int):
    if not isinstance(got, int) or got != want: raise Failure(f"{where}: expected {want!r}, got {got!r}")
    return
  if not isinstance(got, (int, float)): raise Failure(f"{where}: expected a float {want!r}, got {got!r}")
  got = float(got)
  if math.isnan(want) or math.isnan(got):
    if not (math.isnan(want) and math.isnan(got)): raise Failure(f"{where}: expected {want!r}, got {got!r}")
    return
  if approx_dtype and not (math.isinf(want) or math.isinf(got)):
    if approx_dtype == "float64": ok = abs(ordered(want) - ordered(got)) <= 4 or abs(want - got) <= 2.0 ** -50
    else:
      tol = RTOL.get(approx_dtype, 1e-6)
      ok = abs(want - got) <= tol * max(abs(want), abs(got), 1.0)
    if not ok: raise Failure(f"{where}: expected about {want!r} ({approx_dtype}), got {got!r}")
    return
  if want != got or math.copysign(1, want) != math.copysign(1, got):
    raise Failure(f"{where}: expected {want!r}, got {got!r}")


def argv_of(binary, case, *extra):
  a = [binary]
  if case["dtype"] is not None: a += ["--dtype", case["dtype"]]
  if case["expr"] is not None: a += ["-e", case["expr"]]
  a += list(extra)
  if case["input"] is not None: a += ["--", case["input"]] if case["input"].startswith("-") else [case["input"]]
  return a


def run(argv, timeout):
  try:
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
  except subprocess.TimeoutExpired:
    raise Failure(f"timed out after {timeout} s: {argv[1:]}")
  if p.returncode < 0 or p.returncode > 2:
    raise Failure(f"exit status {p.returncode} (a crash): {argv[1:]}")
  return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def expect_trouble(argv, timeout, what):
  rc, out, err = run(argv, timeout)
  if rc != 2: raise Failure(f"{what}: expected exit status 2, got {rc}")
  if out: raise Failure(f"{what}: stdout not empty on trouble: {out[:60]!r}")
  if not err.strip(): raise Failure(f"{what}: no message on stderr")


def check_text(e, out):
  lines = {}
  for line in out.splitlines():
    key, sep, value = line.partition(": ")
    if sep and key in ("format", "shape", "itemsize", "nbytes", "tolist"):
      if key in lines: raise Failure(f"text: line {key!r} twice")
      lines[key] = value
  want = {"format": "None" if e["format"] is None else e["format"], "shape": e["text_shape"],
          "itemsize": str(e["itemsize"]), "nbytes": str(e["nbytes"])}
  for k, v in want.items():
    if lines.get(k) != v: raise Failure(f"text: {k}: expected {v!r}, got {lines.get(k)!r}")
  if "tolist" not in lines: raise Failure("text: no tolist line")
  if e.get("approx"):
    same_value(expected_values(e["tolist"]), python_repr_values(lines["tolist"]), e["dtype"], "text tolist")
  elif lines["tolist"] != e["text_tolist"]:
    got = lines["tolist"]
    i = next((i for i, (a, b) in enumerate(zip(got, e["text_tolist"])) if a != b), min(len(got), len(e["text_tolist"])))
    raise Failure(f"text: tolist differs at char {i}: expected ...{e['text_tolist'][max(0, i - 10):i + 20]!r}, "
                  f"got ...{got[max(0, i - 10):i + 20]!r}")


def check_json(e, out):
  try:
    obj = json.loads(out, parse_constant=lambda c: NONFINITE[c])
  except ValueError as ex:
    raise Failure(f"json: stdout is not JSON ({ex})")
  if not isinstance(obj, dict): raise Failure("json: not an object")
  for k in ("format", "shape", "itemsize", "nbytes", "ndim", "dtype"):
    if k not in obj: raise Failure(f"json: no key {k!r}")
    if obj[k] != e[k] or type(obj[k]) is not type(e[k]):
      raise Failure(f"json: {k}: expected {e[k]!r}, got {obj[k]!r}")
  if "tolist" not in obj: raise Failure("json: no key 'tolist'")
  got = actual_json_values(obj["tolist"])
  # JSON has no int/float distinction for integral floats written as 1.0 vs 1: accept an int for a float
  same_value(expected_values(e["tolist"]), got, e["dtype"] if e.get("approx") else None, "json tolist")


def judge(binary, case, timeout):
  e = case["expect"]
  try:
    if "error" in e:
      expect_trouble(argv_of(binary, case), timeout, "text")
      expect_trouble(argv_of(binary, case, "--json"), timeout, "json")
      return None
    rc, out, err = run(argv_of(binary, case), timeout)
    if rc != 0: raise Failure(f"text: exit status {rc}: {err.strip()[:120]}")
    check_text(e, out)
    rc, out, err = run(argv_of(binary, case, "--json"), timeout)
    if rc != 0: raise Failure(f"json: exit status {rc}: {err.strip()[:120]}")
    check_json(e, out)
    if e.get("strict_error"): expect_trouble(argv_of(binary, case, "--strict"), timeout, "--strict")
    return None
  except Failure as f:
    note = f" (note: {case['note']})" if case.get("note") else ""
    return f"FAIL {case['id']}: {f}{note}"


def main():
  ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
  ap.add_argument("--bin", required=True)
  ap.add_argument("--cases", default=os.path.join(HERE, "conformance", "cases.jsonl"))
  ap.add_argument("--jobs", type=int, default=2)
  ap.add_argument("--timeout", type=float, default=20)
  ap.add_argument("--filter", default="")
  ap.add_argument("--summary-only", action="store_true")
  a = ap.parse_args()
  with open(a.cases) as f:
    cases = [json.loads(l) for l in f if l.strip()]
  ids = [c["id"] for c in cases]
  if len(set(ids)) != len(ids): sys.exit(f"{a.cases}: duplicate case ids")
  cases = [c for c in cases if a.filter in c["id"]]
  with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
    results = list(ex.map(lambda c: judge(a.bin, c, a.timeout), cases))
  failures = [r for r in results if r]
  if not a.summary_only or len(failures) <= 20:
    for r in failures: print(r)
  print(f"{len(cases) - len(failures)} passed, {len(failures)} failed")
  return 1 if failures else 0


if __name__ == "__main__":
  sys.exit(main())
