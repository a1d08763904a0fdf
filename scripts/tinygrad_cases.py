"""The random cases of scripts/diff-tinygrad.py: a literal near its dtype's edges (empty and 0-d
shapes, nan/inf, signed zeros), a dtype, and one to four of the operations docs/expressions.md documents.
Deterministic: the same random.Random seed gives the same cases.
"""
import math

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


# ------------------------------------------------------------------------------------------------ arithmetic

SCALARS = ["0.1", "0.2", "0.3", "1.7", "3.3", "-0.7", "1e-3", "7.0", "2.5", "0.5", "1e10", "-2.0", "3", "-5", "100"]
ARITH_INPUTS = ["[1.0, 0.7, 2.3]", "[1e-3, 3.7, 1e8, -0.3]", "[[0.1, -2.5], [7.7, 1e-5]]", "[3.14159, -1.5, 65504.0]",
                "[0.3333, 12.1, -7.9]"]
ARITH_DTYPES = ["float32", "float16", "bfloat16", "float64", None]
REDUCED = ["x.sum()", "x.sum(keepdim=True)", "x.max()", "x.mean()", "x.mean(axis=-1, keepdim=True)", "x.sum(axis=0)",
           "x.exp().sum().log()", "x.std()", "x.flip(0)", "x.T.T", "x.square()", "x.sqrt()", "x"]


class ArithmeticGen:
  """`--grammar arithmetic`: chains of + - * / with Python scalars and the tensor itself, and products
  added to reductions, on float tensors: where tinygrad's rewrites regroup constants (uop/symbolic.py)
  and fuse a multiply and an add (MULACC), which the ops grammar seldom reaches."""

  def __init__(self, rng): self.r = rng

  def chain(self):
    e = "x"
    for _ in range(self.r.randint(2, 4)):
      op, c = self.r.choice("+*-/"), self.r.choice(SCALARS + ["x", "x"])
      e = f"({e} {op} {c})" if self.r.random() < 0.7 else f"({c} {op} {e})"
    return e

  def muladd(self):
    a, b, c = self.r.choice(REDUCED + SCALARS), self.r.choice(REDUCED + ["x"]), self.r.choice(REDUCED + SCALARS + ["x"])
    form = self.r.choice(["({a} * {b}) + {c}", "{c} + ({a} * {b})", "({a} * {b}) - {c}", "{c} - ({a} * {b})",
                          "(({a} * {b}) + {c}).sum()", "({a} * {b} + {c}) * {a} + {b}", "(x * {a}).mean()"])
    return form.format(a=a, b=b, c=c)

  def case(self):
    kind = self.r.choice(["chain", "muladd"])
    e = self.chain() if kind == "chain" else self.muladd()
    return {"input": self.r.choice(ARITH_INPUTS), "dtype": self.r.choice(ARITH_DTYPES), "expr": e,
            "tags": ["arithmetic_" + kind]}
