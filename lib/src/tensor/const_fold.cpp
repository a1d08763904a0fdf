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
    case DKind::Signed: return py_int(s.i);
    case DKind::Unsigned: return py_int(static_cast<i128>(s.u));
    case DKind::Float: return py_float(s.f);
  }
  return py_float(0.0);
}

double as_double(const PyVal& v) { return v.kind == PyVal::Float ? v.f : static_cast<double>(v.i); }
bool truthy(const PyVal& v) { return v.kind == PyVal::Float ? v.f != 0.0 : v.i != 0; }

constexpr i128 kMinInt = -(static_cast<i128>(1) << 63);
constexpr i128 kMaxUInt = (static_cast<i128>(1) << 64) - 1;

// `dtype.const(v)` as a Scalar of dtype's kind, or nullopt when the exact int leaves 64 bits.
std::optional<Scalar> to_const(const PyVal& v, DType dtype) {
  const DKind kind = dtype_info(dtype).kind;
  if (kind == DKind::Bool) return Scalar::from_bool(truthy(v));
  if (kind == DKind::Float) return cast_scalar(Scalar::from_float(as_double(v)), dtype);
  i128 n = v.i;
  if (v.kind == PyVal::Float) {  // Python's int(x): truncation, and errors for nan and inf
    if (std::isnan(v.f))
      throw Error(ErrorCode::BadExpression, "cannot convert float NaN to integer (tinygrad folds the constant)");
    if (std::isinf(v.f))
      throw Error(ErrorCode::BadExpression, "cannot convert float infinity to integer (tinygrad folds the constant)");
    if (std::fabs(v.f) >= 1.8446744073709552e19) return std::nullopt;
    n = static_cast<i128>(std::trunc(v.f));
  }
  if (n < kMinInt || n > kMaxUInt) return std::nullopt;
  if (n <= std::numeric_limits<std::int64_t>::max()) return Scalar::from_int(static_cast<std::int64_t>(n));
  return Scalar::from_uint(static_cast<std::uint64_t>(n));
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

bool in_range(i128 v) { return v >= kMinInt && v <= kMaxUInt; }

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

std::optional<PyVal> float_binary(Op op, double x, double y) {
  switch (op) {
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

Scalar const_value(Scalar v, DType dtype) {
  if ((dtype_info(dtype).kind == DKind::Signed || dtype_info(dtype).kind == DKind::Unsigned) &&
      (v.kind == DKind::Signed || v.kind == DKind::Unsigned))
    return v;
  return cast_scalar(v, dtype);
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
  if (!cc || !ca || !cb) return std::nullopt;
  return constant(a.shape(), a.dtype(), truthy(from_scalar(*cc)) ? *ca : *cb);
}

}  // namespace tensor_inspect::const_fold
