// tinygrad's promotion and broadcasting (_broadcasted, least_upper_dtype with weak Python
// scalars) and the binary ops, comparisons and where built on them.
#include <algorithm>
#include <cmath>
#include <limits>

#include "internal.hpp"
#include "tensor/late_fold.hpp"

namespace tensor_inspect::tg {

using namespace detail;

bool detail::int_fits(const Scalar& v, DType d) {
  if (is_weak(d) || !is_int(d)) return true;
  if (v.wide) return false;  // beyond 64 bits
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

namespace {

bool is_python_int(const Operand& v) {
  const Scalar* s = std::get_if<Scalar>(&v);
  return s != nullptr && (s->kind == DKind::Signed || s->kind == DKind::Unsigned);
}

struct Pair {
  Tensor a, b;
};

// tinygrad's _broadcasted: promote both sides to their least upper dtype (or `dtype`),
// then broadcast to a common shape.
// A Python float in an add, a subtraction, a product or a quotient of a narrow float: tinygrad's
// weak CONST, its exact double kept until the kernel commits it, so folds over two of them run
// on the doubles (`(x * 0.3) / -5` is x * -0.06 rounded once; reassociate.cpp).
// A Python int there is a weak int CONST, folded with the others exactly as well (`x * 0.3 * 3` is
// x * 0.8999999999999999); the reciprocal of an int divisor is not (div casts it to the float first).
Tensor exact_float(const Operand& v, DType dtype, bool ints = true) {
  const Scalar* s = std::get_if<Scalar>(&v);
  const bool exact_int = ints && (s != nullptr) && !s->wide && s->kind != DKind::Bool && s->kind != DKind::Float &&
                         std::abs(s->as_double()) <= 9007199254740992.0;
  if (s == nullptr || (s->kind != DKind::Float && !exact_int) ||
      !late_fold::holds_weak_value(dtype))
    return to_tensor(v, dtype);
  return late_fold::weak_valued({}, s->as_double(), dtype);
}

Pair broadcasted(const Operand& a, const Operand& b, std::optional<DType> dtype = std::nullopt, bool exact = false) {
  DType out = dtype ? *dtype : least_upper_dtype(operand_dtype(a), operand_dtype(b));
  Tensor ta = exact ? exact_float(a, out) : to_tensor(a, out), tb = exact ? exact_float(b, out) : to_tensor(b, out);
  Shape s = broadcast_shape(ta.shape(), tb.shape());
  return {broadcast_to(ta, s), broadcast_to(tb, s)};
}

Tensor binop(Op op, const Operand& a, const Operand& b) {
  Pair p = broadcasted(a, b, std::nullopt, op == Op::Add || op == Op::Sub || op == Op::Mul);
  if (auto f = fold_weak_const(op, a, b, p.a, p.b)) return *f;
  return folded_binary(op, p.a, p.b);
}

// The dtype both sides of a comparison are cast to: the promoted one, or a wider one when
// a Python int does not fit it (so uint8 `x > -1` compares -1, not 255).
DType compare_dtype(const Operand& a, const Operand& b) {
  DType out = least_upper_dtype(operand_dtype(a), operand_dtype(b));
  for (const Operand* side : {&a, &b}) {
    if (!is_python_int(*side)) continue;
    const Scalar& v = std::get<Scalar>(*side);
    if (int_fits(v, out)) continue;
    const bool fits_i64 = !v.wide && (v.kind == DKind::Signed ||
                                      v.u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()));
    return (fits_i64 && out != DType::UInt64) ? DType::Int64 : DType::Float64;
  }
  return out;
}

// An int power of two tensors compares as the float tinygrad computes for it.
Operand compared_value(const Operand& v) {
  if (const Tensor* t = std::get_if<Tensor>(&v))
    if (std::optional<Tensor> f = int_power_as_float(*t)) return *f;
  return v;
}

Tensor compare(Op op, const Operand& a_in, const Operand& b_in) {
  const Operand a = compared_value(a_in), b = compared_value(b_in);
  Pair p = broadcasted(a, b, compare_dtype(a, b));
  if (auto f = fold_weak_const(op, a, b, p.a, p.b)) return *f;
  Tensor r = folded_binary(op, p.a, p.b);
  if (auto f = fold_compare_bounds(r)) return *f;
  return r;
}

}  // namespace

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

// tinygrad/dtype.py least_upper_float: weakfloat for a weak int only; a bool, like an int,
// promotes with the default float, so bool.sqrt() is a strong float32 that bitcast accepts.
DType least_upper_float(DType d, const Defaults& defaults) {
  if (is_float(d)) return d;
  if (d == DType::WeakInt) return DType::WeakFloat;
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

namespace {
// `r` expanded to `shape` where r is the first slice (a shrink) of a value of that shape along
// the axes it is expanded on, and that value does not vary along them: the value itself, which
// is what tinygrad's kernel loads at every index of those axes (the same UOp, so x - x folds).
// The mean of an expanded x over the expanded axis is such a slice once its reduction has
// been dropped (reduce_unparented): x.expand((2, 3)).exp().var(axis=0) is 0 at inf too.
std::optional<Tensor> unshrunk(const Tensor& r, const Shape& shape) {
  const Node* n = r.node().get();
  std::vector<DType> casts;  // casts over the slice (a half's mean), outermost first
  while (n->op == Op::Cast) casts.push_back(n->dtype), n = n->src[0].get();
  if (n->op != Op::Shrink || n->src[0]->shape != shape) return std::nullopt;
  const Ranges& ranges = std::get<Ranges>(n->arg);
  std::vector<std::int64_t> axes;
  for (std::size_t a = 0; a < shape.size(); ++a) {
    if (ranges[a] == std::make_pair(std::int64_t{0}, shape[a])) continue;
    if (ranges[a] != std::make_pair(std::int64_t{0}, std::int64_t{1})) return std::nullopt;
    axes.push_back(static_cast<std::int64_t>(a));
  }
  Tensor whole(n->src[0]);
  if (!uniform_along(whole, axes)) return std::nullopt;
  for (auto it = casts.rbegin(); it != casts.rend(); ++it) whole = cast_to(whole, *it);
  return whole;
}
}  // namespace

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
  if (padded == shape) return r;
  if (std::optional<Tensor> s = unshrunk(r, shape)) return *s;
  return r.expand(shape);
}


// ------------------------------------------------------------------------------ binary

Tensor add(const Operand& a, const Operand& b) { return binop(Op::Add, a, b); }
Tensor sub(const Operand& a, const Operand& b) {
  // tinygrad: a + (-b), and -b of a bool is logical not: bool a - b is a | !b.
  if (least_upper_dtype(operand_dtype(a), operand_dtype(b)) == DType::Bool) {
    Pair p = broadcasted(a, b);
    return folded_binary(Op::Or, p.a, logical_not(p.b));
  }
  return binop(Op::Sub, a, b);
}
Tensor mul(const Operand& a, const Operand& b) { return binop(Op::Mul, a, b); }

namespace {
// Whether tinygrad's x/x -> 1 (uop/symbolic.py, "x/x -> 1") still sees the same x on both
// sides of an int or bool quotient. div casts the numerator to the default float, and a cast
// over a cast that does not narrow collapses into one cast ("cast/long folding":
// x.cast(a).cast(b) -> x.cast(b) when can_lossless_cast(x.dtype, a), or an int x whose range
// a holds), so `x / x.cast(dtypes.int64)` of an int8 x is x.cast(float) * (1/x.cast(int64)):
// two different nodes, and 0/0 stays nan. Observed the same for a float cast to an int.
bool int_self_division_folds(const Node* n) {
  if (n->op != Op::Cast || !is_int(n->dtype) || n->src.empty()) return true;
  const DType from = n->src[0]->dtype;
  if (from == DType::Bool || is_float(from)) return false;
  if (!is_int(from) || is_weak(from) || is_weak(n->dtype)) return true;
  return !can_lossless_cast(from, n->dtype);
}
}  // namespace

Tensor div(const Operand& a, const Operand& b, const Defaults& defaults) {
  // A Python scalar stays an exact weak constant in tinygrad's _broadcasted until the float
  // it is divided in: uint8 `x / 300` divides by 300.0, never by 300 wrapped to 44.
  // tinygrad's div: `if dtypes.is_int(a.dtype) or a.dtype == dtypes.bool: a = a.cast(dtypes.default_float)`,
  // so an int or bool quotient is the (strong) default float even by a Python int.
  Pair p = broadcasted(a, b);
  DType f = is_int(p.a.dtype()) || p.a.dtype() == DType::Bool ? defaults.float_dtype : p.a.dtype();
  const bool ints = false;  // a Python int numerator is cast to the float first
  Tensor num = std::holds_alternative<Scalar>(a) ? broadcast_to(exact_float(a, f, ints), p.a.shape()) : cast_to(p.a, f);
  // A Python int divisor stays a weak CONST (_broadcasted keeps it weak, and div casts only the
  // numerator), so its RECIPROCAL folds in double: float32 `(x * 0.1) / -5` is x * (0.1 * -0.2).
  Tensor dv = std::holds_alternative<Scalar>(b) ? broadcast_to(exact_float(b, f), p.b.shape()) : cast_to(p.b, f);
  const Node* base = p.a.node().get();
  while (base->op == Op::Reshape || base->op == Op::Expand) base = base->src[0].get();
  // x/x -> 1, but a constant x and an int's isinf (False by its bounds) fold first: 0/0 is nan
  const bool int_isinf = p.a.node() == p.b.node() && is_int_isinf(base);
  const bool self_division = p.a.node() == p.b.node() && base->op != Op::Const && !int_isinf;
  if (self_division && (f == p.a.dtype() || int_self_division_folds(base)))
    return Tensor::full(p.a.shape(), Scalar::from_float(1.0), f);
  // a * b.reciprocal() with a Python scalar kept weak (weak_const_fold.cpp): 1/b of a Python b is
  // Python's (the weak RECIPROCAL folds exactly, 1/0 is inf with b's sign); a Python float a
  // stays weak, while a Python int a was cast to the default float above.
  if (const Scalar* sb = std::get_if<Scalar>(&b); sb != nullptr && sb->kind != DKind::Bool) {
    const double bv = sb->as_double();
    const double inf = std::numeric_limits<double>::infinity();
    const Operand r = Scalar::from_float(bv != 0 ? 1.0 / bv : std::copysign(inf, bv));
    if (auto folded = fold_weak_const(Op::Mul, num, r, num, num)) return *folded;
  }
  // an int divisor's RECIPROCAL takes the int op itself (mixin/elementwise.py div; reassociate.cpp)
  const bool int_divisor = !std::holds_alternative<Scalar>(b) && is_int(p.b.dtype()) && !is_weak(p.b.dtype());
  Tensor recip = int_divisor ? int_reciprocal(p.b, f) : rewritten_reciprocal(dv);
  if (const Scalar* sa = std::get_if<Scalar>(&a); sa != nullptr && sa->kind == DKind::Float)
    if (auto folded = fold_weak_const(Op::Mul, *sa, recip, recip, recip)) return *folded;
  // Where the casts collapsed on one side only, no later fold sees x * (1/x) either.
  if (self_division || int_isinf) return Tensor::binary(Op::Mul, num, recip);
  return folded_binary(Op::Mul, num, recip);
}

namespace {

// A weakint constant tinygrad's Tensor holds as a CONST: a Python int, or a weakint 0-d tensor of
// constants. An op over two of them folds when the Tensor is made (Python's arithmetic, cdiv: Tensor(5) // 0
// is 0); a bool constant is cast to weakint first, and that CAST reaches the kernel's rewrite.
bool is_weak_const_operand(const Operand& v) {
  if (is_python_int(v)) return true;
  const Tensor* t = std::get_if<Tensor>(&v);
  if (t == nullptr || t->dtype() != DType::WeakInt) return false;
  const Node* n = t->node().get();
  while (n->op == Op::Reshape || n->op == Op::Expand) n = n->src[0].get();
  return n->op == Op::Const;
}

// An int `a // b` or `a % b`, refused where tinygrad's rewrite raises on it.
Tensor int_divmod(Op op, const Operand& a, const Operand& b) {
  Pair p = broadcasted(a, b);
  if (!(is_weak_const_operand(a) && is_weak_const_operand(b))) refuse_weak_divmod_by_zero(op, p.a, p.b);
  if (std::optional<Tensor> r = divmod_exact_int(op, p.a, p.b)) return *r;
  return folded_binary(op, p.a, p.b);
}

}  // namespace

Tensor floordiv(const Operand& a, const Operand& b, const Defaults& defaults) {
  DType d = least_upper_dtype(operand_dtype(a), operand_dtype(b));
  // tinygrad's div(rounding_mode="floor"): ints use FLOORDIV; floats and bools (bool is no int)
  // divide as floats and floor.
  if (is_float(d) || d == DType::Bool) return floor(div(a, b, defaults));
  return int_divmod(Op::FloorDiv, a, b);
}

Tensor mod(const Operand& a, const Operand& b, const Defaults& defaults) {
  DType d = least_upper_dtype(operand_dtype(a), operand_dtype(b));
  if (is_float(d) || d == DType::Bool) {  // tinygrad: a - a.div(b, rounding_mode="floor") * b
    Pair p = broadcasted(a, b);
    // x%x -> 0, in the float the composition gives (a bool's quotient is the default float);
    // a constant x folds through the composition instead (False % False is nan).
    const Node* base = p.a.node().get();
    while (base->op == Op::Reshape || base->op == Op::Expand) base = base->src[0].get();
    if (p.a.node() == p.b.node() && base->op != Op::Const)
      return Tensor::full(p.a.shape(), Scalar::from_float(0.0), d == DType::Bool ? defaults.float_dtype : p.a.dtype());
    return sub(p.a, mul(floor(div(a, b, defaults)), p.b));
  }
  return int_divmod(Op::Mod, a, b);
}

namespace {
// Whether one side is a Python int the other side's dtype cannot hold (uint8 and -1).
bool int_out_of_range(const Operand& a, const Operand& b) {
  DType d = least_upper_dtype(operand_dtype(a), operand_dtype(b));
  for (const Operand* side : {&a, &b})
    if (is_python_int(*side) && !int_fits(std::get<Scalar>(*side), d)) return true;
  return false;
}
}  // namespace

// With a Python int out of the dtype's range, the comparison under max/min is made on the
// exact values (cmp_lt widens), and the winner is then cast as where() casts it: uint8
// maximum(-1) keeps x, maximum(300) gives 300 wrapped to 44 everywhere.
namespace {
// symbolic.py: max(x, y) is x when x.vmin >= y.vmax, y when x.vmax <= y.vmin (min mirrored); it
// differs from computing `r` (a MAX or MIN node) only where a side's bounds leave its dtype's range
// (uint32 `x.neg().maximum(0)` is 0 for every x: tinygrad bounds the negation without its wrap).
// A float's tie goes to the other side: its max and min are clip's strict x < y.
Tensor extreme_from_bounds(const Tensor& r) {
  const Node* n = r.node().get();
  if ((n->op != Op::Max && n->op != Op::Min) || n->dtype == DType::WeakInt) return r;
  const Tensor x(n->src[0]), y(n->src[1]);
  if (!unsound_bounds(x) && !unsound_bounds(y)) return r;
  const RewriteBounds bx = rewrite_bounds(x), by = rewrite_bounds(y);
  const bool ints = is_int(n->dtype);
  if (n->op == Op::Max) {
    if (bx.lo >= by.hi) return x;
    if (bx.hi < by.lo || (bx.hi == by.lo && ints)) return y;
  } else {
    if (bx.hi <= by.lo) return x;
    if (bx.lo > by.hi || (bx.lo == by.hi && ints)) return y;
  }
  return r;
}
}  // namespace

Tensor maximum(const Operand& a, const Operand& b) {
  if (int_out_of_range(a, b)) return where(cmp_lt(a, b), b, a);
  return extreme_from_bounds(binop(Op::Max, a, b));
}
Tensor minimum(const Operand& a, const Operand& b) {
  if (int_out_of_range(a, b)) return where(cmp_lt(b, a), b, a);
  return extreme_from_bounds(binop(Op::Min, a, b));
}

namespace {
Tensor bitwise(Op op, const char* name, const Operand& a, const Operand& b) {
  DType d = least_upper_dtype(operand_dtype(a), operand_dtype(b));
  if (is_float(d)) {
    // tinygrad raises only when a kernel runs (its verifier rejects the op): a result with
    // no elements runs none, and is an empty tensor of the promoted dtype until a kernel
    // with elements reads it (a reduction, a pad, a cat: realize/schedule.cpp).
    const std::string why =
        std::string("unsupported operand dtype for ") + name + ": " + std::string(dtype_info(d).name);
    Pair p = broadcasted(a, b);
    if (p.a.numel() != 0) expr_error(why);
    auto unrunnable = std::make_shared<Producer>();
    unrunnable->label = "unrunnable " + std::string(name);
    unrunnable->fill = [](std::span<std::byte>) {};  // no elements
    unrunnable->unrunnable = why + " (tinygrad raises once a kernel with elements reads it)";
    return Tensor::from_producer(std::move(unrunnable), d, p.a.shape());
  }
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
  if (const Tensor* t = std::get_if<Tensor>(&cond); t != nullptr && t->dtype() != DType::Bool)
    expr_error("where() condition must be bool, got " + std::string(dtype_info(t->dtype()).name) + " (as in tinygrad)");
  Tensor c = to_tensor(cond, DType::Bool);
  DType d = least_upper_dtype(operand_dtype(a), operand_dtype(b));
  Tensor ta = to_tensor(a, d), tb = to_tensor(b, d);
  Shape s = broadcast_shape(broadcast_shape(c.shape(), ta.shape()), tb.shape());
  return Tensor::where(broadcast_to(c, s), broadcast_to(ta, s), broadcast_to(tb, s));
}

Tensor clip(const Tensor& t, const std::optional<Operand>& lo, const std::optional<Operand>& hi) {
  Tensor r = t;
  // tinygrad's clamp: two wheres (mixin/elementwise.py), over xpow's float (power.cpp) and a pad's exact int
  if (!is_float(t.dtype()) && (int_power_as_float(t) || pad_region::splits(t))) {
    if (lo) r = where(cmp_lt(r, *lo), *lo, r);
    return hi ? where(cmp_gt(r, *hi), *hi, r) : r;
  }
  if (lo) r = maximum(r, *lo);
  if (hi) r = minimum(r, *hi);
  return r;
}

}  // namespace tensor_inspect::tg
