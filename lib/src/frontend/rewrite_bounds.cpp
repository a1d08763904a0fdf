// The bounds tinygrad's symbolic rewrite gives a value (UOp._min_max, tinygrad/uop/ops.py), computed
// on our graph, and whether the rewrite sees it as a CONST. They decide when tinygrad's int division
// rewrite raises (tinygrad/uop/divandmod.py, fold_divmod_general), which it does for every weakint
// FLOORDIV/FLOORMOD it meets in a kernel, constants included:
// - a divisor whose bounds are [0, 0]: `ZeroDivisionError: Division by zero trying to rewrite`;
// - a numerator that is the CONST 0 over a divisor whose bounds hold 0 or straddle it: `x // y` is then
//   not constant, and the gcd step (UOp.gcd, ops.py) takes `0 % 0` of the numerator's const factor 0
//   (`ZeroDivisionError: integer modulo by zero`).
// A comparison, FLOORDIV or FLOORMOD whose bounds are one value is a CONST for the rewrite
// (symbolic.py, "ALU/variable min==max -> CONST"); a WHERE with a CONST gate is its branch
// (fold_const_where); a REDUCE of a CONST is collapsed (codegen pm_reduce_unparented).
#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "internal.hpp"

namespace tensor_inspect::tg::detail {

namespace {

using LD = long double;
constexpr LD kRbInf = std::numeric_limits<LD>::infinity();

RewriteBounds rb_of(LD lo, LD hi, bool is_const = false) { return RewriteBounds{lo, hi, is_const}; }

// dtype.min, dtype.max (a float's are -inf, inf; a weakint is unbounded).
RewriteBounds rb_dtype_range(DType d) {
  if (d == DType::Bool) return rb_of(0, 1);
  if (d == DType::WeakInt || is_float(d)) return rb_of(-kRbInf, kRbInf);
  const DTypeInfo& info = dtype_info(d);
  const LD top = std::ldexp(LD{1}, info.bits - (info.kind == DKind::Signed ? 1 : 0));
  return info.kind == DKind::Signed ? rb_of(-top, top - 1) : rb_of(0, top - 1);
}

LD rb_scalar(const Scalar& s) { return s.kind == DKind::Float ? static_cast<LD>(s.f) : static_cast<LD>(s.as_wide()); }

bool rb_one(const RewriteBounds& b) { return b.lo == b.hi; }
bool rb_finite(const RewriteBounds& b) { return std::isfinite(b.lo) && std::isfinite(b.hi); }

// A value the rewrite turns into a CONST when its bounds are one value.
RewriteBounds rb_folding(LD lo, LD hi) { return rb_of(lo, hi, lo == hi); }

RewriteBounds rb_cast(const RewriteBounds& s, DType to) {
  LD lo = s.lo, hi = s.hi;
  if (to == DType::Bool) return s.is_const ? rb_of(lo != 0, lo != 0, true) : rb_dtype_range(to);
  if (is_int(to) && std::isfinite(lo) && std::isfinite(hi)) lo = std::trunc(lo), hi = std::trunc(hi);
  const RewriteBounds r = rb_dtype_range(to);
  if (is_int(to) && !is_weak(to) && dtype_info(to).kind == DKind::Unsigned)
    return 0 <= lo && hi <= r.hi ? rb_of(lo, hi, s.is_const) : r;
  return rb_of(std::max(r.lo, lo), std::min(hi, r.hi), s.is_const);
}

RewriteBounds rb_binary(Op op, DType out, const RewriteBounds& a, const RewriteBounds& b) {
  const bool consts = a.is_const && b.is_const;
  switch (op) {
    case Op::CmpLt: return rb_folding(a.hi < b.lo, a.lo < b.hi);
    case Op::CmpLe: return rb_folding(1 - (b.lo < a.hi), 1 - (b.hi < a.lo));  // (b < a).logical_not()
    case Op::CmpNe: return rb_folding((a.hi < b.lo) || (b.hi < a.lo), !(rb_one(a) && rb_one(b) && a.lo == b.lo));
    case Op::CmpEq: return rb_folding(rb_one(a) && rb_one(b) && a.lo == b.lo, !((a.hi < b.lo) || (b.hi < a.lo)));
    default: break;
  }
  // (an op over two constants has been folded by Tensor::binary already)
  if (is_float(out) || out == DType::Bool || !rb_finite(a) || !rb_finite(b)) return rb_dtype_range(out);
  switch (op) {
    case Op::Add: return rb_of(a.lo + b.lo, a.hi + b.hi, consts);
    case Op::Sub: return rb_of(a.lo - b.hi, a.hi - b.lo, consts);
    case Op::Mul: {
      const LD v[] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
      return rb_of(*std::min_element(v, v + 4), *std::max_element(v, v + 4), consts);
    }
    case Op::Max: return rb_of(std::max(a.lo, b.lo), std::max(a.hi, b.hi), consts);
    case Op::Min: return rb_of(std::min(a.lo, b.lo), std::min(a.hi, b.hi), consts);
    case Op::FloorDiv:
      if (b.lo * b.hi > 0) {
        const LD v[] = {std::floor(a.lo / b.lo), std::floor(a.lo / b.hi), std::floor(a.hi / b.lo),
                        std::floor(a.hi / b.hi)};
        return rb_folding(*std::min_element(v, v + 4), *std::max_element(v, v + 4));
      }
      break;
    case Op::Mod:
      if (b.lo == b.hi && b.lo != 0) {  // a constant divisor: the numerator's bounds modulo it, if one period
        const LD c = b.lo, qlo = std::floor(a.lo / c), qhi = std::floor(a.hi / c);
        if (qlo == qhi) return rb_folding(a.lo - qlo * c, a.hi - qhi * c);
        return c > 0 ? rb_folding(0, c - 1) : rb_folding(c + 1, 0);
      }
      if (b.lo > 0) return rb_folding(0, b.hi - 1);
      if (b.hi < 0) return rb_folding(b.lo + 1, 0);
      break;
    default: break;
  }
  return rb_dtype_range(out);
}

// Memoized per query: a graph shares nodes (compositions reuse their input), so a walk without it
// could visit a node exponentially often.
using RbMemo = std::unordered_map<const Node*, RewriteBounds>;
RewriteBounds rb_compute(const Node* n, RbMemo& memo);

RewriteBounds rb_node(const Node* n, RbMemo& memo) {
  if (auto it = memo.find(n); it != memo.end()) return it->second;
  const RewriteBounds b = rb_compute(n, memo);
  memo.emplace(n, b);
  return b;
}

RewriteBounds rb_compute(const Node* n, RbMemo& memo) {
  switch (n->op) {
    case Op::Const: {
      const LD v = rb_scalar(std::get<Scalar>(n->arg));
      return rb_of(v, v, true);
    }
    case Op::Reshape: case Op::Expand: case Op::Permute: case Op::Shrink: case Op::Flip: case Op::Contiguous:
      return rb_node(n->src[0].get(), memo);
    case Op::Pad: {  // a zero pad: the padded region holds 0
      const RewriteBounds s = rb_node(n->src[0].get(), memo);
      return rb_of(std::min(s.lo, LD{0}), std::max(s.hi, LD{0}));
    }
    case Op::Cast: return rb_cast(rb_node(n->src[0].get(), memo), n->dtype);
    case Op::Not:
      if (n->dtype == DType::Bool) {
        const RewriteBounds s = rb_node(n->src[0].get(), memo);
        return rb_of(1 - s.hi, 1 - s.lo, s.is_const);
      }
      break;
    case Op::Neg:
      if (is_int(n->dtype)) {
        const RewriteBounds s = rb_node(n->src[0].get(), memo);
        return rb_of(-s.hi, -s.lo, s.is_const);
      }
      break;
    case Op::Where: {
      const RewriteBounds c = rb_node(n->src[0].get(), memo);
      if (c.is_const) return rb_node(n->src[c.lo != 0 ? 1 : 2].get(), memo);
      if (!is_int(n->dtype)) break;
      const RewriteBounds a = rb_node(n->src[1].get(), memo), b = rb_node(n->src[2].get(), memo);
      // symbolic's "max folding": (c < x).where(x, c) and (x < c).where(c, x) are MAX(x, c) (relu)
      if (const Node* cmp = n->src[0].get(); cmp->op == Op::CmpLt) {
        const RewriteBounds l = rb_node(cmp->src[0].get(), memo), r = rb_node(cmp->src[1].get(), memo);
        if (cmp->src[1] == n->src[1] && l.is_const && b.is_const && l.lo == b.lo)
          return rb_of(std::max(l.lo, a.lo), std::max(l.hi, a.hi));
        if (cmp->src[0] == n->src[2] && r.is_const && a.is_const && r.lo == a.lo)
          return rb_of(std::max(r.lo, b.lo), std::max(r.hi, b.hi));
      }
      return rb_of(std::min(a.lo, b.lo), std::max(a.hi, b.hi));
    }
    case Op::ReduceMax: case Op::ReduceMin: {
      const RewriteBounds s = rb_node(n->src[0].get(), memo);
      if (s.is_const) return s;
      break;
    }
    default:
      if (is_binary(n->op))
        return rb_binary(n->op, n->dtype, rb_node(n->src[0].get(), memo), rb_node(n->src[1].get(), memo));
      break;
  }
  return rb_dtype_range(n->dtype);
}

}  // namespace

RewriteBounds rewrite_bounds(const Tensor& t) {
  RbMemo memo;
  return rb_node(t.node().get(), memo);
}

namespace {
// Whether n's bounds rest on a cast to a signed int that wraps where tinygrad's bounds clamp
// (UOp._min_max: max(dtype.min, smin), min(smax, dtype.max)): uint8 200 cast to int8 is -56, bounded
// [0, 127], so `x.cast(dtypes.int8) < 0` folds to False and clip(0, ...) keeps -56. Followed up
// through the nodes whose bounds say more than their dtype's range.
using WrapMemo = std::unordered_map<const Node*, bool>;
bool rb_wrap_ignored(const Node* n, RbMemo& memo, WrapMemo& seen) {
  if (auto it = seen.find(n); it != seen.end()) return it->second;
  const RewriteBounds b = rb_node(n, memo), r = rb_dtype_range(n->dtype);
  bool wraps = false;
  if (b.lo > r.lo || b.hi < r.hi) {
    if (n->op == Op::Cast && is_int(n->dtype) && !is_weak(n->dtype) && dtype_info(n->dtype).kind == DKind::Signed) {
      const RewriteBounds s = rb_node(n->src[0].get(), memo);
      wraps = s.lo < r.lo || s.hi > r.hi;
    }
    for (std::size_t i = 0; !wraps && i < n->src.size(); ++i) wraps = rb_wrap_ignored(n->src[i].get(), memo, seen);
  }
  seen.emplace(n, wraps);
  return wraps;
}
}  // namespace

bool unsound_rewrite_bounds(const Tensor& t) {
  if (!is_int(t.dtype()) || is_weak(t.dtype())) return false;
  RbMemo memo;
  const RewriteBounds b = rb_node(t.node().get(), memo), r = rb_dtype_range(t.dtype());
  if (b.lo < r.lo || b.hi > r.hi) return true;
  WrapMemo seen;
  return rb_wrap_ignored(t.node().get(), memo, seen);
}

bool unsound_bounds(const Tensor& t) {
  const Node* n = t.node().get();
  while (is_movement(n->op) && n->op != Op::Pad) n = n->src[0].get();
  // not over a where (our min and max are tinygrad's clip wheres): its kernel pushes the cast into the
  // branches (symbolic.py sym, "push cast to branches"), and a float WHERE has no bounds
  if (is_float(t.dtype())) {
    if (n->op != Op::Cast) return false;
    const Op s = n->src[0]->op;
    return s != Op::Where && s != Op::Min && s != Op::Max && unsound_rewrite_bounds(Tensor(n->src[0]));
  }
  return unsound_rewrite_bounds(t);
}

void refuse_weak_divmod_by_zero(Op op, const Tensor& a, const Tensor& b) {
  if ((op != Op::FloorDiv && op != Op::Mod) || a.dtype() != DType::WeakInt || a.numel() == 0) return;
  const std::string what = op == Op::Mod ? "modulo" : "division";
  const RewriteBounds x = rewrite_bounds(a), y = rewrite_bounds(b);
  if (y.lo == 0 && y.hi == 0) expr_error(what + " by zero (tinygrad raises where a divisor folds to 0)");
  if (x.is_const && x.lo == 0 && x.hi == 0 && !(y.lo * y.hi > 0))
    expr_error(what + " of a constant 0 by a divisor that may be 0 (tinygrad's rewrite raises: "
               "integer modulo by zero)");
}

}  // namespace tensor_inspect::tg::detail
