// tinygrad's pow, as its graph rewrite lowers Ops.POW before any backend sees it, so the
// roundings are the same on DEV=PYTHON and compiled backends:
//   x ** c, c a constant (uop/symbolic.py simplify_pow): c < 0 -> (1/x) ** -c; c == 0 -> 1;
//     c a half-integer -> x ** (c - 0.5) * sqrt(x); c an integer -> y * y (* x when odd),
//     y = x ** (c // 2); otherwise the general form;
//   c ** x, c > 0 a constant: c == 1 -> 1, else exp2(x * log2(c));
//   otherwise (codegen/decomp/transcendental.py xpow): exp2(log2(|b|) * e), nan for a negative
//     base and a non-integer exponent (but -inf), negated for an odd integer one, 1 for e == 0.
// Int results of a constant exponent keep the exact integer power, wrapped (Op::Pow); a constant
// base is exp2(x * log2(c)) in float32, cast to the int; an int power of two tensors is xpow in
// float32 where a cast or comparison takes it (cast_to, compare), directly or through elementwise int
// ops tinygrad retypes to that float (int_power_as_float), an int cast pushed into its wheres
// (int_power_as_int); refused where a kernel stores it (realize/schedule.cpp).
#include <cmath>
#include <limits>
#include <unordered_map>
#include <vector>

#include "internal.hpp"
#include "tensor/const_fold.hpp"

namespace tensor_inspect::tg {

using namespace detail;

namespace {

Tensor constant(const Tensor& like, double v) {
  return Tensor::full(like.shape(), Scalar::from_float(v), like.dtype());
}

Tensor times(const Tensor& a, const Tensor& b) { return folded_binary(Op::Mul, a, b); }

Tensor xpow(const Tensor& base, const Tensor& exponent) {
  const DType d = base.dtype();
  Tensor negative = cmp_lt(base, constant(base, 0.0));
  Tensor ret = times(where(negative, base.unary(Op::Neg), base).unary(Op::Log2), exponent).unary(Op::Exp2);
  Tensor non_int = cmp_ne(exponent, exponent.cast(DType::Int32).cast(d));
  Tensor magnitude = where(cmp_lt(exponent, constant(exponent, 0.0)), exponent.unary(Op::Neg), exponent);
  Tensor two = Tensor::full(base.shape(), Scalar::from_int(2), DType::Int32);
  Tensor is_odd = folded_binary(Op::Mod, magnitude.cast(DType::Int32), two).cast(DType::Bool);
  Tensor nan = constant(ret, std::numeric_limits<double>::quiet_NaN());
  Tensor not_minus_inf = cmp_ne(base, constant(base, -std::numeric_limits<double>::infinity()));
  Tensor neg_base = where(non_int, where(not_minus_inf, nan, ret), where(is_odd, ret.unary(Op::Neg), ret));
  return where(cmp_eq(exponent, constant(exponent, 0.0)), constant(ret, 1.0), where(negative, neg_base, ret));
}

// x ** c: simplify_pow, with Python's arithmetic on c.
Tensor pow_const(const Tensor& x, double c) {
  // The rewrite runs only when a kernel does: over no elements tinygrad answers.
  if ((std::isnan(c) || std::isinf(c)) && x.numel() == 0) return Tensor::binary(Op::Pow, x, constant(x, c));
  if (std::isnan(c) || std::isinf(c)) expr_error("x ** " + std::string(std::isnan(c) ? "nan" : "inf") +
                                                 ": tinygrad's rewrite takes int() of the exponent and raises");
  if (c < 0) return pow_const(x.unary(Op::Recip), -c);
  if (c == 0) return constant(x, 1.0);
  if (c - 0.5 == c) expr_error("x ** c with c of 2**52 or more: tinygrad's rewrite of it never ends and raises");
  if (std::trunc(c - 0.5) + 0.5 == c) return times(pow_const(x, c - 0.5), x.unary(Op::Sqrt));
  if (std::trunc(c) == c) {
    Tensor y = pow_const(x, std::floor(c / 2));
    Tensor r = times(y, y);
    return std::fmod(c, 2.0) == 1.0 ? times(r, x) : r;
  }
  return xpow(x, constant(x, c));
}

}  // namespace

namespace detail {

namespace {

using FloatMemo = std::unordered_map<const Node*, std::optional<Tensor>>;

std::optional<Tensor> as_float(const Tensor& t, FloatMemo& memo);

// An operand of an int op over the power: its float, or a constant as float32 (the CONST takes
// the op's new dtype), or nullopt (an int tensor: tinygrad's verifier rejects a float op of it).
std::optional<Tensor> float_operand(const NodePtr& src, FloatMemo& memo, bool& has_power) {
  const Tensor s(src);
  if (std::optional<Tensor> f = as_float(s, memo)) {
    has_power = true;
    return f;
  }
  if (const_fold::constant_of(s)) return s.cast(DType::Float32);
  return std::nullopt;
}

// The float32 an int op holds once tinygrad's rewrite replaces the int POW under it by xpow's
// float: UOp rebuilds re-derive each parent's dtype from its sources (uop/ops.py _rebuild_dtype,
// dtype_from_uop: a binary op promotes, WHERE takes its branches', NEG its source's), so NEG,
// ADD, SUB, MUL, MAX and WHERE over the power compute in float32 on DEV=PYTHON
// (runtime/ops_python.py exec_alu truncates to the float dtype) up to the cast or comparison
// that takes them. Others are not followed: an int min is `(t ^ k).max(x ^ k) ^ k` (mixin/
// elementwise.py minimum), whose XOR of a float, like a float op with an int tensor operand,
// fails tinygrad's verifier; abs, `//`, `%` likewise.
std::optional<Tensor> as_float_uncached(const Tensor& t, FloatMemo& memo) {
  // Movement ops, a pad's zeros among them: the region it adds is the float's zeros as well.
  std::vector<const Node*> moves;  // outermost first
  const Node* n = peel_moves(t, moves);
  if (const_fold::is_int_power_of_tensors(*n)) {
    const Tensor base = Tensor(n->src[0]).cast(DType::Float32), exponent = Tensor(n->src[1]).cast(DType::Float32);
    return moved_like(moves, xpow(base, exponent));
  }
  // A bool's + * max are OR and AND in tinygrad's kernel, which its verifier rejects on a float.
  if (is_float(n->dtype) || (n->dtype == DType::Bool && n->op != Op::Where)) return std::nullopt;
  bool has_power = false;
  std::optional<Tensor> r;
  switch (n->op) {
    case Op::Neg:
      if (std::optional<Tensor> a = as_float(Tensor(n->src[0]), memo)) r = a->unary(Op::Neg);
      break;
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Max: {
      std::optional<Tensor> a = float_operand(n->src[0], memo, has_power);
      if (!a) return std::nullopt;
      std::optional<Tensor> b = float_operand(n->src[1], memo, has_power);
      if (b && has_power) r = folded_binary(n->op, *a, *b);
      break;
    }
    case Op::Where: {
      std::optional<Tensor> a = float_operand(n->src[1], memo, has_power);
      if (!a) return std::nullopt;
      std::optional<Tensor> b = float_operand(n->src[2], memo, has_power);
      if (b && has_power) r = Tensor::where(Tensor(n->src[0]), *a, *b);
      break;
    }
    default: break;
  }
  if (!r) return std::nullopt;
  return moved_like(moves, *r);
}

std::optional<Tensor> as_float(const Tensor& t, FloatMemo& memo) {
  // A DAG can share a subgraph many times over: each node is walked once.
  if (auto it = memo.find(t.node().get()); it != memo.end()) return it->second;
  std::optional<Tensor> r = as_float_uncached(t, memo);
  memo.emplace(t.node().get(), r);
  return r;
}

}  // namespace

std::optional<Tensor> int_power_as_float(const Tensor& t) {
  FloatMemo memo;
  return as_float(t, memo);
}

namespace {

// xpow of the int base and exponent cast to `d`, an int, as tinygrad casts it: symbolic.py's
// "push cast to branches" moves the cast into both branches of each WHERE xpow builds, so each
// branch it reaches is cast for every element, selected or not (runtime/ops_python.py: int() of a
// nan or inf raises). Reached: 1 (x ** 0), the power exp2(log2|b| * e), nan for 0 ** 0 and inf
// where it overflows or for 0 ** -n; for a base that may be negative also its negation, and the
// nan of a non-integer exponent unless `e != e.cast(int32).cast(d)` folds, as it does when the
// exponent's bounds fit an int32 (symbolic.py's int cast-cast folding); a base of bounds >= 0 folds
// `base < 0` (transcendental.py xpow).
Tensor xpow_cast(const Tensor& base, const Tensor& exponent, DType d) {
  const Tensor b = base.cast(DType::Float32), e = exponent.cast(DType::Float32);
  Tensor negative = cmp_lt(b, constant(b, 0.0));
  Tensor ret = times(where(negative, b.unary(Op::Neg), b).unary(Op::Log2), e).unary(Op::Exp2);
  Tensor value = ret.cast(d);
  if (rewrite_bounds(base).lo < 0) {
    const RewriteBounds eb = rewrite_bounds(exponent);
    if ((eb.lo < std::numeric_limits<std::int32_t>::min() || eb.hi > std::numeric_limits<std::int32_t>::max()) &&
        b.numel() > 0)
      expr_error("cannot convert float NaN to integer: tinygrad pushes the int cast of x ** y into xpow's nan "
                 "branch (a non-integer exponent), which DEV=PYTHON casts for every element");
    Tensor magnitude = where(cmp_lt(e, constant(e, 0.0)), e.unary(Op::Neg), e);
    Tensor two = Tensor::full(b.shape(), Scalar::from_int(2), DType::Int32);
    Tensor is_odd = folded_binary(Op::Mod, magnitude.cast(DType::Int32), two).cast(DType::Bool);
    value = where(negative, where(is_odd, ret.unary(Op::Neg).cast(d), value), value);
  }
  return where(cmp_eq(e, constant(e, 0.0)), Tensor::full(b.shape(), Scalar::from_int(1), d), value);
}

// The cast pushed through the WHEREs over the power (the same rewrite), down to xpow's.
std::optional<Tensor> pushed_cast(const Tensor& t, DType d) {
  std::optional<Tensor> f = int_power_as_float(t);
  if (!f) return std::nullopt;
  std::vector<const Node*> moves;  // outermost first
  const Node* n = peel_moves(t, moves);
  if (const_fold::is_int_power_of_tensors(*n))
    return moved_like(moves, xpow_cast(Tensor(n->src[0]), Tensor(n->src[1]), d));
  if (n->op != Op::Where) return f->cast(d);
  const auto branch = [d](const NodePtr& src) {
    std::optional<Tensor> p = pushed_cast(Tensor(src), d);
    return p ? *p : Tensor(src).cast(d);  // a constant
  };
  return moved_like(moves, Tensor::where(Tensor(n->src[0]), branch(n->src[1]), branch(n->src[2])));
}

}  // namespace

std::optional<Tensor> int_power_as_int(const Tensor& t, DType d) { return pushed_cast(t, d); }

}  // namespace detail

Tensor pow(const Operand& a, const Operand& b) {
  // tinygrad's pow raises for a non-float result unless a Python exponent is an int >= 0
  // (the scalar it checks is the operand that is not the tensor, base or exponent).
  const DType d = least_upper_dtype(operand_dtype(a), operand_dtype(b));
  const Operand& scalar_side = std::holds_alternative<Scalar>(b) ? b : a;
  if (const Scalar* s = std::get_if<Scalar>(&scalar_side); s != nullptr && !is_float(d)) {
    bool non_negative_int =
        s->kind == DKind::Bool || s->kind == DKind::Unsigned || (s->kind == DKind::Signed && s->as_wide() >= 0);
    if (!non_negative_int)
      expr_error("base needs to be float (an int tensor to the power of a negative or float scalar)");
  }
  Tensor base = to_tensor(a, d), exponent = to_tensor(b, d);
  Shape s = broadcast_shape(base.shape(), exponent.shape());
  // Two constants: tinygrad folds Ops.POW with Python's pow before any rewrite lowers it
  // (uop/symbolic.py fold_const_alu, uop/ops.py safe_pow), so 127.0 ** 127.0 is C's pow and
  // 1.0 ** inf is 1.0. Not an int or bool tensor promoted to a weak float: its CAST to the weak
  // dtype is no value conversion tinygrad folds (only a concrete dtype's is), so simplify_pow
  // meets the POW first (uint8 125 ** inf raises there).
  const auto strong_non_float = [](const Operand& o) {
    const DType t = operand_dtype(o);
    return std::holds_alternative<Tensor>(o) && !is_weak(t) && !is_float(t);
  };
  const bool folds = !(d == DType::WeakFloat && (strong_non_float(a) || strong_non_float(b)));
  if (folds) {
    if (auto folded = const_fold::binary(Op::Pow, broadcast_to(base, s), broadcast_to(exponent, s))) return *folded;
  }
  if (!is_float(d)) {
    const Tensor e = broadcast_to(exponent, s);
    // A constant base c (a Python int, a 0-d constant) to a tensor exponent: symbolic rewrites
    // c ** x to exp2(x * log2(c)) for c > 0 (c itself for c == 1) and xpow lowers the others,
    // in float32, the float then cast to the int: 3 ** 5 is 242 in tinygrad (2 ** 7.9248... in
    // float32, truncated; DEV=PYTHON and DEV=CPU alike), 10 ** 7 is 9999997, 2 ** x exact.
    if (std::optional<Scalar> c = const_value(broadcast_to(base, s)); c && !const_value(e) && e.numel() > 0) {
      const double cv = c->as_double();
      if (cv == 1.0) return Tensor::full(s, Scalar::from_int(1), d);
      const Tensor ef = e.cast(DType::Float32);
      const Tensor f = cv > 0 ? exp2(mul(ef, Scalar::from_float(std::log2(cv))))
                              : xpow(Tensor::full(s, Scalar::from_float(cv), DType::Float32), ef);
      return cast_to(f, d);
    }
    return Tensor::binary(Op::Pow, broadcast_to(base, s), e);
  }
  if (const Scalar* c = std::get_if<Scalar>(&b); c != nullptr && !std::holds_alternative<Scalar>(a))
    return pow_const(broadcast_to(base, s), c->as_double());
  const Scalar* c = std::get_if<Scalar>(&a);
  if (c != nullptr && !std::holds_alternative<Scalar>(b) && c->as_double() > 0) {
    Tensor e = broadcast_to(exponent, s);
    if (c->as_double() == 1.0) return constant(e, 1.0);
    return times(e, constant(e, std::log2(c->as_double()))).unary(Op::Exp2);
  }
  return xpow(broadcast_to(base, s), broadcast_to(exponent, s));
}

}  // namespace tensor_inspect::tg
