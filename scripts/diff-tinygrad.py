#!/usr/bin/env python3
"""Differential test of tensor-inspect against tinygrad itself, on random expressions.

    TINYGRAD_SRC=/path/to/tinygrad PYENV_VERSION=3.12.1 \\
      python scripts/diff-tinygrad.py --bin build/tensor-inspect --cases 20000 --seed 1

Each case is a literal, a dtype and one to four operations drawn from those the README documents
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

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "bfloat16", "float32", "float64"]
RARE_DTYPES = ["fp8e4m3", "fp8e5m2"]
INT_RANGE = {"int8": (-2**7, 2**7 - 1), "uint8": (0, 2**8 - 1), "int16": (-2**15, 2**15 - 1),
             "uint16": (0, 2**16 - 1), "int32": (-2**31, 2**31 - 1), "uint32": (0, 2**32 - 1),
             "int64": (-2**63, 2**63 - 1), "uint64": (0, 2**64 - 1)}
SIZE = {"bool": 1, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4, "int64": 8,
        "uint64": 8, "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "fp8e4m3": 1, "fp8e5m2": 1}
FLOATS = ["0.0", "-0.0", "1.0", "-1.0", "0.5", "0.1", "2.5", "-3.75", "1e-3", "100.0", "65504.0",
          "65520.0", "1e10", "3.4e38", "1e-40", "float('nan')", "float('inf')", "float('-inf')", "7.0", "-0.5"]
SMALL_INTS = [0, 1, -1, 2, 3, 7, -5, 100]

# ------------------------------------------------------------------------------------------------ generator

class Gen:
  def __init__(self, rng): self.r = rng

  def int_value(self, dt):
    r = self.r
    lo, hi = INT_RANGE.get(dt, (-2**31, 2**31 - 1))
    pick = r.random()
    if pick < 0.45: return r.choice(SMALL_INTS)
    if pick < 0.85: return r.choice([lo, hi, lo + 1, hi - 1, hi + 1, lo - 1, 127, 128, 255, 256, -128, -129,
                                     32767, 65535, 2**31 - 1, 2**31])
    if pick < 0.99: return r.randint(-300, 300)
    return r.choice([2**64, -2**63 - 1, 2**70])

  def value(self, dt, kind):
    r = self.r
    if kind == "bool": return r.choice(["True", "False"])
    if kind == "int": return str(self.int_value(dt))
    return r.choice(FLOATS) if r.random() < 0.8 else repr(round(r.uniform(-10, 10), r.choice([0, 1, 3])))

  def literal(self):
    """(literal text, dtype or None, shape)"""
    r = self.r
    dt = r.choice(DTYPES + [None, None]) if r.random() < 0.97 else r.choice(RARE_DTYPES)
    if dt is None: kind = r.choice(["int", "int", "float", "float", "bool"])
    elif dt == "bool": kind = r.choice(["bool", "bool", "int"])
    elif dt in INT_RANGE: kind = "int" if r.random() < 0.9 else "bool"
    else: kind = "float" if r.random() < 0.8 else "int"
    shape = r.choice([(), (), (0,), (1,), (2,), (3,), (4,), (5,), (2, 3), (3, 2), (2, 2), (2, 0), (1, 3)])
    def build(sh):
      if not sh: return self.value(dt, kind)
      return "[" + ", ".join(build(sh[1:]) for _ in range(sh[0])) + "]"
    return build(shape), dt, shape

  def scalar(self, dt):
    r = self.r
    pick = r.random()
    if pick < 0.45: return str(r.choice(SMALL_INTS + [300, -128, 256, 2]))
    if pick < 0.6: return self.value(dt, "int") if dt in INT_RANGE else str(r.choice(SMALL_INTS))
    if pick < 0.9: return r.choice(["0.5", "2.5", "-0.0", "0.0", "1.5", "-2.0", "3.0", "float('nan')", "float('inf')"])
    return r.choice(["True", "False"])

  def op(self, e, shape, dt):
    """one random operation on expression e of the given shape: (text, new shape, tag)"""
    r = self.r
    nd = len(shape)
    numel = math.prod(shape)
    c = r.random()
    if c < 0.22:
      m = r.choice(["abs", "neg", "relu", "exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "tan",
                    "tanh", "sigmoid", "floor", "ceil", "trunc", "round", "isnan", "isinf", "isfinite",
                    "float", "half", "int", "double", "bool", "contiguous", "logical_not", "square", "reciprocal"])
      return f"{e}.{m}()", shape, m
    if c < 0.42:
      o = r.choice(["+", "-", "*", "/", "//", "%", "**", "<", "<=", ">", "==", "!=", "&", "|", "^"])
      s = self.scalar(dt)
      tag = {"+": "add", "-": "sub", "*": "mul", "/": "div", "//": "idiv", "%": "mod", "**": "pow", "<": "cmp",
             "<=": "cmp", ">": "cmp", "==": "cmp", "!=": "cmp", "&": "bitwise", "|": "bitwise", "^": "bitwise"}[o]
      if r.random() < 0.3: return f"({s} {o} {e})", shape, tag + "_rscalar"
      return f"({e} {o} {s})", shape, tag + "_scalar"
    if c < 0.52:
      o = r.choice(["+", "-", "*", "/", "//", "%", "maximum", "minimum", "<", "==", "**"])
      other = r.choice([e, f"{e}.flip(0)" if nd else e, f"{e}.cast(dtypes.{r.choice(DTYPES)})"])
      tag = {"maximum": "maximum", "minimum": "minimum"}.get(o, {"+": "add", "-": "sub", "*": "mul", "/": "div",
             "//": "idiv", "%": "mod", "<": "cmp", "==": "cmp", "**": "pow"}.get(o)) + "_tensor"
      if o in ("maximum", "minimum"): return f"{e}.{o}({other})", shape, tag
      return f"({e} {o} {other})", shape, tag
    if c < 0.57:
      t = r.choice(DTYPES + RARE_DTYPES)
      if r.random() < 0.3:
        same = [d for d in DTYPES if SIZE[d] == SIZE.get(dt or "int32", 4) and d != "bool"]
        if same: return f"{e}.bitcast(dtypes.{r.choice(same)})", shape, "bitcast"
      return f"{e}.cast(dtypes.{t})", shape, "cast"
    if c < 0.75:
      m = r.choice(["sum", "prod", "max", "min", "mean", "var", "std", "any", "all", "argmax", "argmin", "softmax",
                    "log_softmax", "cumsum"])
      args, newshape = [], ()
      axis = None
      if nd and r.random() < 0.6:
        axis = r.choice(range(-nd, nd))
        args.append(f"axis={axis}" if m != "cumsum" or r.random() < 0.5 else str(axis))
      keep = r.random() < 0.25 and m not in ("softmax", "log_softmax", "cumsum")
      if keep: args.append("keepdim=True")
      if m in ("var", "std") and r.random() < 0.3: args.append(f"correction={r.choice([0, 1, 2])}")
      if m in ("softmax", "log_softmax", "cumsum"): newshape = shape
      elif axis is None: newshape = (1,) * nd if keep and m not in ("argmax", "argmin") else ()
      else:
        a = axis % nd
        newshape = shape[:a] + ((1,) if keep else ()) + shape[a + 1:]
      return f"{e}.{m}({', '.join(args)})", newshape, m
    if c < 0.9:
      k = r.random()
      if k < 0.15: return f"{e}.reshape(-1)" if numel else f"{e}.reshape({numel})", (numel,), "reshape"
      if k < 0.25 and nd == 2: return f"{e}.T", (shape[1], shape[0]), "T"
      if k < 0.35 and nd: return f"{e}.flip(0)", shape, "flip"
      if k < 0.5 and nd:
        v = r.choice(["0", "-0.0", "1.5", "-1", "300", "float('nan')", "True"])
        return (f"{e}.pad({tuple((1, 0) for _ in range(nd))!r}, value={v})",
                tuple(s + 1 for s in shape), "pad")
      if k < 0.6 and nd: return f"{e}[::-1]", shape, "getitem"
      if k < 0.68 and nd and shape[0]: return f"{e}[0]", shape[1:], "getitem"
      if k < 0.75: return f"{e}.unsqueeze(0)", (1,) + shape, "unsqueeze"
      if k < 0.82 and nd: return f"{e}.cat({e})", (shape[0] * 2,) + shape[1:], "cat"
      if k < 0.88: return f"Tensor.stack({e}, {e})", (2,) + shape, "stack"
      if k < 0.94 and nd == 2: return f"{e}.{r.choice(['tril', 'triu'])}()", shape, "tril"
      return f"{e}.expand({(2,) + shape!r})" if not nd else f"{e}.unsqueeze(0).expand({(2,) + shape!r})", \
          (2,) + shape, "expand"
    if c < 0.95:
      lo, hi = r.choice([(0, 1), (-1, 1), (0.5, 2.5), (-0.0, 0.0), (0, 300)])
      return f"{e}.clip({lo}, {hi})", shape, "clip"
    if c < 0.98:
      cond = r.choice([f"({e} > 0)", e, f"{e}.isnan()"])
      a, b = self.scalar(dt), r.choice([self.scalar(dt), e])
      return f"{cond}.where({e}, {b})" if r.random() < 0.5 else f"{cond}.where({a}, {b})", shape, "where"
    if nd == 2: return f"({e} @ {e}.T)", (shape[0], shape[0]), "matmul"
    if nd == 1: return f"{e}.dot({e})", (), "matmul"
    return f"({e} * 2)", shape, "mul_scalar"

  def case(self):
    lit, dt, shape = self.literal()
    e, tags = "x", []
    cur_dt = dt
    for _ in range(self.r.choice([1, 1, 2, 2, 3, 4])):
      e, shape, tag = self.op(e, shape, cur_dt)
      tags.append(tag)
      if math.prod(shape) > 4096: break
    if self.r.random() < 0.03:
      e = self.r.choice(["Tensor.arange(5)", "Tensor.arange(0, 1, 0.1)", "Tensor.ones(2, 3)",
                         "Tensor.full((2,), 300, dtype=dtypes.uint8)", "Tensor.eye(3)", "Tensor.linspace(0, 1, 5)",
                         "Tensor.zeros(2, dtype=dtypes.float16)", "Tensor.arange(10, 0, -3)"]) + \
          self.r.choice(["", " * x.sum()", ".sum()", ".cast(dtypes.float16)", " / 3"])
      tags = ["constructor"]
    return {"input": lit, "dtype": dt, "expr": e, "tags": tags}

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

# The documented kinds of remaining difference (README, "Conformance with tinygrad"): each
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
  ("a 0-d literal is a constant tinygrad folds in exact Python arithmetic, unwrapped",
   lambda c, n, a, b: not c["input"].startswith("[") and "constructor" not in c["tags"]),
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
  or the compiled CPU backend's for a case marked "backend": "CPU" (the README says where the tool follows it)."""
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
  return 0 if disagreed == 0 else 1

if __name__ == "__main__":
  sys.exit(main())
