// An int `a // b` or `a % b` where one side is a constant the dtype cannot hold (uint8 `x // 300`,
// uint32 `x % -128`, int8 `200 // x`): tinygrad keeps the CONST's exact Python int, reasons on it, and
// only the emitted op takes it wrapped to the dtype (the weak CONST reaches the kernel under a CAST,
// which wraps). Measured on DEV=PYTHON at a9069c1, in this order:
// - symbolic (tinygrad/uop/symbolic.py): a FLOORDIV/FLOORMOD whose bounds (UOp._min_max, exact
//   divisor) are one value is that CONST ("ALU/variable min==max -> CONST"): uint8 `x // 300` is 0,
//   `x % -1` is 0; `x // -1` is `-x` ("x//-1 -> -x");
// - a divisor 2**k (codegen/decomp/op.py, get_simplifying_rewrite_patterns) is a shift, `x >> k`,
//   and its mod `x & (2**k - 1)`: exact, so int8 `-128 // 128` is -1;
// - otherwise floordiv_to_idiv and floormod_to_mod (same file): a truncating CDIV/CMOD by the wrapped
//   value, corrected where `(a < 0) != (b < 0)`, the constant's sign its exact value's, the tensor's
//   computed; the uncorrected op where the bounds put both on one side of 0. uint64 `x // -128` is
//   `cdiv(x, 2**64 - 128) - (cmod(x, 2**64 - 128) != 0)`: 0 for 2**64 - 1, 2**64 - 1 for 1.
#include <cmath>

#include "internal.hpp"

namespace tensor_inspect::tg::detail {

namespace {

using Wide = Scalar::Wide;

// The exact value of a constant under movement ops (a weak int cast to the dtype keeps its value,
// as tinygrad's weak CONST does), or nullopt.
std::optional<Wide> exact_int_const(const Tensor& t) {
  const Node* n = t.node().get();
  while (n->op == Op::Reshape || n->op == Op::Expand || n->op == Op::Permute || n->op == Op::Shrink ||
         n->op == Op::Flip)
    n = n->src[0].get();
  if (n->op == Op::Cast && n->src[0]->op == Op::Const && n->src[0]->dtype == DType::WeakInt) n = n->src[0].get();
  if (n->op != Op::Const) return std::nullopt;
  const Scalar& v = std::get<Scalar>(n->arg);
  if (v.kind != DKind::Signed && v.kind != DKind::Unsigned) return std::nullopt;
  return v.as_wide();
}

// One operand: the tensor the kernel computes with (a constant wrapped to the dtype), tinygrad's
// bounds of it, and the sign of a constant (exact: `b < 0` folds on the CONST). A tensor's `x < 0`
// is computed on the wrapped value, even where its bounds decide it (measured: uint64 `x < 0` runs
// in the kernel of `x // -128`; int8 `(x.relu() + 3) // -129` of 127 is 0, as 130 wraps to -126).
struct Side {
  Tensor t;
  long double lo, hi;
  std::optional<bool> negative;
};

Side side_of(const Tensor& t, DType d, std::optional<Wide> c) {
  if (c) {
    const long double v = static_cast<long double>(*c);
    return {Tensor::full(t.shape(), cast_scalar(Scalar::from_wide(*c), d), d), v, v, *c < 0};
  }
  const RewriteBounds b = rewrite_bounds(t);
  return {t, b.lo, b.hi, std::nullopt};
}

Tensor filled_int(const Tensor& like, DType d, Wide v) { return Tensor::full(like.shape(), Scalar::from_wide(v), d); }

Tensor negative_of(const Side& s, DType d) {
  if (s.negative) return Tensor::full(s.t.shape(), Scalar::from_bool(*s.negative), DType::Bool);
  return Tensor::binary(Op::CmpLt, s.t, filled_int(s.t, d, 0));
}

bool is_power_of_two(Wide c) { return c > 0 && (c & (c - 1)) == 0 && c <= (Wide{1} << 63); }

}  // namespace

std::optional<Tensor> divmod_exact_int(Op op, const Tensor& a, const Tensor& b) {
  const DType d = a.dtype();
  if (!is_int(d) || is_weak(d) || d == DType::Bool) return std::nullopt;
  const std::optional<Wide> ca = exact_int_const(a), cb = exact_int_const(b);
  if (ca.has_value() == cb.has_value()) return std::nullopt;
  const Wide c = ca ? *ca : *cb;
  if (int_fits(Scalar::from_wide(c), d)) return std::nullopt;
  // symbolic: bounds of one value fold, on the exact constant
  const RewriteBounds whole = rewrite_bounds(Tensor::binary(op, a, b));
  if (whole.lo == whole.hi && std::isfinite(whole.lo)) return filled_int(a, d, static_cast<Wide>(whole.lo));
  if (cb && op == Op::FloorDiv && c == -1) return neg(a);
  if (cb && is_power_of_two(c)) {  // x >> k, x & (2**k - 1), both exact: the dtype's width is below k here
    if (op == Op::Mod)
      return Tensor::binary(Op::And, a, Tensor::full(a.shape(), cast_scalar(Scalar::from_wide(c - 1), d), d));
    if (dtype_info(d).kind == DKind::Unsigned) return filled_int(a, d, 0);
    return Tensor::where(Tensor::binary(Op::CmpLt, a, filled_int(a, d, 0)), filled_int(a, d, -1), filled_int(a, d, 0));
  }
  const Side x = side_of(a, d, ca), y = side_of(b, d, cb);
  const Tensor q = Tensor::binary(Op::Div, x.t, y.t);  // an int Div truncates: tinygrad's CDIV (0 by 0)
  const Tensor r = Tensor::binary(Op::Sub, x.t, Tensor::binary(Op::Mul, q, y.t));  // CMOD, exact in the dtype
  const bool fast = (x.lo >= 0 && y.lo > 0) || (x.hi <= 0 && y.hi < 0);
  if (fast) return op == Op::FloorDiv ? q : r;
  const Tensor signs = Tensor::binary(Op::CmpNe, negative_of(x, d), negative_of(y, d));  // one is a CONST
  const Tensor fix = Tensor::binary(Op::And, Tensor::binary(Op::CmpNe, r, filled_int(r, d, 0)), signs);
  if (op == Op::FloorDiv) return Tensor::binary(Op::Sub, q, fix.cast(d));
  return Tensor::binary(Op::Add, r, Tensor::where(fix, y.t, filled_int(r, d, 0)));
}

}  // namespace tensor_inspect::tg::detail
