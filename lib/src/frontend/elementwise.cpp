// tinygrad's element-wise unary ops (composed as tinygrad composes them, so results round
// the same way: exp = exp2(x / ln 2), cos = sin(pi/2 - x)), casts and bitcasts, and the
// tril/triu masks.
#include <cmath>
#include <limits>
#include <numbers>

#include "internal.hpp"

namespace tensor_inspect::tg {

using namespace detail;

namespace {


// Float dtype a transcendental op computes in, and the dtype its result is cast back to:
// ints -> least_upper_float; floats compute in their own dtype (each step rounded to it),
// except where tinygrad casts up: exp and cos compute 16-bit and 8-bit floats in float32
// (`self.cast(least_upper_dtype(self.dtype, dtypes.float32))`, mixin/elementwise.py) and round back.
struct FloatPlan {
  DType compute, result;
};
FloatPlan float_plan(DType d, const Defaults& defaults, bool upcast) {
  if (!is_float(d)) {
    DType f = least_upper_float(d, defaults);
    return {upcast ? least_upper_dtype(f, DType::Float32) : f, f};
  }
  if (upcast) return {least_upper_dtype(d, DType::Float32), d};
  return {d, d};
}

Tensor float_unary(const Tensor& t, const Defaults& defaults, const std::function<Tensor(const Tensor&)>& f,
                   bool upcast = false) {
  FloatPlan plan = float_plan(t.dtype(), defaults, upcast);
  return cast_to(f(cast_to(t, plan.compute)), plan.result);
}

}  // namespace

// ------------------------------------------------------------------------------- unary

Tensor logical_not(const Tensor& t) {
  return Tensor::binary(Op::CmpNe, cast_to(t, DType::Bool),
                        Tensor::full(t.shape(), Scalar::from_bool(true), DType::Bool));
}

Tensor neg(const Tensor& t) {
  if (t.dtype() == DType::Bool) return logical_not(t);
  return t.unary(Op::Neg);
}

Tensor invert(const Tensor& t) {
  if (t.dtype() == DType::Bool) return logical_not(t);
  if (is_float(t.dtype()))
    expr_error("operand of ~ must be an int or bool tensor, got " + std::string(dtype_info(t.dtype()).name));
  return bitwise_xor(t, Scalar::from_int(-1));
}

Tensor abs(const Tensor& t) {
  if (t.dtype() == DType::Bool) return t;
  const Node* base = t.node().get();
  while (base->op == Op::Reshape || base->op == Op::Expand) base = base->src[0].get();
  // A constant keeps its unwrapped int (tensor/const_fold.hpp): uint64 -5 folds through
  // tinygrad's x * x.sign() to 5.
  if (base->op == Op::Const) return mul(t, sign(t));
  // tinygrad's abs is x * x.sign() (mixin/elementwise.py): over an int power of two tensors the
  // sign stays an int, whose product with xpow's float fails tinygrad's verifier (power.cpp).
  if (!is_float(t.dtype()) && int_power_as_float(t)) return mul(t, sign(t));
  if (is_unsigned(t.dtype())) return t;
  return where(cmp_lt(t, Scalar::from_int(0)), neg(t), t);
}

namespace {
// The x of a float relu's (0 < x).where(x, 0), or of a MAX(x, 0), under reshapes, expands, flips
// and permutes (moved as t is); nullopt for anything else.
std::optional<Tensor> float_relu_source(const Tensor& t) {
  if (!is_float(t.dtype())) return std::nullopt;
  std::vector<const Node*> moves;  // outermost first
  const Node* n = peel_moves(t, moves, false);
  auto moved = [&moves](const NodePtr& x) { return moved_like(moves, Tensor(x)); };
  auto zero = [](const NodePtr& c) {
    const std::optional<Scalar> v = const_value(Tensor(c));
    return v && v->as_double() == 0;
  };
  if (n->op == Op::Max && zero(n->src[1])) return moved(n->src[0]);
  if (n->op != Op::Where || n->src[0]->op != Op::CmpLt) return std::nullopt;
  const Node* cmp = n->src[0].get();
  if (cmp->src[1] != n->src[1] || !zero(cmp->src[0]) || !zero(n->src[2])) return std::nullopt;
  return moved(n->src[1]);
}
}  // namespace

Tensor relu(const Tensor& t) {
  // symbolic's "max folding" makes (0 < x).where(x, 0) MAX(0, x), which folds to x from bounds that
  // ignore a wrap (maximum, promotion.cpp): int8 -1 cast from a uint16 65535 stays -1
  if (unsound_bounds(t)) return maximum(t, Scalar::from_int(0));
  // A relu of a float relu is MAX(0, MAX(0, x)), which "two stage ALU folding" (uop/symbolic.py,
  // MAX associative) regroups as MAX(x, MAX(0, 0)): DEV=PYTHON's max(x, 0) keeps a nan x, where
  // one relu's max(0, nan) is 0.
  if (std::optional<Tensor> x = float_relu_source(t)) return maximum(*x, Scalar::from_int(0));
  return where(cmp_gt(t, Scalar::from_int(0)), t, Scalar::from_int(0));
}

Tensor exp2(const Tensor& t, const Defaults& defaults) {
  return float_unary(t, defaults, [](const Tensor& x) { return x.unary(Op::Exp2); });
}
Tensor exp(const Tensor& t, const Defaults& defaults) {
  return float_unary(t, defaults, [](const Tensor& x) {
    return mul(x, Scalar::from_float(1.0 / std::numbers::ln2)).unary(Op::Exp2);
  }, true);
}
Tensor log2(const Tensor& t, const Defaults& defaults) {
  return float_unary(t, defaults, [](const Tensor& x) { return x.unary(Op::Log2); });
}
Tensor log(const Tensor& t, const Defaults& defaults) {
  return float_unary(t, defaults,
                     [](const Tensor& x) { return mul(x.unary(Op::Log2), Scalar::from_float(std::numbers::ln2)); });
}
Tensor sqrt(const Tensor& t, const Defaults& defaults) {
  return float_unary(t, defaults, [](const Tensor& x) { return x.unary(Op::Sqrt); });
}
Tensor reciprocal(const Tensor& t, const Defaults& defaults) {
  // an int's RECIPROCAL takes the int op itself (reassociate.cpp), not a CAST of it
  const bool int_op = is_int(t.dtype()) && !is_weak(t.dtype());
  return float_unary(t, defaults, [&t, int_op](const Tensor& x) {
    return int_op ? int_reciprocal(t, x.dtype()) : rewritten_reciprocal(x);
  });
}
Tensor rsqrt(const Tensor& t, const Defaults& defaults) {
  return float_unary(t, defaults, [](const Tensor& x) { return x.unary(Op::Sqrt).unary(Op::Recip); });
}
Tensor sin(const Tensor& t, const Defaults& defaults) {
  return float_unary(t, defaults, [](const Tensor& x) { return x.unary(Op::Sin); });
}
Tensor cos(const Tensor& t, const Defaults& defaults) {
  // tinygrad: cos(x) = sin(pi/2 - x). Of a concrete constant 1, pi/2 - x is pi/2 + x * -1, whose
  // x * -1 symbolic's "x*1 -> x" turns into the weak -1, so cos(1) folds in double
  // (weak_const_fold.cpp).
  return float_unary(
      t, defaults, [](const Tensor& x) { return sub(Scalar::from_float(std::numbers::pi / 2), x).unary(Op::Sin); },
      true);
}
Tensor tan(const Tensor& t, const Defaults& defaults) {
  return float_unary(t, defaults,
                     [&defaults](const Tensor& x) { return div(sin(x, defaults), cos(x, defaults), defaults); });
}
Tensor sigmoid(const Tensor& t, const Defaults& defaults) {
  // tinygrad: (1 + (x * (-1/ln 2)).exp2()).reciprocal(), each step in the dtype the
  // promotion gives (float16 stays float16: no cast up, unlike exp).
  Tensor m = mul(t, Scalar::from_float(-1.0 / std::numbers::ln2));
  return reciprocal(add(Scalar::from_int(1), exp2(m, defaults)), defaults);
}
Tensor tanh(const Tensor& t, const Defaults& defaults) {
  // tinygrad: 2.0 * (2.0 * x).sigmoid() - 1.0
  return sub(mul(Scalar::from_float(2.0), sigmoid(mul(Scalar::from_float(2.0), t), defaults)), Scalar::from_float(1.0));
}

Tensor trunc(const Tensor& t) { return is_float(t.dtype()) ? t.unary(Op::Trunc) : t; }
// tinygrad: floor = (x < (b := x.trunc())).where(b - 1, b) and ceil = (x > b).where(b + 1, b);
// trunc of an int or bool is x itself, so an int keeps its dtype, and a bool becomes the
// weak int of `b - 1` (int32 at data()).
Tensor floor(const Tensor& t) {
  if (t.dtype() == DType::Bool) return cast_to(t, least_upper_dtype(DType::Bool, DType::WeakInt));
  if (!is_float(t.dtype())) return t;
  Tensor r = t.unary(Op::Trunc);
  return where(cmp_gt(r, t), sub(r, Scalar::from_int(1)), r);
}
Tensor ceil(const Tensor& t) {
  if (t.dtype() == DType::Bool) return cast_to(t, least_upper_dtype(DType::Bool, DType::WeakInt));
  if (!is_float(t.dtype())) return t;
  Tensor r = t.unary(Op::Trunc);
  return where(cmp_lt(r, t), add(r, Scalar::from_int(1)), r);
}
Tensor round(const Tensor& t) {
  // Half to even as tinygrad composes it (mixin/elementwise.py), with its roundings:
  // ((x > 0) == ((b := x.trunc() / 2.0).trunc() == b)).where((x - 0.5).ceil(), (x + 0.5).floor()).
  // An int or bool tensor goes through `/ 2.0`, so its round is a (weak) float.
  Tensor b = div(trunc(t), Scalar::from_float(2.0));
  Tensor even = cmp_eq(cmp_gt(t, Scalar::from_int(0)), cmp_eq(trunc(b), b));
  return where(even, ceil(sub(t, Scalar::from_float(0.5))), floor(add(t, Scalar::from_float(0.5))));
}
Tensor sign(const Tensor& t) {
  Tensor s = where(cmp_lt(t, Scalar::from_int(0)), Scalar::from_int(-1), Scalar::from_int(1));
  return cast_to(where(cmp_ne(t, Scalar::from_int(0)), s, Scalar::from_int(0)), t.dtype());
}
Tensor square(const Tensor& t) { return mul(t, t); }

Tensor isnan(const Tensor& t) { return cmp_ne(t, t); }

namespace {
constexpr const char* kIntIsinf = "isinf of an int";
}  // namespace

bool detail::is_int_isinf(const Node* n) {
  return n->op == Op::Producer && std::get<std::shared_ptr<const Producer>>(n->arg)->label == kIntIsinf;
}

Tensor isinf(const Tensor& t, bool detect_positive, bool detect_negative) {
  // tinygrad: (x == inf) * detect_positive + (x == -inf) * detect_negative, in bool.
  // An int or bool is never inf: tinygrad's kernel rewrite folds both comparisons to False by
  // the int's bounds (uop/symbolic.py), so nothing under them runs (a cast of a nan to the int
  // raises no more). Its Tensor graph holds no constant: no tensor-level fold sees one here.
  // Over an int power of two tensors (and the int ops above it) the value is xpow's float, which
  // may be inf: compared as it is.
  if (!is_float(t.dtype()) && !const_value(t) && !int_power_as_float(t))  // a constant's fold as they are
    return produced(t.shape(), DType::Bool, kIntIsinf, [](std::int64_t) { return Scalar::from_bool(false); },
                    "isinf-of-int");
  const double inf = std::numeric_limits<double>::infinity();
  Tensor pos = cmp_eq(t, Scalar::from_float(inf)), neg_inf = cmp_eq(t, Scalar::from_float(-inf));
  if (detect_positive && detect_negative) return bitwise_or(pos, neg_inf);
  if (detect_positive) return pos;
  if (detect_negative) return neg_inf;
  return Tensor::full(t.shape(), Scalar::from_bool(false), DType::Bool);
}

Tensor isfinite(const Tensor& t) { return logical_not(bitwise_or(isinf(t), isnan(t))); }

// ------------------------------------------------------------------------------- dtype

namespace {
// The CONST branch of a WHERE cast to d as tinygrad's "push cast to branches" (uop/symbolic.py
// sym) and commit_weak (uop/weak.py: "a CONST commits directly at dt (the value stays mathematical,
// emission truncates)") make it, when that differs from the wrapped cast: a float truncated past
// an int d's range (float32 -5.0 to uint32 stays -5, cast back to float32 -5.0), or an unwrapped
// int const cast to a float; nullopt otherwise.
std::optional<Scalar> exact_branch(const Tensor& s, DType from, DType d) {
  const std::optional<Scalar> v = const_value(s);
  if (!v) return std::nullopt;
  if (is_int(d) && v->kind == DKind::Float && std::isfinite(v->f) && std::fabs(v->f) < 9.0e18) {
    const Scalar i = Scalar::from_int(static_cast<std::int64_t>(std::trunc(v->f)));
    if (!int_fits(i, d)) return i;
  }
  if (is_float(d) && is_int(from) && v->kind != DKind::Float && v->kind != DKind::Bool && !int_fits(*v, from))
    return Scalar::from_float(v->as_double());
  return std::nullopt;
}
}  // namespace

std::optional<Tensor> detail::cast_into_where(const Tensor& t, DType d) {
  if (is_weak(d) || d == DType::Bool || is_weak(t.dtype()) || t.node()->op != Op::Where) return std::nullopt;
  const Node* n = t.node().get();
  const Tensor a(n->src[1]), b(n->src[2]);
  const std::optional<Scalar> ea = exact_branch(a, t.dtype(), d), eb = exact_branch(b, t.dtype(), d);
  if (!ea && !eb) return std::nullopt;
  return Tensor::where(Tensor(n->src[0]), ea ? Tensor::full(t.shape(), *ea, d) : cast_to(a, d),
                       eb ? Tensor::full(t.shape(), *eb, d) : cast_to(b, d));
}

Tensor cast(const Tensor& t, DType dtype) {
  if (is_weak(dtype))
    expr_error("cast target must be a concrete dtype, got dtypes." + std::string(dtype_info(dtype).name));
  return cast_to(t, dtype);
}

Tensor bitcast(const Tensor& t, DType dtype) {
  if (is_weak(t.dtype()) || is_weak(dtype))
    expr_error("bitcast requires concrete dtypes, got dtypes." + std::string(dtype_info(t.dtype()).name) +
               " -> dtypes." + std::string(dtype_info(dtype).name));
  if (t.dtype() == dtype) return t;
  std::int64_t old_size = dtype_info(t.dtype()).itemsize, new_size = dtype_info(dtype).itemsize;
  if (old_size != new_size && (t.ndim() == 0 || (t.shape().back() * old_size) % new_size != 0))
    shape_error("unsupported size in bitcast: " + shape_repr(t.shape()) + " " +
                std::string(dtype_info(t.dtype()).name) + " to " + std::string(dtype_info(dtype).name));
  return t.bitcast(dtype);
}


Tensor tril(const Tensor& t, std::int64_t diagonal, bool upper) {
  if (t.ndim() < 2)
    shape_error(std::string(upper ? "triu" : "tril") + " needs at least 2 dimensions, got " + shape_repr(t.shape()));
  const std::int64_t rows = t.shape()[t.ndim() - 2], cols = t.shape()[t.ndim() - 1];
  Tensor keep = produced(
      {rows, cols}, DType::Bool, upper ? "triu" : "tril",
      [cols, diagonal, upper](std::int64_t k) {
        const std::int64_t i = k / cols, j = k % cols;
        return Scalar::from_bool(upper ? j - i >= diagonal : j - i <= diagonal);
      },
      std::string(upper ? "triu " : "tril ") + std::to_string(rows) + " " + std::to_string(cols) + " " +
          std::to_string(diagonal));
  // tinygrad/mixin/op.py triu/tril: _tri(...).where(self, self.const_like(0)), a zero of t's own dtype (False for
  // bool).
  return where(keep, t, t.dtype() == DType::Bool ? Scalar::from_bool(false) : Scalar::from_int(0));
}

}  // namespace tensor_inspect::tg
