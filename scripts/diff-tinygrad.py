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
import argparse, collections, concurrent.futures, json, math, os, queue, random, subprocess, sys, threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tinygrad_cases import ArithmeticGen, Gen  # noqa: E402
from tinygrad_kinds import TOOL, compare, describe, kind_of, run_tool, DOCUMENTED  # noqa: E402


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
      # realized first, so the values read are those stored in the fp8 buffer: a cast fused into t's
      # kernel would read its last op's value before the store rounds it to fp8
      tl = t.realize().cast(dtypes.float32).data().tolist() if 0 not in t.shape else []
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
    name = type(ex).__name__
    out = {"ok": False, "error": (name + ": " + str(ex)).splitlines()[0][:200] if str(ex) else name}
  finally:
    signal.alarm(0)
  sys.stdout.write(json.dumps(out) + "\n"); sys.stdout.flush()
'''

class Tinygrad:
  def __init__(self, src, dev="PYTHON", cache=None):
    self.src, self.dev, self.cache = src, dev, cache
    self.p = None

  def start(self):
    env = dict(os.environ, DEV=self.dev, PYTHONPATH=self.src)
    env.pop("DEBUG", None)
    self.p = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True, env=env, cwd=self.src, bufsize=1)

  def run(self, case):
    if self.cache is not None: return self.cache.get(self.dev, case, self.run_worker)
    return self.run_worker(case)

  def run_worker(self, case):
    if self.p is None or self.p.poll() is not None: self.start()
    try:
      self.p.stdin.write(json.dumps(case) + "\n"); self.p.stdin.flush()
      line = self.p.stdout.readline()
    except BrokenPipeError: line = ""
    if not line:
      self.p = None
      return {"ok": False, "error": "tinygrad worker died"}
    return json.loads(line)

class Cache:
  """tinygrad's answers by (backend, input, dtype, expr), kept as JSON lines in a file: they depend only on the
  tinygrad tree, so a rerun after a change to the tool needs only the tool (delete the file for another tree)."""
  def __init__(self, path):
    self.path, self.answers, self.lock = path, {}, threading.Lock()
    if os.path.exists(path):
      with open(path) as f:
        for line in f:
          try: e = json.loads(line)
          except ValueError: continue  # a line cut short by an interrupted run
          self.answers[tuple(e["key"])] = e["answer"]
    self.out = open(path, "a")

  def get(self, dev, case, compute):
    key = (dev, case["input"], case["dtype"], case["expr"])
    with self.lock:
      if key in self.answers: return self.answers[key]
    a = compute(case)
    if a.get("error") != "tinygrad worker died":
      with self.lock:
        self.answers[key] = a
        self.out.write(json.dumps({"key": list(key), "answer": a}) + "\n"); self.out.flush()
    return a

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
      case = {
          "id": c["id"],
          "category": c["id"].split("/")[0],
          "input": c["input"],
          "dtype": c["dtype"],
          "expr": c["expr"],
          "expect": expect
      }
      if c.get("note"): case["note"] = c["note"]
      out.write(json.dumps(case) + "\n")
      print(c["id"], json.dumps(expect)[:150])

def main():
  ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
  ap.add_argument("--bin", default="build/tensor-inspect")
  ap.add_argument("--tinygrad", default=os.environ.get("TINYGRAD_SRC"), help="tinygrad source tree (TINYGRAD_SRC)")
  ap.add_argument("--cases", type=int, default=1000)
  ap.add_argument("--seed", type=int, default=1)
  ap.add_argument("--grammar", choices=["ops", "arithmetic"], default="ops",
                  help="ops: one to four documented operations on a literal (the measured one); arithmetic: chains of"
                  " + - * / with Python scalars and products added to reductions, on float tensors")
  ap.add_argument("--jobs", type=int, default=2, help="tool processes at once")
  ap.add_argument("--workers", type=int, default=2, help="tinygrad worker processes")
  ap.add_argument("--no-cpu-check", dest="cpu_check", action="store_false",
                  help="do not rerun disagreements under DEV=CPU (needs clang) to tell DEV=PYTHON's own answers apart")
  ap.add_argument("--quiet", action="store_true", help="only the table and the last line")
  ap.add_argument("--only", help="run only cases whose expression contains this text")
  ap.add_argument("--offset",
                  type=int,
                  default=0,
                  help="skip the first cases of the seed "
                  "(run a long measurement in chunks)")
  ap.add_argument("--cache",
                  help="keep tinygrad's answers in this JSON-lines file "
                  "and reuse them (they do not depend on the tool)")
  ap.add_argument("--dump", help="write every case with both answers as JSON lines to this file")
  ap.add_argument("--record", nargs=2, metavar=("CASES_IN", "CASES_OUT"),
                  help="write tinygrad's answers for the listed cases (id, input, dtype, expr) as conformance cases")
  args = ap.parse_args()
  TOOL["bin"] = args.bin
  if not args.tinygrad: sys.exit("diff-tinygrad: give tinygrad's source tree in TINYGRAD_SRC or --tinygrad")
  if sys.version_info < (3, 12): sys.exit("diff-tinygrad: needs Python >= 3.12 (tinygrad's float16 memoryview)")
  if args.record: return record(Tinygrad(args.tinygrad), Tinygrad(args.tinygrad, "CPU"), *args.record)
  gen = (ArithmeticGen if args.grammar == "arithmetic" else Gen)(random.Random(args.seed))
  cases = [gen.case() for _ in range(args.offset + args.cases)][args.offset:]
  cache = Cache(args.cache) if args.cache else None
  if args.only: cases = [c for c in cases if args.only in c["expr"]]
  # Worker w takes cases w, w + W, ... in order, each answer queued as it comes, so results (and --dump)
  # stream in case order; the cases never depend on the worker count.
  workers = [Tinygrad(args.tinygrad, cache=cache) for _ in range(args.workers)]
  queues = [queue.Queue() for _ in range(args.workers)]
  def tinygrad_share(w):
    for c in cases[w::args.workers]:
      queues[w].put(workers[w].run({"input": c["input"], "dtype": c["dtype"], "expr": c["expr"]}))
  tg_pool = concurrent.futures.ThreadPoolExecutor(args.workers)
  for w in range(args.workers): tg_pool.submit(tinygrad_share, w)
  pool = concurrent.futures.ThreadPoolExecutor(args.jobs)
  futures = [pool.submit(run_tool, args.bin, c) for c in cases]
  kinds, agreed, disagreed = collections.Counter(), 0, 0
  dump = open(args.dump, "w") if args.dump else None
  cpu = Tinygrad(args.tinygrad, "CPU", cache) if args.cpu_check else None
  for i, (c, f) in enumerate(zip(cases, futures)):
    a = queues[i % args.workers].get()
    b = f.result()
    if (i + 1) % 500 == 0:
      print(f"[{args.offset + i + 1} cases: {agreed} "
            f"agreed, {disagreed} disagreed]", file=sys.stderr, flush=True)
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
  if cpu_side:
    print(f"({agreed + cpu_side} agree with tinygrad counting the {cpu_side} "
          f"where the tool gives the compiled CPU backend's answer)")
  return 0 if disagreed == 0 else 1

if __name__ == "__main__":
  sys.exit(main())
