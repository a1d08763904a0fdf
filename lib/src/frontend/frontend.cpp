// tinygrad's user-facing Tensor semantics, composed from the strict primitives of
// tensor.hpp. Each function follows the tinygrad method of the same name; where tinygrad
// composes an op from others (exp = exp2(x / ln 2), a / b = a * (1/b)), we compose it the
// same way so results round the same way.
#include "tensor_inspect/frontend.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <numbers>
#include <sstream>

#include "tensor_inspect/error.hpp"

namespace tensor_inspect::tg {

namespace {

using OptRange = std::optional<std::pair<std::int64_t, std::int64_t>>;

[[noreturn]] void shape_error(const std::string& message) { throw Error(ErrorCode::BadShape, message); }
[[noreturn]] void expr_error(const std::string& message) { throw Error(ErrorCode::BadExpression, message); }

std::size_t uz(std::int64_t v) { return static_cast<std::size_t>(v); }
std::int64_t sz(std::size_t v) { return static_cast<std::int64_t>(v); }

std::string ints_repr(const std::vector<std::int64_t>& v) { return shape_repr(v); }

Tensor cast_to(const Tensor& t, DType d) { return t.dtype() == d ? t : t.cast(d); }

Tensor scalar_tensor(const Scalar& v, DType d) { return Tensor::full({}, v, d); }

// A tensor whose element i (C order) is `value(i)`: computed inside whatever loop reads it,
// so only the elements used are ever made.
Tensor produced(const Shape& shape, DType dtype, std::string label, std::function<Scalar(std::int64_t)> value) {
  check_shape(shape, label);
  auto producer = std::make_shared<Producer>();
  producer->label = std::move(label);
  producer->element = [dtype, value](std::int64_t i) { return cast_scalar(value(i), dtype); };
  producer->fill = [dtype, element = producer->element](std::span<std::byte> out) {
    std::size_t item = dtype_info(dtype).itemsize;
    for (std::size_t i = 0; i * item < out.size(); ++i) store_scalar(dtype, element(sz(i)), out.data() + i * item);
  };
  return Tensor::from_producer(producer, dtype, shape);
}

// Whether a Python int is representable in an int dtype (exact comparison needs a wider one).
bool int_fits(const Scalar& v, DType d) {
  if (is_weak(d) || !is_int(d)) return true;
  const DTypeInfo& info = dtype_info(d);
  if (info.kind == DKind::Unsigned) {
    if (v.kind == DKind::Unsigned) return info.bits == 64 || v.u < (std::uint64_t{1} << info.bits);
    if (v.i < 0) return false;
    return info.bits == 64 || static_cast<std::uint64_t>(v.i) < (std::uint64_t{1} << info.bits);
  }
  if (v.kind == DKind::Unsigned) return info.bits == 64 ? false : v.u < (std::uint64_t{1} << (info.bits - 1));
  if (info.bits == 64) return true;
  std::int64_t hi = (std::int64_t{1} << (info.bits - 1)) - 1;
  return v.i >= -hi - 1 && v.i <= hi;
}

bool is_python_int(const Operand& v) {
  const Scalar* s = std::get_if<Scalar>(&v);
  return s != nullptr && (s->kind == DKind::Signed || s->kind == DKind::Unsigned);
}

struct Pair {
  Tensor a, b;
};

// tinygrad's _broadcasted: promote both sides to their least upper dtype (or `dtype`),
// then broadcast to a common shape.
Pair broadcasted(const Operand& a, const Operand& b, std::optional<DType> dtype = std::nullopt) {
  DType out = dtype ? *dtype : least_upper_dtype(operand_dtype(a), operand_dtype(b));
  Tensor ta = to_tensor(a, out), tb = to_tensor(b, out);
  Shape s = broadcast_shape(ta.shape(), tb.shape());
  return {broadcast_to(ta, s), broadcast_to(tb, s)};
}

Tensor binop(Op op, const Operand& a, const Operand& b) {
  Pair p = broadcasted(a, b);
  return Tensor::binary(op, p.a, p.b);
}

// The dtype both sides of a comparison are cast to: the promoted one, or a wider one when
// a Python int does not fit it (so uint8 `x > -1` compares -1, not 255).
DType compare_dtype(const Operand& a, const Operand& b) {
  DType out = least_upper_dtype(operand_dtype(a), operand_dtype(b));
  for (const Operand* side : {&a, &b}) {
    if (!is_python_int(*side)) continue;
    const Scalar& v = std::get<Scalar>(*side);
    if (int_fits(v, out)) continue;
    bool fits_i64 = v.kind == DKind::Signed || v.u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    return (fits_i64 && out != DType::UInt64) ? DType::Int64 : DType::Float64;
  }
  return out;
}

Tensor compare(Op op, const Operand& a, const Operand& b) {
  Pair p = broadcasted(a, b, compare_dtype(a, b));
  return Tensor::binary(op, p.a, p.b);
}

// Float dtype a transcendental op computes in, and the dtype its result is cast back to:
// ints -> least_upper_float; 16-bit and 8-bit floats compute in float32 and round back.
struct FloatPlan {
  DType compute, result;
};
FloatPlan float_plan(DType d, const Defaults& defaults) {
  if (!is_float(d)) {
    DType f = least_upper_float(d, defaults);
    return {f, f};
  }
  if (!is_weak(d) && dtype_info(d).itemsize < 4) return {DType::Float32, d};
  return {d, d};
}

Tensor float_unary(const Tensor& t, const Defaults& defaults, const std::function<Tensor(const Tensor&)>& f) {
  FloatPlan plan = float_plan(t.dtype(), defaults);
  return cast_to(f(cast_to(t, plan.compute)), plan.result);
}

std::vector<std::int64_t> resolve_axes(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes) {
  std::int64_t nd = sz(t.ndim());
  std::vector<std::int64_t> out;
  if (!axes) {
    for (std::int64_t i = 0; i < nd; ++i) out.push_back(i);
    return out;
  }
  for (std::int64_t a : *axes) {
    std::int64_t r = resolve_dim(a, nd);
    if (nd > 0) out.push_back(r);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Tensor reduce_axes(const Tensor& t, Op op, const std::vector<std::int64_t>& axes, bool keepdim) {
  if (axes.empty()) return t;
  Tensor r = t.reduce(op, axes);
  if (keepdim) return r;
  Shape s;
  for (std::size_t i = 0; i < t.ndim(); ++i)
    if (!std::binary_search(axes.begin(), axes.end(), sz(i))) s.push_back(t.shape()[i]);
  return r.reshape(s);
}

std::int64_t reduced_count(const Tensor& t, const std::vector<std::int64_t>& axes) {
  std::int64_t n = 1;
  for (std::int64_t a : axes) n *= t.shape()[uz(a)];
  return n;
}

Shape resolve_reshape(const Tensor& t, const Shape& shape) {
  std::int64_t known = 1;
  int infer = -1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer >= 0) shape_error("only one dimension can be inferred using -1, getting " + ints_repr(shape));
      infer = static_cast<int>(i);
    } else if (shape[i] < 0) {
      shape_error("reshape: negative size in " + ints_repr(shape));
    } else {
      known = (shape[i] != 0 && known > kMaxElements / shape[i]) ? kMaxElements + 1 : known * shape[i];
    }
  }
  Shape out = shape;
  if (infer >= 0) {
    if (known == 0 || t.numel() % known != 0)
      shape_error("cannot reshape " + shape_repr(t.shape()) + " to " + ints_repr(shape));
    out[uz(infer)] = t.numel() / known;
  }
  check_shape(out, "reshape");
  if (tensor_inspect::prod(out) != t.numel()) shape_error("cannot reshape " + shape_repr(t.shape()) + " to " + ints_repr(shape));
  return out;
}

}  // namespace

namespace {

// cond ? a : b on equal shapes and dtypes.
Tensor select(const Tensor& c, const Tensor& a, const Tensor& b) { return Tensor::where(c, a, b); }

}  // namespace

// ---------------------------------------------------------------------------- helpers

void check_shape(const Shape& shape, const std::string& what) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0) shape_error(what + ": negative dimension in shape " + shape_repr(shape));
    if (d != 0 && n > kMaxElements / d) n = kMaxElements + 1;
    else n *= d;
  }
  if (shape.size() > 64) shape_error(what + ": shape " + shape_repr(shape) + " has more than 64 dimensions");
  if (n > kMaxElements)
    shape_error(what + ": shape " + shape_repr(shape) + " has more than " + std::to_string(kMaxElements) + " elements");
}

DType python_dtype(const Scalar& v) {
  switch (v.kind) {
    case DKind::Bool: return DType::Bool;
    case DKind::Signed:
    case DKind::Unsigned: return DType::WeakInt;
    case DKind::Float: return DType::WeakFloat;
  }
  return DType::WeakFloat;
}

DType operand_dtype(const Operand& v) {
  if (const Tensor* t = std::get_if<Tensor>(&v)) return t->dtype();
  return python_dtype(std::get<Scalar>(v));
}

DType least_upper_float(DType d, const Defaults& defaults) {
  if (is_float(d)) return d;
  if (d == DType::WeakInt || d == DType::Bool) return DType::WeakFloat;
  return defaults.float_dtype;
}

Tensor to_tensor(const Operand& v, DType dtype) {
  if (const Tensor* t = std::get_if<Tensor>(&v)) return cast_to(*t, dtype);
  return scalar_tensor(std::get<Scalar>(v), dtype);
}

Tensor to_tensor(const Operand& v) { return to_tensor(v, operand_dtype(v)); }

Shape broadcast_shape(const Shape& a, const Shape& b) {
  std::size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    std::int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      shape_error("cannot broadcast " + shape_repr(a) + " with " + shape_repr(b));
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Tensor broadcast_to(const Tensor& t, const Shape& shape) {
  if (t.shape() == shape) return t;
  if (t.ndim() > shape.size()) shape_error("cannot broadcast " + shape_repr(t.shape()) + " to " + shape_repr(shape));
  Shape padded(shape.size() - t.ndim(), 1);
  padded.insert(padded.end(), t.shape().begin(), t.shape().end());
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (padded[i] != shape[i] && padded[i] != 1)
      shape_error("cannot broadcast " + shape_repr(t.shape()) + " to " + shape_repr(shape));
  check_shape(shape, "broadcast");
  Tensor r = padded == t.shape() ? t : t.reshape(padded);
  return padded == shape ? r : r.expand(shape);
}

std::int64_t resolve_dim(std::int64_t dim, std::int64_t ndim) {
  std::int64_t total = std::max<std::int64_t>(ndim, 1);
  if (dim < -total || dim >= total)
    shape_error("dim=" + std::to_string(dim) + " out of range [" + std::to_string(-total) + ", " +
                std::to_string(total - 1) + "]");
  return dim < 0 ? dim + total : dim;
}

// ------------------------------------------------------------------------------ binary

Tensor add(const Operand& a, const Operand& b) { return binop(Op::Add, a, b); }
Tensor sub(const Operand& a, const Operand& b) { return binop(Op::Sub, a, b); }
Tensor mul(const Operand& a, const Operand& b) { return binop(Op::Mul, a, b); }

Tensor div(const Operand& a, const Operand& b, const Defaults& defaults) {
  Pair p = broadcasted(a, b);
  DType f = least_upper_float(p.a.dtype(), defaults);
  Tensor den = cast_to(p.b, f).unary(Op::Recip);
  return Tensor::binary(Op::Mul, cast_to(p.a, f), den);
}

Tensor floordiv(const Operand& a, const Operand& b, const Defaults& defaults) {
  DType d = least_upper_dtype(operand_dtype(a), operand_dtype(b));
  if (is_float(d)) return floor(div(a, b, defaults));
  if (d == DType::Bool) expr_error("unsupported operand dtype for //: bool");
  return binop(Op::FloorDiv, a, b);
}

Tensor mod(const Operand& a, const Operand& b, const Defaults& defaults) {
  DType d = least_upper_dtype(operand_dtype(a), operand_dtype(b));
  if (is_float(d)) {
    Pair p = broadcasted(a, b);
    return sub(p.a, mul(floor(div(p.a, p.b, defaults)), p.b));
  }
  if (d == DType::Bool) expr_error("unsupported operand dtype for %: bool");
  return binop(Op::Mod, a, b);
}

Tensor pow(const Operand& a, const Operand& b) { return binop(Op::Pow, a, b); }
Tensor maximum(const Operand& a, const Operand& b) { return binop(Op::Max, a, b); }
Tensor minimum(const Operand& a, const Operand& b) { return binop(Op::Min, a, b); }

namespace {
Tensor bitwise(Op op, const char* name, const Operand& a, const Operand& b) {
  DType d = least_upper_dtype(operand_dtype(a), operand_dtype(b));
  if (is_float(d)) expr_error(std::string("unsupported operand dtype for ") + name + ": " + std::string(dtype_info(d).name));
  return binop(op, a, b);
}
}  // namespace

Tensor bitwise_and(const Operand& a, const Operand& b) { return bitwise(Op::And, "&", a, b); }
Tensor bitwise_or(const Operand& a, const Operand& b) { return bitwise(Op::Or, "|", a, b); }
Tensor bitwise_xor(const Operand& a, const Operand& b) { return bitwise(Op::Xor, "^", a, b); }

Tensor cmp_lt(const Operand& a, const Operand& b) { return compare(Op::CmpLt, a, b); }
Tensor cmp_gt(const Operand& a, const Operand& b) { return compare(Op::CmpLt, b, a); }
Tensor cmp_ne(const Operand& a, const Operand& b) { return compare(Op::CmpNe, a, b); }
Tensor cmp_ge(const Operand& a, const Operand& b) { return logical_not(cmp_lt(a, b)); }
Tensor cmp_le(const Operand& a, const Operand& b) { return logical_not(cmp_gt(a, b)); }
Tensor cmp_eq(const Operand& a, const Operand& b) { return logical_not(cmp_ne(a, b)); }

Tensor where(const Operand& cond, const Operand& a, const Operand& b) {
  Tensor c = to_tensor(cond, DType::Bool);
  DType d = least_upper_dtype(operand_dtype(a), operand_dtype(b));
  Tensor ta = to_tensor(a, d), tb = to_tensor(b, d);
  Shape s = broadcast_shape(broadcast_shape(c.shape(), ta.shape()), tb.shape());
  return select(broadcast_to(c, s), broadcast_to(ta, s), broadcast_to(tb, s));
}

Tensor clip(const Tensor& t, const std::optional<Operand>& lo, const std::optional<Operand>& hi) {
  Tensor r = t;
  if (lo) r = maximum(r, *lo);
  if (hi) r = minimum(r, *hi);
  return r;
}

// ------------------------------------------------------------------------------- unary

Tensor logical_not(const Tensor& t) {
  return Tensor::binary(Op::CmpNe, cast_to(t, DType::Bool), Tensor::full(t.shape(), Scalar::from_bool(true), DType::Bool));
}

Tensor neg(const Tensor& t) {
  if (t.dtype() == DType::Bool) return logical_not(t);
  return t.unary(Op::Neg);
}

Tensor invert(const Tensor& t) {
  if (t.dtype() == DType::Bool) return logical_not(t);
  if (is_float(t.dtype())) expr_error("operand of ~ must be an int or bool tensor, got " + std::string(dtype_info(t.dtype()).name));
  return bitwise_xor(t, Scalar::from_int(-1));
}

Tensor abs(const Tensor& t) {
  if (t.dtype() == DType::Bool || is_unsigned(t.dtype())) return t;
  return where(cmp_lt(t, Scalar::from_int(0)), neg(t), t);
}

Tensor relu(const Tensor& t) { return where(cmp_gt(t, Scalar::from_int(0)), t, Scalar::from_int(0)); }

Tensor exp2(const Tensor& t, const Defaults& defaults) {
  return float_unary(t, defaults, [](const Tensor& x) { return x.unary(Op::Exp2); });
}
Tensor exp(const Tensor& t, const Defaults& defaults) {
  return float_unary(t, defaults, [](const Tensor& x) {
    return mul(x, Scalar::from_float(1.0 / std::numbers::ln2)).unary(Op::Exp2);
  });
}
Tensor log2(const Tensor& t, const Defaults& defaults) {
  return float_unary(t, defaults, [](const Tensor& x) { return x.unary(Op::Log2); });
}
Tensor log(const Tensor& t, const Defaults& defaults) {
  return float_unary(t, defaults, [](const Tensor& x) { return mul(x.unary(Op::Log2), Scalar::from_float(std::numbers::ln2)); });
}
Tensor sqrt(const Tensor& t, const Defaults& defaults) {
  return float_unary(t, defaults, [](const Tensor& x) { return x.unary(Op::Sqrt); });
}
Tensor reciprocal(const Tensor& t, const Defaults& defaults) {
  return float_unary(t, defaults, [](const Tensor& x) { return x.unary(Op::Recip); });
}
Tensor rsqrt(const Tensor& t, const Defaults& defaults) {
  return float_unary(t, defaults, [](const Tensor& x) { return x.unary(Op::Sqrt).unary(Op::Recip); });
}
Tensor sin(const Tensor& t, const Defaults& defaults) {
  return float_unary(t, defaults, [](const Tensor& x) { return x.unary(Op::Sin); });
}
Tensor cos(const Tensor& t, const Defaults& defaults) {
  // tinygrad: cos(x) = sin(pi/2 - x)
  return float_unary(t, defaults, [](const Tensor& x) { return sub(Scalar::from_float(std::numbers::pi / 2), x).unary(Op::Sin); });
}
Tensor tan(const Tensor& t, const Defaults& defaults) {
  return float_unary(t, defaults, [&defaults](const Tensor& x) { return div(sin(x, defaults), cos(x, defaults), defaults); });
}
Tensor sigmoid(const Tensor& t, const Defaults& defaults) {
  // tinygrad: (1 + exp2(x * -1/ln 2)).reciprocal()
  return float_unary(t, defaults, [](const Tensor& x) {
    Tensor e = mul(x, Scalar::from_float(-1.0 / std::numbers::ln2)).unary(Op::Exp2);
    return add(Scalar::from_int(1), e).unary(Op::Recip);
  });
}
Tensor tanh(const Tensor& t, const Defaults& defaults) {
  // tinygrad: 2 * sigmoid(2x) - 1
  return float_unary(t, defaults, [&defaults](const Tensor& x) {
    return sub(mul(Scalar::from_float(2.0), sigmoid(mul(Scalar::from_float(2.0), x), defaults)), Scalar::from_float(1.0));
  });
}

Tensor trunc(const Tensor& t) { return is_float(t.dtype()) ? t.unary(Op::Trunc) : t; }
Tensor floor(const Tensor& t) {
  if (!is_float(t.dtype())) return t;
  Tensor r = t.unary(Op::Trunc);
  return where(cmp_gt(r, t), sub(r, Scalar::from_int(1)), r);
}
Tensor ceil(const Tensor& t) {
  if (!is_float(t.dtype())) return t;
  Tensor r = t.unary(Op::Trunc);
  return where(cmp_lt(r, t), add(r, Scalar::from_int(1)), r);
}
Tensor round(const Tensor& t) {
  // Half to even, as tinygrad's round and Python's round: floor, then up when the rest is
  // over a half, or exactly a half with an odd floor.
  if (!is_float(t.dtype())) return t;
  Tensor f = floor(t);
  Tensor rest = sub(t, f);
  Tensor up = add(f, Scalar::from_int(1));
  Tensor odd = cmp_ne(mod(f, Scalar::from_int(2)), Scalar::from_int(0));
  Tensor tie = where(odd, up, f);
  return where(cmp_gt(rest, Scalar::from_float(0.5)), up, where(cmp_lt(rest, Scalar::from_float(0.5)), f, tie));
}
Tensor sign(const Tensor& t) {
  Tensor s = where(cmp_lt(t, Scalar::from_int(0)), Scalar::from_int(-1), Scalar::from_int(1));
  return cast_to(where(cmp_ne(t, Scalar::from_int(0)), s, Scalar::from_int(0)), t.dtype());
}
Tensor square(const Tensor& t) { return mul(t, t); }

// ------------------------------------------------------------------------------- dtype

Tensor cast(const Tensor& t, DType dtype) {
  if (is_weak(dtype)) expr_error("cast target must be a concrete dtype, got dtypes." + std::string(dtype_info(dtype).name));
  return cast_to(t, dtype);
}

Tensor bitcast(const Tensor& t, DType dtype) {
  if (is_weak(t.dtype()) || is_weak(dtype))
    expr_error("bitcast requires concrete dtypes, got dtypes." + std::string(dtype_info(t.dtype()).name) + " -> dtypes." +
               std::string(dtype_info(dtype).name));
  if (t.dtype() == dtype) return t;
  std::int64_t old_size = dtype_info(t.dtype()).itemsize, new_size = dtype_info(dtype).itemsize;
  if (old_size != new_size && (t.ndim() == 0 || (t.shape().back() * old_size) % new_size != 0))
    shape_error("unsupported size in bitcast: " + shape_repr(t.shape()) + " " + std::string(dtype_info(t.dtype()).name) +
                " to " + std::string(dtype_info(dtype).name));
  return t.bitcast(dtype);
}

// ---------------------------------------------------------------------------- movement

Tensor reshape(const Tensor& t, const Shape& shape) {
  Shape s = resolve_reshape(t, shape);
  return s == t.shape() ? t : t.reshape(s);
}

Tensor permute(const Tensor& t, const std::vector<std::int64_t>& order) {
  std::int64_t nd = sz(t.ndim());
  std::vector<std::int64_t> r;
  std::vector<bool> seen(t.ndim(), false);
  bool ok = sz(order.size()) == nd;
  for (std::int64_t a : order) {
    if (a < -std::max<std::int64_t>(nd, 1) || a >= std::max<std::int64_t>(nd, 1)) { ok = false; break; }
    std::int64_t x = a < 0 ? a + nd : a;
    if (x < 0 || x >= nd || seen[uz(x)]) { ok = false; break; }
    seen[uz(x)] = true;
    r.push_back(x);
  }
  if (!ok) shape_error("order is not a valid permutation, getting " + ints_repr(order));
  bool identity = true;
  for (std::size_t i = 0; i < r.size(); ++i) identity = identity && r[i] == sz(i);
  return identity ? t : t.permute(r);
}

Tensor transpose(const Tensor& t, std::int64_t dim0, std::int64_t dim1) {
  std::int64_t nd = sz(t.ndim());
  if (nd < 2 && !(nd == 1 && dim0 == dim1))
    shape_error("transpose of a " + std::to_string(nd) + "-d tensor: dims " + std::to_string(dim0) + " and " +
                std::to_string(dim1) + " do not exist");
  std::int64_t a = resolve_dim(dim0, nd), b = resolve_dim(dim1, nd);
  std::vector<std::int64_t> order;
  for (std::int64_t i = 0; i < nd; ++i) order.push_back(i);
  std::swap(order[uz(a)], order[uz(b)]);
  return permute(t, order);
}

Tensor expand(const Tensor& t, const Shape& shape) {
  if (shape.size() < t.ndim())
    shape_error("cannot broadcast " + shape_repr(t.shape()) + " to new_shape=" + ints_repr(shape));
  std::size_t lead = shape.size() - t.ndim();
  Shape target = shape;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (i < lead) shape_error("cannot broadcast " + shape_repr(t.shape()) + " to new_shape=" + ints_repr(shape));
      target[i] = t.shape()[i - lead];
    } else if (shape[i] < 0) {
      shape_error("cannot broadcast " + shape_repr(t.shape()) + " to new_shape=" + ints_repr(shape));
    } else if (i >= lead && t.shape()[i - lead] != shape[i] && t.shape()[i - lead] != 1) {
      shape_error("cannot broadcast " + shape_repr(t.shape()) + " to new_shape=" + ints_repr(shape));
    }
  }
  return broadcast_to(t, target);
}

Tensor shrink(const Tensor& t, const std::vector<OptRange>& arg) {
  Ranges r;
  bool ok = arg.size() == t.ndim();
  bool identity = true;
  for (std::size_t i = 0; ok && i < arg.size(); ++i) {
    std::pair<std::int64_t, std::int64_t> p = arg[i] ? *arg[i] : std::pair<std::int64_t, std::int64_t>{0, t.shape()[i]};
    if (p.first < 0 || p.first > p.second || p.second > t.shape()[i]) ok = false;
    identity = identity && p.first == 0 && p.second == t.shape()[i];
    r.push_back(p);
  }
  if (!ok) {
    std::ostringstream os;
    os << "invalid shrink (";
    for (std::size_t i = 0; i < arg.size(); ++i) {
      if (i) os << ", ";
      if (arg[i]) os << "(" << arg[i]->first << ", " << arg[i]->second << ")";
      else os << "None";
    }
    os << (arg.size() == 1 ? ",)" : ")") << " for " << shape_repr(t.shape());
    shape_error(os.str());
  }
  return identity ? t : t.shrink(r);
}

Tensor pad(const Tensor& t, const std::vector<OptRange>& arg, const Scalar& value) {
  if (arg.size() != t.ndim())
    shape_error("padding length " + std::to_string(arg.size()) + " does not match a " + std::to_string(t.ndim()) +
                "-d tensor " + shape_repr(t.shape()));
  // Negative amounts crop first, then the positive ones pad.
  std::vector<OptRange> crop(t.ndim());
  Ranges grow(t.ndim(), {0, 0});
  bool any_grow = false;
  for (std::size_t i = 0; i < arg.size(); ++i) {
    if (!arg[i]) continue;
    auto [before, after] = *arg[i];
    if (std::max(std::abs(std::max(before, -kMaxElements)), std::abs(std::max(after, -kMaxElements))) >= kMaxElements)
      shape_error("padding (" + std::to_string(before) + ", " + std::to_string(after) + ") is out of range");
    std::int64_t b = std::max<std::int64_t>(-before, 0), e = t.shape()[i] - std::max<std::int64_t>(-after, 0);
    if (b > e) shape_error("padding " + std::to_string(before) + ", " + std::to_string(after) + " crops more than axis " +
                           std::to_string(i) + " of " + shape_repr(t.shape()) + " holds");
    crop[i] = std::pair{b, e};
    grow[i] = {std::max<std::int64_t>(before, 0), std::max<std::int64_t>(after, 0)};
    any_grow = any_grow || grow[i].first > 0 || grow[i].second > 0;
  }
  Tensor c = shrink(t, crop);
  if (!any_grow) return c;
  Shape out = c.shape();
  for (std::size_t i = 0; i < out.size(); ++i) out[i] += grow[i].first + grow[i].second;
  check_shape(out, "pad");
  Tensor p = c.pad(grow);
  bool zero = value.kind == DKind::Float ? value.f == 0.0 && !std::signbit(value.f) : value.as_bits() == 0;
  if (zero) return p;
  Tensor inside = scalar_tensor(Scalar::from_bool(true), DType::Bool);
  inside = broadcast_to(inside, c.shape()).pad(grow);
  return where(inside, p, value);
}

Tensor pad_flat(const Tensor& t, const std::vector<std::int64_t>& flat, const Scalar& value) {
  if (flat.size() % 2 != 0 || flat.size() > 2 * t.ndim())
    shape_error("flat padding " + ints_repr(flat) + " must have an even length of at most " + std::to_string(2 * t.ndim()));
  std::vector<OptRange> arg(t.ndim());
  for (std::size_t k = 0; k < flat.size() / 2; ++k) arg[t.ndim() - 1 - k] = std::pair{flat[2 * k], flat[2 * k + 1]};
  return pad(t, arg, value);
}

Tensor flip(const Tensor& t, const std::vector<std::int64_t>& axes) {
  std::vector<std::int64_t> r;
  for (std::int64_t a : axes) {
    std::int64_t x = resolve_dim(a, sz(t.ndim()));
    if (std::find(r.begin(), r.end(), x) != r.end()) shape_error("dim " + std::to_string(a) + " appears multiple times in flip");
    if (t.ndim() > 0) r.push_back(x);
  }
  std::sort(r.begin(), r.end());
  return r.empty() ? t : t.flip(r);
}

Tensor flatten(const Tensor& t, std::int64_t start_dim, std::int64_t end_dim) {
  if (t.ndim() == 0) return t.reshape({1});
  std::int64_t nd = sz(t.ndim());
  std::int64_t s = resolve_dim(start_dim, nd), e = resolve_dim(end_dim, nd);
  if (s > e) return t;
  Shape out(t.shape().begin(), t.shape().begin() + s);
  std::int64_t n = 1;
  for (std::int64_t i = s; i <= e; ++i) n *= t.shape()[uz(i)];
  out.push_back(n);
  out.insert(out.end(), t.shape().begin() + e + 1, t.shape().end());
  return reshape(t, out);
}

Tensor unflatten(const Tensor& t, std::int64_t dim, const Shape& sizes) {
  std::int64_t d = resolve_dim(dim, sz(t.ndim()));
  if (t.ndim() == 0) shape_error("unflatten of a 0-d tensor");
  Shape out(t.shape().begin(), t.shape().begin() + d);
  out.insert(out.end(), sizes.begin(), sizes.end());
  out.insert(out.end(), t.shape().begin() + d + 1, t.shape().end());
  // -1 is resolved against the whole tensor, which is the same as against axis `d`.
  return reshape(t, out);
}

Tensor squeeze(const Tensor& t, std::optional<std::int64_t> dim) {
  Shape out;
  if (!dim) {
    for (std::int64_t d : t.shape())
      if (d != 1) out.push_back(d);
  } else {
    if (t.ndim() == 0) {
      resolve_dim(*dim, 0);
      return t;
    }
    std::int64_t a = resolve_dim(*dim, sz(t.ndim()));
    for (std::size_t i = 0; i < t.ndim(); ++i)
      if (sz(i) != a || t.shape()[i] != 1) out.push_back(t.shape()[i]);
  }
  return reshape(t, out);
}

Tensor unsqueeze(const Tensor& t, std::int64_t dim) {
  std::int64_t d = resolve_dim(dim, sz(t.ndim()) + 1);
  Shape out = t.shape();
  out.insert(out.begin() + d, 1);
  return t.reshape(out);
}

Tensor getitem(const Tensor& t, const std::vector<IndexItem>& items) {
  using K = IndexItem::Kind;
  std::size_t real = 0, ellipses = 0;
  for (const IndexItem& it : items) {
    if (it.kind == K::Int || it.kind == K::Slice) ++real;
    if (it.kind == K::Ellipsis) ++ellipses;
  }
  if (ellipses > 1) shape_error("an index can only have a single ellipsis ('...')");
  if (real > t.ndim())
    shape_error("too many indices for tensor: tensor is " + std::to_string(t.ndim()) + "-dimensional, but " +
                std::to_string(real) + " were indexed");
  std::vector<IndexItem> full;
  for (const IndexItem& it : items) {
    if (it.kind != K::Ellipsis) { full.push_back(it); continue; }
    for (std::size_t k = 0; k < t.ndim() - real; ++k) full.push_back(IndexItem{K::Slice, 0, {}, {}, {}});
  }
  if (ellipses == 0)
    for (std::size_t k = 0; k < t.ndim() - real; ++k) full.push_back(IndexItem{K::Slice, 0, {}, {}, {}});

  // Per axis: the [lo, hi) range to keep, whether to flip, the stride and the final count.
  std::vector<OptRange> ranges;
  std::vector<std::int64_t> flips;
  std::vector<std::pair<std::size_t, std::int64_t>> strides;  // (axis, |step|)
  Shape out_shape;
  std::size_t axis = 0;
  for (const IndexItem& it : full) {
    if (it.kind == K::NewAxis) { out_shape.push_back(1); continue; }
    std::int64_t n = t.shape()[axis];
    if (it.kind == K::Int) {
      std::int64_t i = it.index < 0 ? it.index + n : it.index;
      if (i < 0 || i >= n)
        shape_error("index " + std::to_string(it.index) + " is out of bounds for dimension " + std::to_string(axis) +
                    " with size " + std::to_string(n));
      ranges.push_back(std::pair{i, i + 1});
    } else {
      std::int64_t step = std::max(it.step.value_or(1), -std::numeric_limits<std::int64_t>::max());
      if (step == 0) shape_error("slice step cannot be zero");
      std::int64_t start, stop;
      auto clampv = [](std::int64_t v, std::int64_t lo, std::int64_t hi) { return std::min(std::max(v, lo), hi); };
      if (step > 0) {
        start = it.start ? clampv(*it.start < 0 ? *it.start + n : *it.start, 0, n) : 0;
        stop = it.stop ? clampv(*it.stop < 0 ? *it.stop + n : *it.stop, 0, n) : n;
      } else {
        start = it.start ? clampv(*it.start < 0 ? *it.start + n : *it.start, -1, n - 1) : n - 1;
        stop = it.stop ? clampv(*it.stop < 0 ? *it.stop + n : *it.stop, -1, n - 1) : -1;
      }
      std::int64_t count = step > 0 ? (stop > start ? (stop - start - 1) / step + 1 : 0)
                                    : (start > stop ? (start - stop - 1) / (-step) + 1 : 0);
      std::int64_t abs_step = step > 0 ? step : -step;
      if (count == 0) {
        ranges.push_back(std::pair{0, 0});
      } else if (step > 0) {
        ranges.push_back(std::pair{start, start + (count - 1) * step + 1});
      } else {
        ranges.push_back(std::pair{start + (count - 1) * step, start + 1});
        flips.push_back(sz(axis));
      }
      if (count > 1 && abs_step > 1) strides.emplace_back(axis, abs_step);
      out_shape.push_back(count);
    }
    ++axis;
  }
  Tensor r = shrink(t, ranges);
  r = flip(r, flips);
  for (auto [ax, step] : strides) {
    // Take every step-th element of axis ax: pad to count*step, split, keep column 0.
    std::int64_t len = r.shape()[ax];
    std::int64_t count = (len + step - 1) / step;
    std::vector<OptRange> p(r.ndim());
    p[ax] = std::pair<std::int64_t, std::int64_t>{0, count * step - len};
    r = pad(r, p);
    Shape split = r.shape();
    split[ax] = count;
    split.insert(split.begin() + sz(ax) + 1, step);
    r = r.reshape(split);
    std::vector<OptRange> keep(r.ndim());
    keep[ax + 1] = std::pair<std::int64_t, std::int64_t>{0, 1};
    r = shrink(r, keep);
    Shape merged = r.shape();
    merged.erase(merged.begin() + sz(ax) + 1);
    r = r.reshape(merged);
  }
  return out_shape == r.shape() ? r : r.reshape(out_shape);
}

// ---------------------------------------------------------------------------- reductions

Tensor sum(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim) {
  std::vector<std::int64_t> ax = resolve_axes(t, axes);
  DType acc = sum_acc_dtype(t.dtype());
  Tensor r = reduce_axes(cast_to(t, acc), Op::ReduceSum, ax, keepdim);
  if (is_float(t.dtype()) && !is_weak(t.dtype()) && dtype_info(t.dtype()).itemsize < 4) r = cast_to(r, t.dtype());
  return r;
}

Tensor repeat(const Tensor& t, const Shape& repeats) {
  // tinygrad: reshape to interleave a size-1 axis before each axis, expand it to the
  // repeat count, and merge each pair.
  if (repeats.size() < t.ndim())
    shape_error("repeat needs at least " + std::to_string(t.ndim()) + " counts for shape " + shape_repr(t.shape()));
  for (std::int64_t r : repeats)
    if (r < 0) shape_error("repeat counts must be >= 0, got " + shape_repr(repeats));
  Shape base(repeats.size() - t.ndim(), 1);
  base.insert(base.end(), t.shape().begin(), t.shape().end());
  Shape interleaved, expanded, final_shape;
  for (std::size_t i = 0; i < base.size(); ++i) {
    interleaved.insert(interleaved.end(), {1, base[i]});
    expanded.insert(expanded.end(), {repeats[i], base[i]});
    final_shape.push_back(repeats[i] * base[i]);
  }
  check_shape(final_shape, "repeat");
  return reshape(expand(reshape(t, interleaved), expanded), final_shape);
}

Tensor cumsum(const Tensor& t, std::int64_t axis) {
  const Tensor x = t.ndim() == 0 ? t.reshape({1}) : t;
  const std::int64_t ax = resolve_axes(x, std::vector<std::int64_t>{axis})[0];
  const std::int64_t last = static_cast<std::int64_t>(x.ndim()) - 1;
  const std::int64_t n = x.shape()[static_cast<std::size_t>(ax)];
  // Move the axis last, lay out y[..., i, j] = y[..., j], keep j <= i, and sum over j: the
  // running sums as one fused reduction (tinygrad builds the same triangle with pad).
  std::vector<std::int64_t> order;
  for (std::int64_t d = 0; d <= last; ++d)
    if (d != ax) order.push_back(d);
  order.push_back(ax);
  Tensor y = permute(x, order);
  Shape square_shape = y.shape();
  square_shape.insert(square_shape.end() - 1, n);
  Tensor rows = expand(unsqueeze(y, -2), square_shape);
  Tensor lower = produced({n, n}, DType::Bool, "tril", [n](std::int64_t k) { return Scalar::from_bool(k % n <= k / n); });
  Tensor r = sum(where(lower, rows, Scalar::from_int(0)), std::vector<std::int64_t>{-1}, false);
  // Put the axis back where it was.
  std::vector<std::int64_t> back(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) back[static_cast<std::size_t>(order[i])] = static_cast<std::int64_t>(i);
  r = permute(r, back);
  return t.ndim() == 0 ? r.reshape({}) : r;
}

Tensor cat(const std::vector<Tensor>& ts, std::int64_t dim) {
  if (ts.empty()) shape_error("cat needs at least one tensor");
  const Tensor& first = ts[0];
  if (first.ndim() == 0) shape_error("zero-dimensional tensor cannot be concatenated");
  const std::int64_t ax = resolve_axes(first, std::vector<std::int64_t>{dim})[0];
  const auto uax = static_cast<std::size_t>(ax);
  DType d = first.dtype();
  std::int64_t total = 0;
  for (const Tensor& t : ts) {
    Shape a = t.shape(), b = first.shape();
    if (a.size() != b.size()) shape_error("cat: shapes " + shape_repr(b) + " and " + shape_repr(a) + " differ in ndim");
    a[uax] = b[uax] = 0;
    if (a != b) shape_error("cat: shapes " + shape_repr(first.shape()) + " and " + shape_repr(t.shape()) + " differ off axis " + std::to_string(ax));
    d = least_upper_dtype(d, t.dtype());
    total += t.shape()[uax];
  }
  // tinygrad's cat: pad each piece to the full length along the axis and add them up.
  // Floats are added as their bits (x + 0 would turn -0.0 into 0.0), so every value,
  // -0.0 and nan payloads included, comes through unchanged.
  const bool as_bits = is_float(d) && !is_weak(d);
  const std::size_t isz = dtype_info(d).itemsize;
  const DType bits = isz == 1 ? DType::UInt8 : isz == 2 ? DType::UInt16 : isz == 4 ? DType::UInt32 : DType::UInt64;
  std::optional<Tensor> out;
  std::int64_t offset = 0;
  for (const Tensor& t : ts) {
    std::vector<std::optional<std::pair<std::int64_t, std::int64_t>>> padding(t.ndim());
    const std::int64_t n = t.shape()[uax];
    padding[uax] = std::pair<std::int64_t, std::int64_t>{offset, total - offset - n};
    Tensor piece = cast_to(t, d);
    piece = pad(as_bits ? piece.bitcast(bits) : piece, padding);
    out = out ? add(*out, piece) : piece;
    offset += n;
  }
  return as_bits ? out->bitcast(d) : *out;
}

Tensor stack(const std::vector<Tensor>& ts, std::int64_t dim) {
  if (ts.empty()) shape_error("stack needs at least one tensor");
  std::vector<Tensor> lifted;
  for (const Tensor& t : ts) {
    if (t.shape() != ts[0].shape()) shape_error("stack: shapes " + shape_repr(ts[0].shape()) + " and " + shape_repr(t.shape()) + " differ");
    lifted.push_back(unsqueeze(t, dim));
  }
  return cat(lifted, dim);
}

Tensor tril(const Tensor& t, std::int64_t diagonal, bool upper) {
  if (t.ndim() < 2) shape_error(std::string(upper ? "triu" : "tril") + " needs at least 2 dimensions, got " + shape_repr(t.shape()));
  const std::int64_t rows = t.shape()[t.ndim() - 2], cols = t.shape()[t.ndim() - 1];
  Tensor keep = produced({rows, cols}, DType::Bool, upper ? "triu" : "tril", [cols, diagonal, upper](std::int64_t k) {
    const std::int64_t i = k / cols, j = k % cols;
    return Scalar::from_bool(upper ? j - i >= diagonal : j - i <= diagonal);
  });
  return where(keep, t, Scalar::from_int(0));
}

Tensor prod(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim) {
  return reduce_axes(t, Op::ReduceProd, resolve_axes(t, axes), keepdim);
}

Tensor max(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim) {
  return reduce_axes(t, Op::ReduceMax, resolve_axes(t, axes), keepdim);
}

Tensor min(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim) {
  return reduce_axes(t, Op::ReduceMin, resolve_axes(t, axes), keepdim);
}

Tensor mean(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim, const Defaults& defaults) {
  std::vector<std::int64_t> ax = resolve_axes(t, axes);
  DType out = is_float(t.dtype()) ? t.dtype() : least_upper_float(t.dtype(), defaults);
  Tensor num = reduce_axes(cast_to(t, sum_acc_dtype(t.dtype())), Op::ReduceSum, ax, keepdim);
  return cast_to(div(num, Scalar::from_int(reduced_count(t, ax)), defaults), out);
}

Tensor var(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim, double correction,
           const Defaults& defaults) {
  std::vector<std::int64_t> ax = resolve_axes(t, axes);
  Tensor centered = sub(t, mean(t, ax, true, defaults));
  Tensor sq = sum(square(centered), ax, keepdim);
  double n = static_cast<double>(reduced_count(t, ax)) - correction;
  return div(sq, Scalar::from_float(std::max(0.0, n)), defaults);
}

Tensor std_dev(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim, double correction,
               const Defaults& defaults) {
  return sqrt(var(t, axes, keepdim, correction, defaults), defaults);
}

Tensor softmax(const Tensor& t, std::int64_t axis, const Defaults& defaults) {
  // tinygrad: m = x - x.max(axis, keepdim=True); e = m.exp(); e / e.sum(axis, keepdim=True)
  const std::vector<std::int64_t> ax{axis};
  Tensor x = cast_to(t, is_float(t.dtype()) ? t.dtype() : least_upper_float(t.dtype(), defaults));
  Tensor e = exp(sub(x, max(x, ax, true)), defaults);
  return div(e, sum(e, ax, true), defaults);
}

Tensor log_softmax(const Tensor& t, std::int64_t axis, const Defaults& defaults) {
  // tinygrad: m = x - x.max(axis, keepdim=True); m - m.exp().sum(axis, keepdim=True).log()
  const std::vector<std::int64_t> ax{axis};
  Tensor x = cast_to(t, is_float(t.dtype()) ? t.dtype() : least_upper_float(t.dtype(), defaults));
  Tensor m = sub(x, max(x, ax, true));
  return sub(m, log(sum(exp(m, defaults), ax, true), defaults));
}

Tensor argmax(const Tensor& t, std::optional<std::int64_t> axis, bool keepdim) {
  if (!axis) {
    Tensor r = argmax(flatten(t), 0, false);
    if (!keepdim) return r;
    return r.reshape(Shape(t.ndim(), 1));
  }
  if (t.ndim() == 0) {
    resolve_dim(*axis, 0);
    return scalar_tensor(Scalar::from_int(0), DType::Int32);
  }
  std::int64_t a = resolve_dim(*axis, sz(t.ndim()));
  std::int64_t n = t.shape()[uz(a)];
  if (n == 0) shape_error("argmax of an empty axis " + std::to_string(a) + " of " + shape_repr(t.shape()));
  Tensor m = cmp_eq(t, max(t, std::vector<std::int64_t>{a}, true));
  Shape col(t.ndim() - uz(a), 1);
  col[0] = n;
  Tensor count_down = reshape(arange(Scalar::from_int(n), Scalar::from_int(0), Scalar::from_int(-1), DType::Int32), col);
  Tensor idx = mul(m, count_down);
  return cast(sub(Scalar::from_int(n), max(idx, std::vector<std::int64_t>{a}, keepdim)), DType::Int32);
}

Tensor argmin(const Tensor& t, std::optional<std::int64_t> axis, bool keepdim) {
  Tensor inv = is_float(t.dtype()) ? neg(t) : invert(t);
  return argmax(inv, axis, keepdim);
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  std::int64_t dx = sz(a.ndim()), dw = sz(b.ndim());
  if (dx == 0 || dw == 0)
    shape_error("both tensors need to be at least 1D, got " + std::to_string(dx) + "D and " + std::to_string(dw) + "D");
  std::int64_t axis_w = -std::min<std::int64_t>(dw, 2);
  if (a.shape().back() != b.shape()[uz(dw + axis_w)])
    shape_error("cannot dot " + shape_repr(a.shape()) + " and " + shape_repr(b.shape()));
  std::int64_t ones = std::min<std::int64_t>({dx - 1, dw - 1, 1});
  Shape xs(a.shape().begin(), a.shape().end() - 1);
  for (std::int64_t i = 0; i < ones; ++i) xs.push_back(1);
  xs.push_back(a.shape().back());
  Shape ws(b.shape().begin(), b.shape().end() - std::min<std::int64_t>(dw, 2));
  for (std::int64_t i = 0; i < ones; ++i) ws.push_back(1);
  ws.insert(ws.end(), b.shape().end() + axis_w, b.shape().end());
  Tensor x = a.reshape(xs);
  Tensor w = transpose(b.reshape(ws), -1, axis_w);
  DType out = least_upper_dtype(a.dtype(), b.dtype());
  return cast_to(sum(mul(x, w), std::vector<std::int64_t>{-1}, false), out);
}

// -------------------------------------------------------------------------- constructors

Tensor arange(Scalar start, Scalar stop, Scalar step, std::optional<DType> dtype, const Defaults& defaults) {
  bool any_float = start.kind == DKind::Float || stop.kind == DKind::Float || step.kind == DKind::Float;
  DType d = dtype ? *dtype : (any_float ? defaults.float_dtype : defaults.int_dtype);
  if (is_weak(d)) d = commit_dtype(d, defaults);
  double s0 = start.as_double(), s1 = stop.as_double(), st = step.as_double();
  if (st == 0.0) expr_error("arange: step cannot be 0");
  if (!std::isfinite(s0) || !std::isfinite(s1) || !std::isfinite(st)) expr_error("arange: arguments must be finite");
  std::int64_t n;
  if (!any_float) {
    std::int64_t a = start.kind == DKind::Unsigned ? static_cast<std::int64_t>(start.u) : (start.kind == DKind::Bool ? start.b : start.i);
    std::int64_t b = stop.kind == DKind::Unsigned ? static_cast<std::int64_t>(stop.u) : (stop.kind == DKind::Bool ? stop.b : stop.i);
    std::int64_t c = step.kind == DKind::Unsigned ? static_cast<std::int64_t>(step.u) : (step.kind == DKind::Bool ? step.b : step.i);
    double span = (static_cast<double>(b) - static_cast<double>(a)) / static_cast<double>(c);
    if (span > static_cast<double>(kMaxElements)) n = kMaxElements + 1;
    else if (span <= 0) n = 0;
    else n = c > 0 ? (b - a - 1) / c + 1 : (a - b - 1) / (-std::max(c, -std::numeric_limits<std::int64_t>::max())) + 1;
    check_shape({n}, "arange");
    return produced({n}, d, "arange", [a, c](std::int64_t i) { return Scalar::from_int(a + i * c); });
  }
  double len = std::ceil((s1 - s0) / st);
  n = len <= 0 ? 0 : (len > static_cast<double>(kMaxElements) ? kMaxElements + 1 : static_cast<std::int64_t>(len));
  check_shape({n}, "arange");
  if (is_float(d) && dtype_info(d).itemsize <= 4) {
    // tinygrad computes start + i*step in the float32 dtype, each step rounded.
    float f0 = static_cast<float>(s0), fs = static_cast<float>(st);
    return produced({n}, d, "arange", [f0, fs](std::int64_t i) {
      float v = f0 + static_cast<float>(i) * fs;
      return Scalar::from_float(static_cast<double>(v));
    });
  }
  return produced({n}, d, "arange", [s0, st](std::int64_t i) { return Scalar::from_float(s0 + static_cast<double>(i) * st); });
}

Tensor full(const Shape& shape, const Scalar& value, std::optional<DType> dtype) {
  check_shape(shape, "full");
  DType d = dtype ? *dtype : python_dtype(value);
  return Tensor::full(shape, value, d);
}

Tensor ones(const Shape& shape, std::optional<DType> dtype, const Defaults& defaults) {
  return full(shape, Scalar::from_int(1), dtype ? *dtype : defaults.float_dtype);
}

Tensor zeros(const Shape& shape, std::optional<DType> dtype, const Defaults& defaults) {
  return full(shape, Scalar::from_int(0), dtype ? *dtype : defaults.float_dtype);
}

Tensor eye(std::int64_t n, std::optional<std::int64_t> m, std::optional<DType> dtype, const Defaults& defaults) {
  std::int64_t cols = m ? *m : n;
  if (n < 0 || cols < 0) shape_error("eye: negative size " + std::to_string(n < 0 ? n : cols));
  DType d = dtype ? *dtype : defaults.float_dtype;
  return produced({n, cols}, d, "eye", [cols](std::int64_t i) { return Scalar::from_int(i / cols == i % cols ? 1 : 0); });
}

Tensor linspace(Scalar start, Scalar stop, std::int64_t steps, std::optional<DType> dtype, const Defaults& defaults) {
  if (steps < 0) shape_error("linspace: number of steps must be non-negative, got " + std::to_string(steps));
  DType d = dtype ? *dtype : defaults.float_dtype;
  double a = start.as_double(), b = stop.as_double();
  double delta = steps > 1 ? (b - a) / static_cast<double>(steps - 1) : 0.0;
  return produced({steps}, d, "linspace", [a, delta](std::int64_t i) { return Scalar::from_float(a + static_cast<double>(i) * delta); });
}

Tensor from_values(const std::vector<Scalar>& values, const Shape& shape, std::optional<DType> dtype,
                   const Defaults& defaults) {
  check_shape(shape, "Tensor");
  if (shape.empty() && values.size() == 1) return Tensor::full({}, values[0], dtype ? *dtype : python_dtype(values[0]));
  DType d = DType::Bool;
  if (dtype) {
    d = *dtype;
  } else if (values.empty()) {
    d = defaults.float_dtype;
  } else {
    bool any_float = false, any_int = false;
    for (const Scalar& v : values) {
      any_float = any_float || v.kind == DKind::Float;
      any_int = any_int || v.kind == DKind::Signed || v.kind == DKind::Unsigned;
    }
    d = any_float ? defaults.float_dtype : any_int ? defaults.int_dtype : DType::Bool;
  }
  return produced(shape, d, "Tensor", [values](std::int64_t i) { return values[uz(i)]; });
}

}  // namespace tensor_inspect::tg
