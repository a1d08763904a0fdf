"""The tool's side of scripts/diff-tinygrad.py and the documented kinds of remaining difference
(docs/parity.md): running tensor-inspect on a case, comparing its answer with tinygrad's bit for bit, and
putting each disagreement in the first documented kind whose test it passes.
"""
import json, math, re, subprocess


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
  if isinstance(a, list) and isinstance(b, list):
    return len(a) == len(b) and all(same_but_zero_sign(x, y) for x, y in zip(a, b))
  if isinstance(a, dict) and isinstance(b, dict): return float.fromhex(a["f"]) == float.fromhex(b["f"])
  return same(a, b)

TOOL = {"bin": "build/tensor-inspect"}

def receivers(expr, method):
  """the text of each receiver `R` of `R.method(` in expr (the generator's expressions are fully parenthesized)"""
  out, i = [], expr.find("." + method + "(")
  while i >= 0:
    j = i
    if expr[j - 1] in ")]":
      depth = 0
      while j > 0:
        j -= 1
        if expr[j] in ")]": depth += 1
        elif expr[j] in "([": depth -= 1
        if depth == 0:
          # a call or subscript: keep going left over the callee / subscripted expression
          if j > 0 and (expr[j - 1].isalnum() or expr[j - 1] in "._)]"):
            if expr[j - 1] in ")]": continue
            while j > 0 and (expr[j - 1].isalnum() or expr[j - 1] in "._"): j -= 1
            if j > 0 and expr[j - 1] in ")]": continue
          break
    else:
      while j > 0 and (expr[j - 1].isalnum() or expr[j - 1] == "_"): j -= 1
    out.append(expr[j:i])
    i = expr.find("." + method + "(", i + 1)
  return out

def tool_says_true(case, expr):
  r = run_tool(TOOL["bin"], {**case, "expr": expr})
  return r["ok"] and r["result"]["tolist"] is True

def arg_over_nan(case):
  """whether an argmax/argmin of the case reduces a tensor holding a nan (as the tool computes it)"""
  return any(
      tool_says_true(case, f"({r}).isnan().any()") for m in ("argmax", "argmin") for r in receivers(case["expr"], m))

def pow_operands(expr):
  """(base text, exponent text) of each `(A ** B)` in expr (the generator parenthesizes every binary op)"""
  out, i = [], expr.find(" ** ")
  while i >= 0:
    depth, j = 0, i
    while j > 0:
      j -= 1
      if expr[j] in ")]": depth += 1
      elif expr[j] in "([":
        if depth == 0: break
        depth -= 1
    depth, k = 0, i + 4
    while k < len(expr):
      if expr[k] in "([": depth += 1
      elif expr[k] in ")]":
        if depth == 0: break
        depth -= 1
      k += 1
    out.append((expr[j + 1:i], expr[i + 4:k]))
    i = expr.find(" ** ", i + 1)
  return out

def int_operand(case, text):
  """whether an operand is an int or bool: a Python int/bool literal, or an int or bool tensor as the tool types it"""
  if re.fullmatch(r"-?\d+|True|False", text.strip()): return True
  if re.fullmatch(r"-?[\d.e+-]+|float\('-?(nan|inf)'\)", text.strip()): return False
  r = run_tool(TOOL["bin"], {**case, "expr": text})
  return r["ok"] and r["result"]["dtype"] in ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                                              "uint64")

def int_pow(case):
  return any(int_operand(case, a) and int_operand(case, b) for a, b in pow_operands(case["expr"]))

INT_BITS = {
    "int8": (-2**7, 2**7 - 1),
    "uint8": (0, 2**8 - 1),
    "int16": (-2**15, 2**15 - 1),
    "uint16": (0, 2**16 - 1),
    "int32": (-2**31, 2**31 - 1),
    "uint32": (0, 2**32 - 1),
    "int64": (-2**63, 2**63 - 1),
    "uint64": (0, 2**64 - 1)
}

def divisor_out_of_range(case):
  """an int // or % by a Python int the case's int dtype cannot hold (uint8 x // 300, uint32 x % -128)"""
  lo, hi = INT_BITS.get(case["dtype"] or "int32", (None, None))
  if lo is None: return False
  return any(not lo <= int(m) <= hi for m in re.findall(r"(?://|%) \(?(-?\d+)\)?(?![\d.e])", case["expr"]))

MANT = {"float64": 52, "float32": 23, "float16": 10, "bfloat16": 7, "fp8e4m3": 3, "fp8e5m2": 2}

def within_ulps(a, b, mant, n=4):
  """every element equal, or both finite floats at most n units in the last place of the dtype apart"""
  if isinstance(a, list) and isinstance(b, list):
    return len(a) == len(b) and all(within_ulps(x, y, mant, n) for x, y in zip(a, b))
  if isinstance(a, dict) and isinstance(b, dict):
    x, y = float.fromhex(a["f"]), float.fromhex(b["f"])
    if x == y: return True
    return abs(x - y) <= n * 2.0 ** (math.frexp(max(abs(x), abs(y)))[1] - 1 - mant)
  return same(a, b)

def last_bits(c, n, a, b):
  r = a["result"]
  return n == "value" and r["dtype"] in MANT and within_ulps(r["tolist"], b["result"]["tolist"], MANT[r["dtype"]])

def result_size(r):
  """the number of elements of an answer"""
  n = 1
  for d in r["result"]["shape"]: n *= d
  return n

def against_own_cast(expr):
  """whether an operand of a binary op is the other operand cast: `A op A.cast(dtypes.X)`"""
  for op in (" // ", " / ", " % ", " - ", " + ", " * ", " == ", " < ", " <= ", " != "):
    i = expr.find(op)
    while i >= 0:
      depth, j = 0, i
      while j > 0:  # the left operand: back to its opening parenthesis
        j -= 1
        if expr[j] in ")]": depth += 1
        elif expr[j] in "([":
          if depth == 0: break
          depth -= 1
      left = expr[j + 1:i]
      if left and expr.startswith(left + ".cast(dtypes.", i + len(op)): return True
      i = expr.find(op, i + 1)
  return False

def answers_a_length(c, a):
  """whether every element of tinygrad's int answer is the length of one axis of the case's input (an argmax that
  found no element equal to the max answers n - 0)"""
  shape, v = [], eval(c["input"], {"__builtins__": {}, "float": float})
  while isinstance(v, list):
    shape.append(len(v))
    v = v[0] if v else None
  flat, todo = [], [a["result"]["tolist"]]
  while todo:
    e = todo.pop()
    if isinstance(e, list): todo.extend(e)
    else: flat.append(e)
  return bool(flat) and all(type(e) is int for e in flat) and len(set(flat)) == 1 and flat[0] in shape

# The documented kinds of remaining difference (docs/parity.md): each
# disagreement is put in the first kind whose test it passes, else "undocumented: ...".
DOCUMENTED = [
    ("tinygrad's own C kernel does not compile (clang's CalledProcessError; a 0-d constant is realized through "
     "the CPU compiler under DEV=PYTHON too): its renderer bit-casts a bfloat16 through a 4-byte float, or writes "
     "an integer literal beyond 64 bits ('integer literal is too large')",
     lambda c, n, a, b: n == "tinygrad-raises" and a["error"].startswith("CalledProcessError")
     and "clang" in a["error"]),
    ("DEV=PYTHON fails or differs where tinygrad's compiled CPU backend gives the tool's answer (int ** int, matmul)",
     lambda c, n, a, b: n == "python-backend"),
    ("DEV=PYTHON raises on a float16 kernel whose value folds to a constant (its fold meets a vectorized CONST: "
     "'float() argument must be ... not list'); the compiled CPU backend answers as the tool",
     lambda c, n, a, b: n == "tinygrad-raises" and b["ok"] and "not 'list'" in a["error"] and
     (c["dtype"] == "float16" or "float16" in c["expr"])),
    ("int ** int of two tensors taken by an int op the tool does not follow (a reduction, tinygrad's folds over "
     "constants, a bool power stored): DEV=PYTHON answers, the tool refuses",
     lambda c, n, a, b: n == "tool-refuses" and "no integer power" in b["error"]),
    ("nan or inf reaching an int cast only tinygrad's graph has (a cast pushed into a float power's wheres): "
     "DEV=PYTHON raises",
     lambda c, n, a, b: not a["ok"] and "cannot convert float" in a["error"]),
    ("DEV=PYTHON fails on an int result it computed as a Python float (int ** int tensor)",
     lambda c, n, a, b: not a["ok"] and ("invalid type for format" in a["error"] or "struct.error" in a["error"] or
                                         "unsupported operand type(s)" in a["error"])),
    ("tinygrad fails inside its own lowering of an int ** (its verifier rejects the graph, an assertion, a hang)",
     lambda c, n, a, b: n == "tinygrad-raises" and b["ok"] and any(t.startswith("pow_") for t in c["tags"]) and
     a["error"].startswith(
         ("RuntimeError: UOp verification failed", "AssertionError", "TimeoutError", "IndexError: shape mismatch"))),
    ("int ** int beyond what the tool follows: int ops on xpow's float32, a constant base's float taken by a cast",
     lambda c, n, a, b: (n in ("value", "tinygrad-raises") and b["ok"] or
                         n == "tool-refuses" and "cannot convert float" in b["error"]) and int_pow(c)),
    ("DEV=PYTHON's Python arithmetic overflows where a kernel gives inf (OverflowError: a float ** or an int "
     "too large for a float)",
     lambda c, n, a, b: n == "tinygrad-raises" and b["ok"] and a["error"].startswith("OverflowError")),
    ("a divisor tinygrad's optimizer makes 0 in a small kernel it upcasts (a pad region): "
     "its rewrite raises",
     lambda c, n, a, b: n == "tinygrad-raises" and b["ok"] and a["error"].startswith("ZeroDivisionError")),
    ("a bitwise op on floats: refused at once; tinygrad raises only when a kernel runs, so not for an empty tensor",
     lambda c, n, a, b: n == "tool-refuses" and "unsupported operand dtype for" in b["error"] and a["result"]["shape"
                                                                                                             ] == [0]),
    ("sign of a zero: symbolic's x*0 -> 0 (a fresh +0.0) where a small kernel tinygrad upcasts makes a pad or tril "
     "region a constant 0, and a -0.0 pad value's tanh folded on the constant",
     lambda c, n, a, b: n == "value" and same_but_zero_sign(a["result"]["tolist"], b["result"]["tolist"])),
    ("a 0-d constant: tinygrad's own folds the tool does not make "
     "(x == x of nan, transcendentals, >64-bit ints, contiguous() of a constant)",
     lambda c, n, a, b: not c["input"].startswith("[") and "constructor" not in c["tags"]),
    ("argmax/argmin over a nan: which max tinygrad's optimized reduce kernel compares against",
     lambda c, n, a, b: n == "value" and any(t in ("argmax", "argmin") for t in c["tags"]) and arg_over_nan(c)),
    ("int // or % by a Python int outside the dtype: a comparison tinygrad folds from the exact bounds "
     "(uint32 (x % -5) < 1 is True, bounds [-4, 0])",
     lambda c, n, a, b: n == "value" and divisor_out_of_range(c)),
    ("the last bits of a float (<= 4 ulp): rewrites of tinygrad's graph "
     "(unrolled reduce order past 32 elements, a sum over a cat of different pieces, where kernels split after a "
     "reduction, constants folded in double; lanes of a small upcast kernel are followed for one dim)",
     last_bits),
    ("argmax/argmin of an fp8 tensor: in its fused kernel tinygrad finds no element equal to the max "
     "(it answers the length), though x == x.max() alone finds one",
     lambda c, n, a, b: n == "value" and (c["dtype"] or "").startswith("fp8") and
     any(t in ("argmax", "argmin") for t in c["tags"])),
    ("argmax/argmin of an unsigned negation (x * -1, bounds [-max, 0] where the values wrap): in its fused kernel "
     "tinygrad finds no element equal to the max over 4 elements or more (it answers the length)",
     lambda c, n, a, b: n == "value" and (c["dtype"] or "").startswith("uint") and "neg" in c["tags"] and
     any(t in ("argmax", "argmin") for t in c["tags"]) and answers_a_length(c, a)),
    ("a pad value: tinygrad keeps the exact Python scalar in the pad region, and the ops on the padded tensor "
     "fold on it; the tool follows it over 7 elements or fewer; left: larger kernels, reductions, fp8",
     lambda c, n, a, b: n in ("value", "tool-refuses") and ".pad(" in c["expr"] and "value=" in c["expr"]),
    ("a small kernel tinygrad's optimizer upcasts: each element's index is a constant, so x.flip(0) at the middle "
     "of an odd axis is x itself and x // x, x / x, x - x fold there (followed, but not past a reduce or a flatten)",
     lambda c, n, a, b: n == "value" and ".flip(" in c["expr"] and a["ok"] and result_size(a) <= 8),
    ("a tensor against its own cast (A op A.cast(d)): tinygrad's rewrites see one value on both sides "
     "(cast folding, bounds) and fold A op A (x/x -> 1, x//x -> 1, x%x -> 0, x-x -> 0)",
     lambda c, n, a, b: n in ("value", "tool-refuses") and against_own_cast(c["expr"])),
]

def kind_of(case, nature, tg, tool):
  for name, test in DOCUMENTED:
    try:
      if test(case, nature, tg, tool): return name
    except Exception: pass
  return "undocumented: " + nature + ":" + "+".join(case["tags"])
