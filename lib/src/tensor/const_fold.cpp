// const_fold.cpp — tinygrad's constant folding of element-wise ops (see const_fold.hpp).
// The arithmetic is tinygrad's python_alu (uop/ops.py) on Python values: ints exact, floats
// doubles, bools as 0/1; the result becomes `dtype.const(result)` (dtype.py).
#include "tensor/const_fold.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "tensor/late_fold.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect::const_fold {
namespace {

__extension__ using i128 = __int128;  // Python's ints as far as a fold needs them

// A Python value: an int (within 128 bits), a float or a bool.
struct PyVal {
  enum Kind : std::uint8_t { Int, Float, Bool } kind = Int;
  i128 i = 0;
  double f = 0.0;
};

PyVal py_int(i128 v) { PyVal p; p.kind = PyVal::Int; p.i = v; return p; }
PyVal py_float(double v) { PyVal p; p.kind = PyVal::Float; p.f = v; return p; }
PyVal py_bool(bool v) { PyVal p; p.kind = PyVal::Bool; p.i = v ? 1 : 0; return p; }

PyVal from_scalar(const Scalar& s) {
  switch (s.kind) {
    case DKind::Bool: return py_bool(s.b);
    case DKind::Signed: return py_int(s.as_wide());
    case DKind::Unsigned: return py_int(static_cast<i128>(s.u));
    case DKind::Float: return py_float(s.f);
  }
  return py_float(0.0);
}

double as_double(const PyVal& v) { return v.kind == PyVal::Float ? v.f : static_cast<double>(v.i); }
bool truthy(const PyVal& v) { return v.kind == PyVal::Float ? v.f != 0.0 : v.i != 0; }

// Python's ints as far as a Scalar holds them (a wide one beyond 64 bits): sums and
// differences of two stay within 128 bits.
constexpr i128 kMaxFold = static_cast<i128>(1) << 120;

// `dtype.const(v)` as a Scalar of dtype's kind (an int beyond 64 bits wide), or nullopt beyond 2**120.
std::optional<Scalar> to_const(const PyVal& v, DType dtype) {
  const DKind kind = dtype_info(dtype).kind;
  if (kind == DKind::Bool) return Scalar::from_bool(truthy(v));
  if (kind == DKind::Float) return const_value(Scalar::from_float(as_double(v)), dtype);
  i128 n = v.i;
  if (v.kind == PyVal::Float) {  // Python's int(x): truncation, and errors for nan and inf
    if (std::isnan(v.f))
      throw Error(ErrorCode::BadExpression, "cannot convert float NaN to integer (tinygrad folds the constant)");
    if (std::isinf(v.f))
      throw Error(ErrorCode::BadExpression, "cannot convert float infinity to integer (tinygrad folds the constant)");
    if (std::fabs(v.f) >= 1.329227995784916e36) return std::nullopt;  // 2**120
    n = static_cast<i128>(std::trunc(v.f));
  }
  if (n < -kMaxFold || n > kMaxFold) return std::nullopt;
  return Scalar::from_wide(n);
}

// The constant below reshapes, expands, permutes, flips and shrinks (a uniform value), or nullopt.
std::optional<Scalar> const_of(const Tensor& t) {
  const Node* n = t.node().get();
  while (n->op == Op::Reshape || n->op == Op::Expand || n->op == Op::Permute || n->op == Op::Flip ||
         n->op == Op::Shrink)
    n = n->src[0].get();
  if (n->op != Op::Const) return std::nullopt;
  return std::get<Scalar>(n->arg);
}

bool in_range(i128 v) { return v >= -kMaxFold && v <= kMaxFold; }

std::optional<PyVal> float_unary(Op op, double x) {
  switch (op) {
    case Op::Neg: return py_float(-x);
    case Op::Exp2: return py_float(std::pow(2.0, x));  // Python's 2 ** x (C pow); overflow gives inf
    case Op::Log2: return py_float(x > 0 ? std::log2(x) : x == 0 ? -std::numeric_limits<double>::infinity()
                                                                 : std::numeric_limits<double>::quiet_NaN());
    case Op::Sqrt: return py_float(x >= 0 ? std::sqrt(x) : std::numeric_limits<double>::quiet_NaN());
    case Op::Recip: return py_float(x != 0 ? 1.0 / x : std::copysign(std::numeric_limits<double>::infinity(), x));
    case Op::Sin: return py_float(std::isinf(x) ? std::numeric_limits<double>::quiet_NaN() : std::sin(x));
    case Op::Trunc: {  // math.trunc gives an int: a zero loses its sign
      if (!std::isfinite(x)) return py_float(x);
      const double r = std::trunc(x);
      return py_float(r == 0 ? 0.0 : r);
    }
    default: return std::nullopt;
  }
}

std::optional<PyVal> int_unary(Op op, i128 x) {
  switch (op) {
    case Op::Neg: return py_int(-x);
    case Op::Trunc: return py_int(x);
    default: return std::nullopt;
  }
}

std::optional<PyVal> compare(Op op, const PyVal& a, const PyVal& b) {
  if (a.kind == PyVal::Float || b.kind == PyVal::Float) {
    const double x = as_double(a), y = as_double(b);
    // A float CONST's arg is a ConstFloat (dtype.py), whose == holds for two nans: a nan
    // constant compared with a nan constant is equal, so a 0-d nan's isnan() folds to False.
    const bool both_nan = a.kind == PyVal::Float && b.kind == PyVal::Float && std::isnan(x) && std::isnan(y);
    if (both_nan && (op == Op::CmpEq || op == Op::CmpNe)) return py_bool(op == Op::CmpEq);
    switch (op) {
      case Op::CmpLt: return py_bool(x < y);
      case Op::CmpLe: return py_bool(x <= y);
      case Op::CmpEq: return py_bool(x == y);
      case Op::CmpNe: return py_bool(x != y);
      default: return std::nullopt;
    }
  }
  switch (op) {
    case Op::CmpLt: return py_bool(a.i < b.i);
    case Op::CmpLe: return py_bool(a.i <= b.i);
    case Op::CmpEq: return py_bool(a.i == b.i);
    case Op::CmpNe: return py_bool(a.i != b.i);
    default: return std::nullopt;
  }
}

// tinygrad's safe_pow (uop/ops.py) over Python's float pow: a complex result (a negative base
// to a non-integer power) is nan, 0 to a negative power (ZeroDivisionError) is +inf, and a
// finite overflow raises Python's OverflowError, which tinygrad does not catch.
PyVal python_pow(double x, double y) {
  if (x == 0 && y < 0) return py_float(std::numeric_limits<double>::infinity());
  const double r = std::pow(x, y);
  if (std::isinf(r) && std::isfinite(x) && std::isfinite(y))
    throw Error(ErrorCode::BadExpression, "OverflowError: (34, 'Numerical result out of range') (tinygrad folds "
                                          "the power of two constants with Python's pow)");
  return py_float(r);
}

std::optional<PyVal> float_binary(Op op, double x, double y) {
  switch (op) {
    case Op::Pow: return python_pow(x, y);
    case Op::Add: return py_float(x + y);
    case Op::Sub: return py_float(x - y);
    case Op::Mul: return py_float(x * y);
    case Op::Max: return py_float(y > x ? y : x);  // Python's max(x, y): x unless y is greater
    case Op::Min: return py_float(y < x ? y : x);  // tinygrad's -max(-x, -y)
    default: return std::nullopt;
  }
}

std::optional<PyVal> int_binary(Op op, i128 x, i128 y) {
  switch (op) {
    case Op::Add: return py_int(x + y);
    case Op::Sub: return py_int(x - y);
    case Op::Mul: {
      i128 r;
      if (__builtin_mul_overflow(x, y, &r)) return std::nullopt;
      return py_int(r);
    }
    case Op::FloorDiv: {  // helpers.py floordiv: x // y, and 0 for y == 0
      if (y == 0) return py_int(0);
      i128 q = x / y;
      if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
      return py_int(q);
    }
    case Op::Mod: {  // floormod: x - floordiv(x, y) * y
      if (y == 0) return py_int(x);
      i128 q = x / y;
      if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
      return py_int(x - q * y);
    }
    case Op::Max: return py_int(y > x ? y : x);
    case Op::Min: return py_int(y < x ? y : x);
    case Op::Pow: {  // Python's int pow: exact, a float for a negative exponent
      if (y < 0) return python_pow(static_cast<double>(x), static_cast<double>(y));
      if (x == 0 || x == 1) return py_int(y == 0 ? 1 : x);
      if (x == -1) return py_int(y % 2 == 0 ? 1 : -1);
      i128 r = 1, b = x;  // |x| >= 2: square and multiply, at most 127 steps before leaving 128 bits
      for (i128 e = y; e > 0; e /= 2) {
        if (e % 2 == 1 && __builtin_mul_overflow(r, b, &r)) return std::nullopt;
        if (e > 1 && __builtin_mul_overflow(b, b, &b)) return std::nullopt;
      }
      return py_int(r);
    }
    case Op::And: return py_int(x & y);
    case Op::Or: return py_int(x | y);
    case Op::Xor: return py_int(x ^ y);
    default: return std::nullopt;
  }
}

Tensor constant(const Shape& shape, DType dtype, const Scalar& v) {
  return Tensor(make_node(Op::Const, dtype, shape, {}, v));
}

std::optional<Tensor> finish(const std::optional<PyVal>& r, DType dtype, const Shape& shape) {
  if (!r || (r->kind != PyVal::Float && !in_range(r->i))) return std::nullopt;
  // Over no elements nothing is converted: tinygrad's int() of a nan or inf never runs (an empty
  // tensor has no kernel), so the cast of a nan to an int over an empty shape answers.
  const bool empty = std::any_of(shape.begin(), shape.end(), [](std::int64_t d) { return d == 0; });
  if (empty && r->kind == PyVal::Float && !std::isfinite(r->f) && dtype_info(dtype).kind != DKind::Float &&
      dtype_info(dtype).kind != DKind::Bool)
    return constant(shape, dtype, cast_scalar(Scalar::from_int(0), dtype));
  std::optional<Scalar> v = to_const(*r, dtype);
  if (!v) return std::nullopt;
  return constant(shape, dtype, *v);
}

}  // namespace

std::optional<Scalar> constant_of(const Tensor& t) { return const_of(t); }

bool is_int_power_of_tensors(const Node& n) {
  return n.op == Op::Pow && !is_float(n.dtype) && !const_of(Tensor(n.src[0])) && !const_of(Tensor(n.src[1]));
}

Scalar const_value(Scalar v, DType dtype) {
  if ((dtype_info(dtype).kind == DKind::Signed || dtype_info(dtype).kind == DKind::Unsigned) &&
      (v.kind == DKind::Signed || v.kind == DKind::Unsigned))
    return v;
  Scalar r = cast_scalar(v, dtype);
  // dtype.py, DType.const: "float('nan') != float('nan'), so we canonicalize here" to math.nan,
  // whose sign bit is clear: a folded 0 * inf is +nan, where x86 computes -nan.
  if (r.kind == DKind::Float && std::isnan(r.f)) r.f = std::numeric_limits<double>::quiet_NaN();
  return r;
}

std::optional<Tensor> unary(Op op, DType out, const Tensor& a) {
  if (std::optional<Tensor> w = late_fold::weak_valued_unary(op, out, a)) return w;  // see late_fold.hpp
  if (op == Op::Cast)
    if (std::optional<Tensor> c = late_fold::collapse_kept_cast(a, out)) return c;
  const std::optional<Scalar> c = const_of(a);
  if (!c) return std::nullopt;
  if (op == Op::Cast)
    if (std::optional<Tensor> kept = late_fold::weak_cast(*c, a, out)) return kept;  // see late_fold.hpp
  const PyVal x = from_scalar(*c);
  if (op == Op::Cast) return finish(x, out, a.shape());
  if (x.kind == PyVal::Float) return finish(float_unary(op, x.f), out, a.shape());
  if (dtype_info(a.dtype()).kind == DKind::Bool) return std::nullopt;
  return finish(int_unary(op, x.i), out, a.shape());
}

std::optional<Tensor> binary(Op op, const Tensor& a, const Tensor& b) {
  if (std::optional<Tensor> w = late_fold::weak_valued_binary(op, a, b)) return w;
  const std::optional<Scalar> ca = const_of(a), cb = const_of(b);
  if (!ca || !cb) return late_fold::nan_compare(op, a, b);
  const PyVal x = from_scalar(*ca), y = from_scalar(*cb);
  if (is_comparison(op)) return finish(compare(op, x, y), DType::Bool, a.shape());
  if (x.kind == PyVal::Float || y.kind == PyVal::Float)
    return finish(float_binary(op, as_double(x), as_double(y)), a.dtype(), a.shape());
  return finish(int_binary(op, x.i, y.i), a.dtype(), a.shape());
}

std::optional<Tensor> where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  if (std::optional<Tensor> w = late_fold::weak_valued_where(cond, a, b)) return w;
  const std::optional<Scalar> cc = const_of(cond), ca = const_of(a), cb = const_of(b);
  // a CONST gate picks its branch whatever the branches are (uop/symbolic.py, fold_const_where),
  // so the other is never computed: `0.0 ** x` of a nan x drops xpow's int32 cast of x, which
  // DEV=PYTHON would raise on
  if (cc && (!ca || !cb)) return truthy(from_scalar(*cc)) ? a : b;
  if (!cc || !ca || !cb) return std::nullopt;
  return constant(a.shape(), a.dtype(), truthy(from_scalar(*cc)) ? *ca : *cb);
}

}  // namespace tensor_inspect::const_fold
