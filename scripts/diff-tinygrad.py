#!/usr/bin/env python3
"""Differential test of tensor-inspect against tinygrad itself, on random expressions.

    TINYGRAD_SRC=/path/to/tinygrad PYENV_VERSION=3.12.1 \\
      python scripts/diff-tinygrad.py --bin build/tensor-inspect --cases 20000 --seed 1

Each case is a literal, a dtype and one to four operations drawn from those docs/expressions.md documents
(literals near dtype edges, empty and 0-d shapes, nan/inf, signed zeros). tinygrad runs them all in
one worker process (`DEV=PYTHON`, Python >= 3.12, its source tree in TINYGRAD_SRC) that reads cases
from stdin; the tool runs once per case (`--json --json-nonfinite python`). Compared bit for bit:
format, shape, itemsize, nbytes, dtype and tolist; a refusal agrees with a refusal. Prints each
disagreement, a table by kind and `N agreed, M disagreed`. The same seed gives the same cases.
A developer's tool: CI has no tinygrad. `--record scripts/parity-cases.jsonl tests/parity/cases.jsonl`
writes the listed cases with tinygrad's answers in the conformance case format: the regression
cases the test `parity_cases` runs through tests/conformance.py.
"""
import argparse, collections, concurrent.futures, json, math, os, queue, random, struct, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tinygrad_cases import Gen  # noqa: E402


# ------------------------------------------------------------------------------------------------ tinygrad side

WORKER = r'''
import json, math, os, signal, sys
sys.setrecursionlimit(10000)
from tinygrad import Tensor, dtypes
from tinygrad.dtype import DType
names = ["bool","int8","uint8","int16","uint16","int32","uint32","int64","uint64","float16","bfloat16","float32",
         "float64","fp8e4m3","fp8e5m2"]
canon = {getattr(dtypes, n): n for n in names}
def strong(d):
  if d in dtypes.weaks: return dtypes.default_int if dtypes.is_int(d) else dtypes.default_float
  return d
def enc(v):
  if isinstance(v, list): return [enc(e) for e in v]
  if isinstance(v, float):
    if math.isnan(v): return "nan"
    if math.isinf(v): return "inf" if v > 0 else "-inf"
    return {"f": v.hex()}
  return v
def alarm(*a): raise TimeoutError("timeout")
signal.signal(signal.SIGALRM, alarm)
for line in sys.stdin:
  c = json.loads(line)
  signal.alarm(20)
  try:
    val = eval(c["input"], {"float": float})
    x = Tensor(val, dtype=getattr(dtypes, c["dtype"]) if c["dtype"] else None)
    t = eval(c["expr"], {"x": x, "Tensor": Tensor, "dtypes": dtypes, "float": float})
    if not isinstance(t, Tensor): raise TypeError("not a Tensor")
    d = strong(t.dtype)
    if d.fmt is None:
      tl = t.cast(dtypes.float32).data().tolist() if 0 not in t.shape else []
      res = {"format": None, "shape": list(t.shape) if 0 not in t.shape else [0], "itemsize": d.itemsize,
             "nbytes": d.itemsize * math.prod(t.shape), "tolist": enc(tl)}
    else:
      mv = t.data()
      res = {"format": mv.format, "shape": list(mv.shape), "itemsize": mv.itemsize, "nbytes": mv.nbytes,
             "tolist": enc(mv.tolist())}
    res["dtype"] = canon.get(d, str(d))
    res["tensor_shape"] = list(t.shape)
    res["text_shape"] = repr(tuple(res["shape"]))
    res["text_tolist"] = repr(tl if d.fmt is None else mv.tolist())
    out = {"ok": True, "result": res}
  except BaseException as ex:
    if isinstance(ex, KeyboardInterrupt): raise
    out = {"ok": False, "error": (type(ex).__name__ + ": " + str(ex)).splitlines()[0][:200] if str(ex) else type(ex).__name__}
  finally:
    signal.alarm(0)
  sys.stdout.write(json.dumps(out) + "\n"); sys.stdout.flush()
'''

class Tinygrad:
  def __init__(self, src, dev="PYTHON"):
    self.src, self.dev = src, dev
    self.p = None

  def start(self):
    env = dict(os.environ, DEV=self.dev, PYTHONPATH=self.src)
    env.pop("DEBUG", None)
    self.p = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, env=env, cwd=self.src, bufsize=1)

  def run(self, case):
    if self.p is None or self.p.poll() is not None: self.start()
    try:
      self.p.stdin.write(json.dumps(case) + "\n"); self.p.stdin.flush()
      line = self.p.stdout.readline()
    except BrokenPipeError: line = ""
    if not line:
      self.p = None
      return {"ok": False, "error": "tinygrad worker died"}
    return json.loads(line)

# ------------------------------------------------------------------------------------------------ tool side

def enc_tool(v):
  if isinstance(v, list): return [enc_tool(e) for e in v]
  if isinstance(v, float):
    if math.isnan(v): return "nan"
    if math.isinf(v): return "inf" if v > 0 else "-inf"
    return {"f": v.hex()}
  return v

def run_tool(binary, case):
  args = [binary, "--json", "--json-nonfinite", "python"]
  if case["dtype"]: args += ["--dtype", case["dtype"]]
  args += ["-e", case["expr"], "--", case["input"]]
  try:
    p = subprocess.run(args, capture_output=True, text=True, timeout=30)
  except subprocess.TimeoutExpired:
    return {"ok": False, "error": "tool timeout", "bad": True}
  if p.returncode != 0:
    bad = p.returncode != 2 or p.stdout.strip() and json.loads(p.stdout).get("kind") != "error" \
          or len(p.stderr.strip().splitlines()) != 1
    return {"ok": False, "error": p.stderr.strip()[:200], "bad": bool(bad)}
  j = json.loads(p.stdout)
  res = {k: j[k] for k in ("format", "shape", "itemsize", "nbytes", "dtype")}
  res["tolist"] = enc_tool(j["tolist"])
  return {"ok": True, "result": res}

def same(a, b):
  """bit-for-bit equality of encoded values; a bool is not an int"""
  if type(a) is not type(b): return False
  if isinstance(a, list): return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
  return a == b

def compare(tg, tool):
  """None when they agree, else the nature of the disagreement"""
  if tool.get("bad"): return "tool-crash-or-bad-refusal"
  if not tg["ok"] and not tool["ok"]: return None
  if not tg["ok"]: return "tinygrad-raises"
  if not tool["ok"]: return "tool-refuses"
  a, b = tg["result"], tool["result"]
  for k in ("dtype", "format", "shape", "itemsize", "nbytes"):
    if a[k] != b[k]: return k
  return None if same(a["tolist"], b["tolist"]) else "value"

def show(v):
  if isinstance(v, list): return "[" + ", ".join(show(e) for e in v) + "]"
  if isinstance(v, dict): return repr(float.fromhex(v["f"]))
  return repr(v)

def describe(r):
  if not r["ok"]: return "error: " + r["error"]
  x = r["result"]
  return f"{x['dtype']} {x['shape']} {show(x['tolist'])}"[:300]

def same_but_zero_sign(a, b):
  if isinstance(a, list) and isinstance(b, list): return len(a) == len(b) and all(same_but_zero_sign(x, y) for x, y in zip(a, b))
  if isinstance(a, dict) and isinstance(b, dict): return float.fromhex(a["f"]) == float.fromhex(b["f"])
  return same(a, b)

# The documented kinds of remaining difference (docs/parity.md): each
# disagreement is put in the first kind whose test it passes, else "undocumented: ...".
DOCUMENTED = [
  ("DEV=PYTHON differs from tinygrad's compiled CPU backend, whose answer the tool gives",
   lambda c, n, a, b: n == "python-backend"),
  ("nan or inf cast to an int: DEV=PYTHON raises, compiled CPU gives INT_MIN",
   lambda c, n, a, b: not a["ok"] and "cannot convert float" in a["error"]),
  ("DEV=PYTHON fails on an int result it computed as a Python float (int ** int tensor)",
   lambda c, n, a, b: not a["ok"] and ("invalid type for format" in a["error"] or "struct.error" in a["error"]
                                       or "unsupported operand type(s)" in a["error"])),
  ("a bitwise op on floats: refused at once; tinygrad raises only when a kernel runs, so not for an empty tensor",
   lambda c, n, a, b: n == "tool-refuses" and "unsupported operand dtype for" in b["error"] and a["result"]["shape"] == [0]),
  ("sign of a zero: trunc/floor of -0.0 and -0.5 (Python's math.trunc), -0.0 constants",
   lambda c, n, a, b: n == "value" and same_but_zero_sign(a["result"]["tolist"], b["result"]["tolist"])),
  ("a 0-d constant: tinygrad's own folds the tool does not make (x == x of nan, transcendentals, bitcasts, >64-bit ints)",
   lambda c, n, a, b: not c["input"].startswith("[") and "constructor" not in c["tags"]),
  ("a bitwise op on floats over no elements, consumed by a reduction: tinygrad raises when the reduce kernel runs",
   lambda c, n, a, b: n == "tinygrad-raises" and "UOp verification failed" in a["error"] and b["ok"]
                      and any(t in ("bitwise_scalar", "bitwise_rscalar") for t in c["tags"])),
]

def kind_of(case, nature, tg, tool):
  for name, test in DOCUMENTED:
    try:
      if test(case, nature, tg, tool): return name
    except Exception: pass
  return "undocumented: " + nature + ":" + "+".join(case["tags"])

def decode_enc(v):
  """the worker's encoding -> the conformance case encoding ("nan", "inf", "-0.0", plain floats)"""
  if isinstance(v, list): return [decode_enc(e) for e in v]
  if isinstance(v, dict):
    f = float.fromhex(v["f"])
    return "-0.0" if f == 0 and math.copysign(1, f) < 0 else f
  return v

def record(tg, cpu, src, dst):
  """Runs each case of src (JSON lines: id, input, dtype, expr, note) through tinygrad and writes it with
  tinygrad's answer as `expect`, in the conformance case format (tests/conformance.py reads it): DEV=PYTHON's,
  or the compiled CPU backend's for a case marked "backend": "CPU" (docs/parity.md says where the tool follows it)."""
  with open(src) as f, open(dst, "w") as out:
    for line in f:
      if not line.strip(): continue
      c = json.loads(line)
      q = {"input": c["input"], "dtype": c["dtype"], "expr": c["expr"]}
      a = tg.run(q)
      a_cpu = cpu.run(q)
      if c.get("backend") == "CPU" and compare(a, {**a_cpu, "bad": False}) is not None:
        c["note"] = (c.get("note", "") + "; " if c.get("note") else "") + \
            "DEV=PYTHON gives " + describe(a) + "; this is the compiled CPU backend's answer"
        a = a_cpu
      if a["ok"]:
        r = a["result"]
        expect = {"format": r["format"], "shape": r["shape"], "itemsize": r["itemsize"], "nbytes": r["nbytes"],
                  "ndim": len(r["shape"]), "tolist": decode_enc(r["tolist"]), "text_tolist": r["text_tolist"],
                  "text_shape": r["text_shape"], "dtype": r["dtype"], "tensor_shape": r["tensor_shape"]}
      else:
        expect = {"error": a["error"]}
      case = {"id": c["id"], "category": c["id"].split("/")[0], "input": c["input"], "dtype": c["dtype"], "expr": c["expr"],
              "expect": expect}
      if c.get("note"): case["note"] = c["note"]
      out.write(json.dumps(case) + "\n")
      print(c["id"], json.dumps(expect)[:150])

def main():
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--bin", default="build/tensor-inspect")
  ap.add_argument("--tinygrad", default=os.environ.get("TINYGRAD_SRC"), help="tinygrad source tree (TINYGRAD_SRC)")
  ap.add_argument("--cases", type=int, default=1000)
  ap.add_argument("--seed", type=int, default=1)
  ap.add_argument("--jobs", type=int, default=2, help="tool processes at once")
  ap.add_argument("--workers", type=int, default=2, help="tinygrad worker processes")
  ap.add_argument("--no-cpu-check", dest="cpu_check", action="store_false",
                  help="do not rerun disagreements under DEV=CPU (needs clang) to tell DEV=PYTHON's own answers apart")
  ap.add_argument("--quiet", action="store_true", help="only the table and the last line")
  ap.add_argument("--only", help="run only cases whose expression contains this text")
  ap.add_argument("--dump", help="write every case with both answers as JSON lines to this file")
  ap.add_argument("--record", nargs=2, metavar=("CASES_IN", "CASES_OUT"),
                  help="write tinygrad's answers for the listed cases (id, input, dtype, expr) as conformance cases")
  args = ap.parse_args()
  if not args.tinygrad: sys.exit("diff-tinygrad: give tinygrad's source tree in TINYGRAD_SRC or --tinygrad")
  if sys.version_info < (3, 12): sys.exit("diff-tinygrad: needs Python >= 3.12 (tinygrad's float16 memoryview)")
  if args.record: return record(Tinygrad(args.tinygrad), Tinygrad(args.tinygrad, "CPU"), *args.record)
  gen = Gen(random.Random(args.seed))
  cases = [gen.case() for _ in range(args.cases)]
  if args.only: cases = [c for c in cases if args.only in c["expr"]]
  # Worker w takes cases w, w + W, ... in order, each answer queued as it comes, so results (and --dump)
  # stream in case order; the cases never depend on the worker count.
  workers = [Tinygrad(args.tinygrad) for _ in range(args.workers)]
  queues = [queue.Queue() for _ in range(args.workers)]
  def tinygrad_share(w):
    for c in cases[w::args.workers]: queues[w].put(workers[w].run({"input": c["input"], "dtype": c["dtype"], "expr": c["expr"]}))
  tg_pool = concurrent.futures.ThreadPoolExecutor(args.workers)
  for w in range(args.workers): tg_pool.submit(tinygrad_share, w)
  pool = concurrent.futures.ThreadPoolExecutor(args.jobs)
  futures = [pool.submit(run_tool, args.bin, c) for c in cases]
  kinds, agreed, disagreed = collections.Counter(), 0, 0
  dump = open(args.dump, "w") if args.dump else None
  cpu = Tinygrad(args.tinygrad, "CPU") if args.cpu_check else None
  for i, (c, f) in enumerate(zip(cases, futures)):
    a = queues[i % args.workers].get()
    b = f.result()
    if (i + 1) % 500 == 0: print(f"[{i + 1} cases: {agreed} agreed, {disagreed} disagreed]", file=sys.stderr, flush=True)
    nature = compare(a, b)
    if nature is not None and cpu is not None:
      # The tool follows tinygrad's compiled CPU backend where DEV=PYTHON differs from it.
      a_cpu = cpu.run({"input": c["input"], "dtype": c["dtype"], "expr": c["expr"]})
      if compare(a_cpu, b) is None: nature = "python-backend"
    if dump: dump.write(json.dumps({"case": c, "tinygrad": a, "tool": b, "nature": nature}) + "\n"); dump.flush()
    if nature is None:
      agreed += 1
      continue
    disagreed += 1
    k = kind_of(c, nature, a, b)
    kinds[k] += 1
    if not args.quiet:
      dt = f"--dtype {c['dtype']} " if c["dtype"] else ""
      print(f"[{k}] {dt}-e {c['expr']!r} -- {c['input']!r}\n    tinygrad: {describe(a)}\n    tool:     {describe(b)}",
            flush=True)
  print(f"\n{'kind':<60} cases")
  for k, n in kinds.most_common(): print(f"{k:<60} {n}")
  print(f"{agreed} agreed, {disagreed} disagreed")
  cpu_side = kinds.get(DOCUMENTED[0][0], 0)
  if cpu_side: print(f"({agreed + cpu_side} agree with tinygrad counting the {cpu_side} where the tool gives the compiled CPU backend's answer)")
  return 0 if disagreed == 0 else 1

if __name__ == "__main__":
  sys.exit(main())
