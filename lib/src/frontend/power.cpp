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
// float32 where a cast or comparison takes it (cast_to, compare), refused where a kernel stores it
// (realize/schedule.cpp).
#include <cmath>
#include <limits>

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

// Movement ops rebuilt over another source of the same shape (their args hold no dtype).
Tensor moved_like(const std::vector<const Node*>& moves, Tensor x) {
  for (auto it = moves.rbegin(); it != moves.rend(); ++it)
    x = Tensor(make_node((*it)->op, x.dtype(), (*it)->shape, {x.node()}, (*it)->arg));
  return x;
}

}  // namespace

namespace detail {

std::optional<Tensor> int_power_as_float(const Tensor& t) {
  std::vector<const Node*> moves;  // outermost first
  const Node* n = t.node().get();
  // Movement ops, a pad's zeros among them: the region it adds is the float's zeros as well.
  while (n->op == Op::Reshape || n->op == Op::Expand || n->op == Op::Permute || n->op == Op::Shrink ||
         n->op == Op::Flip || n->op == Op::Pad) {
    moves.push_back(n);
    n = n->src[0].get();
  }
  if (!const_fold::is_int_power_of_tensors(*n)) return std::nullopt;
  const Tensor base = Tensor(n->src[0]).cast(DType::Float32), exponent = Tensor(n->src[1]).cast(DType::Float32);
  return moved_like(moves, xpow(base, exponent));
}

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
