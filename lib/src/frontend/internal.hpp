// Helpers shared by the frontend's files (promotion, elementwise, movement, indexing,
// reductions, constructors); not part of the public API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/frontend.hpp"
#include "tensor/pad_region.hpp"

namespace tensor_inspect::tg::detail {

/// Per-axis (begin, end) or nullopt, as shrink and pad take them.
using OptRange = std::optional<std::pair<std::int64_t, std::int64_t>>;

[[noreturn]] inline void shape_error(const std::string& message) { throw Error(ErrorCode::BadShape, message); }
[[noreturn]] inline void expr_error(const std::string& message) { throw Error(ErrorCode::BadExpression, message); }

inline std::size_t uz(std::int64_t v) { return static_cast<std::size_t>(v); }
inline std::int64_t sz(std::size_t v) { return static_cast<std::int64_t>(v); }

inline std::string ints_repr(const std::vector<std::int64_t>& v) { return shape_repr(v); }

/// `t`, a weak float, with its weak subgraph computed at `d` (float64) rather than at the
/// default float (weak_commit.cpp).
Tensor commit_weak_float(const Tensor& t, DType d);
/// `t`, a weak int ALU (bool tensors with Python ints), re-typed at float32 as a uint64 cast commits
/// it (weak_commit.cpp); nullopt for anything else. Throws Error(BadExpression) over a bitwise op.
std::optional<Tensor> commit_weak_int_at_float(const Tensor& t);

/// The float32 value `t` holds when `t` is a float16 cast of one (under reshapes and expands), or
/// nullopt: tinygrad's kernels drop that round trip (codegen/late/coalesce.py,
/// pm_simplify_add_image: `x.cast(half).cast(float) -> x` for a float32 x, run on every kernel),
/// so float32 `x + x.half()` is 2 * x, unrounded (folding.cpp).
std::optional<Tensor> float32_under_half(const Tensor& t);

/// What tinygrad computes for `t` when t is an int or bool power of two tensors (under movement
/// ops): xpow (codegen/decomp/transcendental.py) of the base and exponent as float32, the value
/// a cast or a comparison takes (Tensor([3]) ** Tensor([3]) cast to float is 27.000001907348633
/// there, and cast to an int 27), or nullopt (power.cpp). Stored as an int it raises
/// (realize/schedule.cpp).
std::optional<Tensor> int_power_as_float(const Tensor& t);
/// `t`, an int power of two tensors or an int op over one (as int_power_as_float), cast to `d`, a
/// non-bool int, as tinygrad casts it: the cast pushed into every WHERE branch down to xpow's, each
/// cast for every element, so a nan or inf there refuses as DEV=PYTHON raises (power.cpp); or nullopt.
std::optional<Tensor> int_power_as_int(const Tensor& t, DType d);

/// `t`, a WHERE with a CONST branch, cast to `d` as tinygrad pushes the cast into its branches, when
/// the CONST then keeps a value the cast would wrap (elementwise.cpp); nullopt otherwise.
std::optional<Tensor> cast_into_where(const Tensor& t, DType d);

/// `t` cast to `d`, or `t` itself when it already has that dtype.
inline Tensor cast_to(const Tensor& t, DType d) {
  if (t.dtype() == d) return t;
  if (std::optional<Tensor> w = cast_into_where(t, d)) return *w;
  // A weak int is a promotion's cast (a bool power's `.maximum(2)`), whose op tinygrad folds from the
  // cast's bounds before any branch is evaluated: only a cast the user wrote is pushed.
  if (is_int(d) && d != DType::Bool && !is_weak(d))
    if (std::optional<Tensor> i = int_power_as_int(t, d)) return *i;
  if (std::optional<Tensor> f = int_power_as_float(t)) return cast_to(*f, d);  // an int cast truncates it
  if (d == DType::Float32 && t.dtype() == DType::Float16)
    if (std::optional<Tensor> x = float32_under_half(t)) return *x;
  if (t.dtype() == DType::WeakFloat && d == DType::Float64) return commit_weak_float(t, d);
  if (d == DType::UInt64)
    if (std::optional<Tensor> f = commit_weak_int_at_float(t)) return f->cast(d);
  return t.cast(d);
}

/// Whether a Python int `v` is representable in `d` (always for a float or weak dtype); exact,
/// beyond 64 bits too (promotion.cpp).
bool int_fits(const Scalar& v, DType d);

/// A 0-d constant.
inline Tensor scalar_tensor(const Scalar& v, DType d) { return Tensor::full({}, v, d); }

/// A tensor whose element i (C order) is `value(i)`: computed inside whatever loop reads it,
/// so only the elements used are ever made. A non-empty `key` (the arguments that decide every
/// value) makes the same producer, hence the same graph node, for the same key and dtype.
Tensor produced(const Shape& shape, DType dtype, std::string label, std::function<Scalar(std::int64_t)> value,
                const std::string& key = {});

/// Whether `n` is the isinf of an int (elementwise.cpp): False, which tinygrad's kernel folds from
/// the int's bounds before any rewrite above it sees the comparison, as it folds a CONST.
bool is_int_isinf(const Node* n);

/// Axes (all when nullopt) resolved against t's ndim, sorted and without repeats.
std::vector<std::int64_t> resolve_axes(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes);

/// The node under t's movement ops, which `moves` collects outermost first: reshapes, expands,
/// permutes and flips, and shrinks and pads too when `with_regions` (common.cpp).
const Node* peel_moves(const Tensor& t, std::vector<const Node*>& moves, bool with_regions = true);
/// `x` under the movement ops `moves` (outermost first, as peel_moves collects them), rebuilt over
/// a source of the shape theirs had (their args hold no dtype).
Tensor moved_like(const std::vector<const Node*>& moves, Tensor x);

/// Whether no op tinygrad cannot run (Producer::unrunnable) is below `t` (common.cpp).
bool runnable(const Tensor& t);

/// t reduced by `op` over sorted `axes`, the reduced axes dropped unless keepdim.
Tensor reduce_axes(const Tensor& t, Op op, const std::vector<std::int64_t>& axes, bool keepdim);

/// tinygrad's reduce_unparented (codegen/simplify.py): t reduced by `op` over sorted `axes`
/// (keepdim) when t does not vary along any of them of size > 1 — the value itself for max and
/// min, times each axis' size for a sum, to its power for a product — else nullopt.
std::optional<Tensor> reduce_unparented(const Tensor& t, Op op, const std::vector<std::int64_t>& axes);
/// A reduce over a cat of k copies of one node along a reduced axis, as tinygrad's stacked cat
/// drops the copies' range: the reduce of one copy (times k for a sum); nullopt otherwise.
std::optional<Tensor> reduce_stacked_copies(const Tensor& t, Op op, const std::vector<std::int64_t>& axes,
                                            bool keepdim);

/// Whether every element of `t` is the same along each of `axes` (sorted, within t's ndim): the
/// value's index holds none of those axes' ranges in tinygrad's kernel (a constant, an expand
/// along them, elementwise ops of such; reduce_unparented.cpp).
bool uniform_along(const Tensor& t, const std::vector<std::int64_t>& axes);

/// tinygrad's moves of products out of a sum (uop/symbolic.py, sym: "move const multiply after
/// REDUCE", reduce_mul_chain): the sum over sorted `axes` (keepdim) of a float product whose
/// factors include some that do not vary along those axes is the sum of the other factors times
/// those (reduce_mul_chain.cpp), the reduced axes dropped unless keepdim, or nullopt.
/// `(x * 1.7).sum()` is `x.sum() * 1.7`, one rounding of the product instead of one per element.
std::optional<Tensor> reduce_mul_chain(const Tensor& t, Op op, const std::vector<std::int64_t>& axes, bool keepdim);

/// Number of elements a reduction over `axes` combines.
std::int64_t reduced_count(const Tensor& t, const std::vector<std::int64_t>& axes);

/// The value of a constant tensor (a CONST under movement ops and casts, which tinygrad folds
/// into the constant), or nullopt (folding.cpp).
std::optional<Scalar> const_value(const Tensor& t);

/// tinygrad's regrouping of float adds, subtractions and products around constants (`(x + 0.1) +
/// 0.2` is x + 0.3; reassociate.cpp): op is a binary op over broadcast operands of one dtype,
/// `a_const`/`b_const` whether each is a constant. Nullopt when no rule applies.
std::optional<Tensor> reassociate(Op op, const Tensor& a, const Tensor& b, bool a_const, bool b_const);
/// x - x of a float product by a constant, x = y * c, as tinygrad folds it: its sub is x + x*-1,
/// the -1 folds into c first, and "combine terms" makes y * (c + -c), nan for an inf or nan c
/// (reassociate.cpp). Nullopt when x is no such product (x - x is then 0).
std::optional<Tensor> self_difference(const Tensor& x);

/// 1/d as tinygrad's symbolic rewrites the reciprocal of a product in a kernel (reassociate.cpp):
/// 1/(x*x) is (1/x)*(1/x), 1/(x*x*x) is (1/x)**3 as products, 1/(x*c) is (1/x)*(1/c) with 1/c
/// folded; anything else is RECIPROCAL(d). `depth` bounds the recursion into x.
Tensor rewritten_reciprocal(const Tensor& d, int depth = 0);
/// 1/b of an int tensor `b` in float dtype `f`, as tinygrad's RECIPROCAL of the int op itself is
/// rewritten (reassociate.cpp): 1/(x*c), 1/(x*x), 1/(-x) in the float, past the int's wrap.
Tensor int_reciprocal(const Tensor& b, DType f, int depth = 0);

/// tinygrad's value-blind algebraic folds of a binary op over broadcast operands of one
/// dtype (x*0, x+0, x-x, x//x, x%x, ...; folding.cpp), or nullopt when none applies.
std::optional<Tensor> fold_binary(Op op, const Tensor& a, const Tensor& b);

/// `a op b` (op Add, Sub, Mul, Max, Min, CmpLt, CmpEq or CmpNe) when one of them is a constant of
/// a concrete float dtype and the other a Python scalar or weak constant: the op on the exact
/// values, rounded once to the dtype, as tinygrad's scheduler folds them (weak_const_fold.cpp).
/// `ta`, `tb`: a and b promoted and broadcast. Nullopt otherwise.
std::optional<Tensor> fold_weak_const(Op op, const Operand& a, const Operand& b, const Tensor& ta, const Tensor& tb);

/// `r`, a comparison over a graph of constants alone, as the CONST its one-valued rewrite bounds
/// fold it to (weak_const_fold.cpp), or nullopt.
std::optional<Tensor> fold_compare_bounds(const Tensor& r);

/// The bounds [lo, hi] tinygrad's symbolic rewrite gives every element of a value (UOp._min_max,
/// tinygrad/uop/ops.py), ints and bools as numbers, and whether the rewrite sees the value as a
/// CONST (folded from constants, or a comparison whose bounds are one value).
struct RewriteBounds {
  long double lo = 0, hi = 0;
  bool is_const = false;
};

/// `t`'s bounds as tinygrad's rewrite computes them (rewrite_bounds.cpp); a dtype's range where
/// it knows no better (a weakint's and a float's are unbounded).
RewriteBounds rewrite_bounds(const Tensor& t);
/// Whether `t`, of a concrete int dtype, has rewrite bounds outside its dtype's range: tinygrad's
/// UOp._min_max does not wrap an unsigned negation, a difference or a product, so its folds over
/// such a value (min == max, max(x, y)) differ from computing it. False for other dtypes.
bool unsound_rewrite_bounds(const Tensor& t);
/// unsound_rewrite_bounds, or for a float `t` a cast (under movement ops) of such an int: tinygrad
/// bounds a CAST by its source's bounds (UOp._min_max), so its comparisons fold from them as well.
bool unsound_bounds(const Tensor& t);

/// Throws Error(BadExpression) where tinygrad's rewrite of a weakint `a // b` or `a % b` (op FloorDiv
/// or Mod, a and b broadcast) raises ZeroDivisionError in a kernel (uop/divandmod.py): b's bounds are
/// [0, 0], or a is a CONST 0 and b's bounds hold 0. Nothing for other dtypes or no elements.
void refuse_weak_divmod_by_zero(Op op, const Tensor& a, const Tensor& b);

/// tinygrad's int `a // b` or `a % b` (op FloorDiv or Mod, a and b broadcast to one concrete int
/// dtype) where one side is a constant int the dtype cannot hold (uint8 `x // 300`): the exact
/// constant decides the rewrite, the kernel divides by it wrapped (divmod_exact.cpp); nullopt otherwise.
std::optional<Tensor> divmod_exact_int(Op op, const Tensor& a, const Tensor& b);

/// `Tensor::binary(op, a, b)` after tinygrad's folds. Over a pad's where, the value-blind folds see
/// the where whole (`x.pad(((1, 0),), value=nan) - x.pad(((1, 0),), value=nan)` is 0 everywhere),
/// then each branch folds on its own (tensor/pad_region.hpp: the pad region's exact constant).
inline Tensor folded_binary(Op op, const Tensor& a, const Tensor& b) {
  if (auto f = fold_binary(op, a, b)) return *f;
  auto branch = [op](const Tensor& x, const Tensor& y) { return folded_binary(op, x, y); };
  if (auto pushed = pad_region::pushes(op, a.dtype()) ? pad_region::binary(a, b, branch) : std::nullopt) {
    pad_region::remember(*pushed, pad_region::plain_binary(op, a, b));
    return *pushed;
  }
  return Tensor::binary(op, a, b);
}

}  // namespace tensor_inspect::tg::detail
