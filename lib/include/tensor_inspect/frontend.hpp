// tensor_inspect/frontend.hpp — tinygrad's user-facing Tensor semantics over the strict
// primitives of tensor.hpp: broadcasting, dtype promotion with weak Python scalars,
// negative axes and -1 sizes, indexing, reductions with accumulation dtypes, and the
// constructors (arange, ones, eye, ...).
//
// Every function builds graph nodes only; nothing is computed until data()/realize().
// Python scalars are passed as `Scalar` (kind Bool, Signed/Unsigned for int, Float) and
// take the weak dtype of their Python type (int -> weakint, float -> weakfloat, bool ->
// bool) when promoted, as in tinygrad.
//
//   namespace tg = ti::tg;
//   Tensor x = tg::arange(Scalar::from_int(0), Scalar::from_int(6), Scalar::from_int(1), {});
//   Tensor y = tg::add(tg::reshape(x, {2, -1}), Scalar::from_int(1));   // int32 (2, 3)
//   Tensor s = tg::sum(y, std::vector<std::int64_t>{0}, false);        // int32 (3,)
//   Tensor q = tg::div(s, Scalar::from_int(2));                         // float32 (3,)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "tensor_inspect/dtype.hpp"
#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect::tg {

/// One operand of a binary op: a tensor or a Python scalar (int, float or bool).
using Operand = std::variant<Tensor, Scalar>;

/// Most elements a tensor built here may have: the cap expression_elements of limits.hpp
/// (2^40 by default), beyond which ops throw Error(BadShape) naming it instead of
/// promising an allocation data() could never make. At most 2^62, so products of two
/// dimensions checked against it never overflow int64.
std::int64_t max_elements();

/// The dtype a Python scalar takes in promotion: bool -> Bool, int -> WeakInt,
/// float -> WeakFloat.
DType python_dtype(const Scalar& v);
/// The dtype of an operand (a tensor's own, or python_dtype of a scalar).
DType operand_dtype(const Operand& v);
/// tinygrad's least_upper_float: floats stay, weakint -> weakfloat, anything else ->
/// the default float.
DType least_upper_float(DType d, const Defaults& defaults = {});
/// The operand as a tensor of `dtype` (a scalar becomes a 0-d Const of that dtype).
Tensor to_tensor(const Operand& v, DType dtype);
/// The operand as a tensor of its own dtype (scalars: their weak dtype).
Tensor to_tensor(const Operand& v);

/// numpy/tinygrad broadcast of two shapes (align right, size-1 axes stretch). Throws
/// Error(BadShape) "cannot broadcast (2, 3) with (4,)" when an axis differs and neither is 1.
Shape broadcast_shape(const Shape& a, const Shape& b);
/// `t` broadcast to `shape` (new leading axes, then expand). Throws Error(BadShape).
Tensor broadcast_to(const Tensor& t, const Shape& shape);
/// Resolves a possibly negative axis of an `ndim`-d tensor (tinygrad's _resolve_dim: 0-d
/// tensors accept -1 and 0). Throws Error(BadShape) "dim=2 out of range [-2, 1]".
std::int64_t resolve_dim(std::int64_t dim, std::int64_t ndim);

// ---- element-wise binary ops, with promotion (least_upper_dtype) and broadcasting ----
/// a + b. Ints wrap in the promoted dtype ([127] int8 + 1 -> [-128]).
Tensor add(const Operand& a, const Operand& b);
/// a - b.
Tensor sub(const Operand& a, const Operand& b);
/// a * b.
Tensor mul(const Operand& a, const Operand& b);
/// True division a / b: both sides cast to least_upper_float, computed as a * (1/b) like
/// tinygrad; ints divided by 0 give inf/-inf/nan.
Tensor div(const Operand& a, const Operand& b, const Defaults& defaults = {});
/// Python's a // b: floor division (floats: floor of the true quotient).
Tensor floordiv(const Operand& a, const Operand& b, const Defaults& defaults = {});
/// Python's a % b: the result takes the sign of the divisor.
Tensor mod(const Operand& a, const Operand& b, const Defaults& defaults = {});
/// a ** b in the promoted dtype: int ** int stays int; a float exponent gives a float;
/// a negative base with a fractional exponent gives nan.
Tensor pow(const Operand& a, const Operand& b);
/// Element-wise max/min (tinygrad maximum/minimum). A Python int outside the tensor's
/// dtype compares by its exact value, like the comparisons: uint8 maximum(-1) and
/// minimum(300) leave x unchanged; a winning out-of-range int is cast as where() casts
/// (uint8 maximum(300) is 44).
Tensor maximum(const Operand& a, const Operand& b);
Tensor minimum(const Operand& a, const Operand& b);
/// Bitwise and/or/xor for ints, logical for bool. Throws Error(BadExpression) for floats.
Tensor bitwise_and(const Operand& a, const Operand& b);
Tensor bitwise_or(const Operand& a, const Operand& b);
Tensor bitwise_xor(const Operand& a, const Operand& b);

/// Comparisons, giving bool. A Python int outside the other side's dtype range compares
/// by its exact value (uint8 `x > -1` is all True), as tinygrad does. `>=`/`<=` are the
/// logical not of `<`/`>` and `==` the not of `!=`, as in tinygrad (so nan >= 1 is True).
Tensor cmp_lt(const Operand& a, const Operand& b);
Tensor cmp_gt(const Operand& a, const Operand& b);
Tensor cmp_le(const Operand& a, const Operand& b);
Tensor cmp_ge(const Operand& a, const Operand& b);
Tensor cmp_eq(const Operand& a, const Operand& b);
Tensor cmp_ne(const Operand& a, const Operand& b);

/// cond ? a : b with cond cast to bool; a and b promoted together, all three broadcast.
Tensor where(const Operand& cond, const Operand& a, const Operand& b);
/// clip(lo, hi) = minimum(maximum(t, lo), hi); either bound may be absent.
Tensor clip(const Tensor& t, const std::optional<Operand>& lo, const std::optional<Operand>& hi);

// ---- element-wise unary ops ----
/// -t; for bool tensors the logical not (tinygrad).
Tensor neg(const Tensor& t);
/// ~t: bitwise not of ints, logical not of bool. Throws Error(BadExpression) for floats.
Tensor invert(const Tensor& t);
/// Logical not (t cast to bool, negated).
Tensor logical_not(const Tensor& t);
/// |t| as (t < 0).where(-t, t): keeps -0.0, int8 -128 stays -128.
Tensor abs(const Tensor& t);
/// max(t, 0) as (t > 0).where(t, 0).
Tensor relu(const Tensor& t);
/// Transcendental functions; int and bool inputs compute in least_upper_float, 16-bit and
/// fp8 floats compute in float32 and round back. exp = exp2(x / ln 2), log = log2(x) * ln 2
/// as tinygrad composes them.
Tensor exp(const Tensor& t, const Defaults& defaults = {});
Tensor exp2(const Tensor& t, const Defaults& defaults = {});
Tensor log(const Tensor& t, const Defaults& defaults = {});
Tensor log2(const Tensor& t, const Defaults& defaults = {});
Tensor sqrt(const Tensor& t, const Defaults& defaults = {});
Tensor rsqrt(const Tensor& t, const Defaults& defaults = {});
Tensor sin(const Tensor& t, const Defaults& defaults = {});
Tensor cos(const Tensor& t, const Defaults& defaults = {});
Tensor tan(const Tensor& t, const Defaults& defaults = {});
Tensor tanh(const Tensor& t, const Defaults& defaults = {});
Tensor sigmoid(const Tensor& t, const Defaults& defaults = {});
Tensor reciprocal(const Tensor& t, const Defaults& defaults = {});
/// Rounding toward -inf / +inf / 0; ints pass through.
Tensor floor(const Tensor& t);
Tensor ceil(const Tensor& t);
Tensor trunc(const Tensor& t);
/// Rounds half to even (tinygrad's round, Python's round); ints are returned unchanged.
Tensor round(const Tensor& t);
/// -1, 0 or 1 in t's dtype.
Tensor sign(const Tensor& t);
/// t * t.
Tensor square(const Tensor& t);
/// tinygrad's isnan: t != t, bool of t's shape (False for ints and bools).
Tensor isnan(const Tensor& t);
/// tinygrad's isinf: (t == inf) where detect_positive, or (t == -inf) where
/// detect_negative; bool of t's shape (all False when neither is asked for).
Tensor isinf(const Tensor& t, bool detect_positive = true, bool detect_negative = true);
/// tinygrad's isfinite: not (isinf or isnan), bool.
Tensor isfinite(const Tensor& t);

// ---- dtype ----
/// Value conversion to a concrete dtype. Throws Error(BadExpression) for a weak target.
Tensor cast(const Tensor& t, DType dtype);
/// tinygrad's bitcast. Throws Error(BadExpression) "bitcast requires concrete dtypes, got
/// dtypes.weakint -> dtypes.int32" for weak dtypes and Error(BadShape) "unsupported size in
/// bitcast" when itemsizes differ and the last axis does not divide (or the tensor is 0-d).
Tensor bitcast(const Tensor& t, DType dtype);

// ---- movement (tinygrad argument conventions: negative axes, -1 sizes) ----
/// One -1 is inferred; zero sizes allowed. Throws Error(BadShape) "cannot reshape (2, 3)
/// to (4, 2)", "only one dimension can be inferred using -1, getting (-1, -1)".
Tensor reshape(const Tensor& t, const Shape& shape);
/// Throws Error(BadShape) "order is not a valid permutation, getting (0, 0, 1)".
Tensor permute(const Tensor& t, const std::vector<std::int64_t>& order);
/// Swaps two axes (tinygrad default transpose(1, 0)).
Tensor transpose(const Tensor& t, std::int64_t dim0 = 1, std::int64_t dim1 = 0);
/// -1 keeps an axis; new leading axes may be added. Throws Error(BadShape) "cannot
/// broadcast (2, 3) to (2, 4)".
Tensor expand(const Tensor& t, const Shape& shape);
/// Per-axis (begin, end) or nullopt (keep). Throws Error(BadShape) "invalid shrink ...".
Tensor shrink(const Tensor& t, const std::vector<std::optional<std::pair<std::int64_t, std::int64_t>>>& arg);
/// Per-axis (before, after) or nullopt, from the first axis; negative amounts crop. The
/// padding reads as `value`.
Tensor pad(const Tensor& t, const std::vector<std::optional<std::pair<std::int64_t, std::int64_t>>>& arg,
           const Scalar& value = Scalar::from_int(0));
/// torch-style flat padding (left, right) pairs from the LAST axis backwards.
Tensor pad_flat(const Tensor& t, const std::vector<std::int64_t>& flat, const Scalar& value = Scalar::from_int(0));
/// Reverses the listed axes (negative allowed). Throws Error(BadShape) on repeats.
Tensor flip(const Tensor& t, const std::vector<std::int64_t>& axes);
/// tinygrad's contiguous(): t realized into a buffer of its own, except a literal int beyond its
/// dtype, which stays the CONST it is in tinygrad's Tensor, its value unwrapped until a store:
/// uint16 -5 `.contiguous().cast(dtypes.int32)` is -5 in tinygrad.
Tensor contiguous(const Tensor& t);
/// `t` with tinygrad's self folds (x // x, x - x, x * (1/x), ...) made at the elements of a kernel
/// where both sides are one UOp once its optimizer upcasts small masked axes (codegen/opt/heuristic.py):
/// `x // x.flip(0)` of three float zeros is [nan, 1.0, nan]. Applied to a finished expression,
/// before fold_upcast_lanes (frontend/upcast_lanes.cpp).
Tensor fold_upcast_self_ops(const Tensor& t);
/// Axes start_dim..end_dim merged into one; a 0-d tensor becomes (1,).
Tensor flatten(const Tensor& t, std::int64_t start_dim = 0, std::int64_t end_dim = -1);
/// Axis `dim` split into `sizes` (one -1 allowed).
Tensor unflatten(const Tensor& t, std::int64_t dim, const Shape& sizes);
/// Removes size-1 axes: all of them, or only `dim` when it is 1.
Tensor squeeze(const Tensor& t, std::optional<std::int64_t> dim = std::nullopt);
/// Inserts a size-1 axis at `dim` (in [-ndim-1, ndim]).
Tensor unsqueeze(const Tensor& t, std::int64_t dim);

/// One item of a Python index: an int, a slice (each bound optional), None or `...`.
struct IndexItem {
  enum class Kind { Int, Slice, NewAxis, Ellipsis } kind = Kind::Int;
  std::int64_t index = 0;                      ///< Kind::Int
  std::optional<std::int64_t> start, stop, step;  ///< Kind::Slice
};
/// Basic indexing x[items] with Python rules: negative ints, clamped slices, negative
/// steps, None, one `...`. Throws Error(BadShape) "index 5 is out of bounds for dimension 0
/// with size 2", "too many indices (3) for a 2-d tensor", "slice step cannot be zero",
/// "an index can only have a single ellipsis".
Tensor getitem(const Tensor& t, const std::vector<IndexItem>& items);

// ---- reductions: axes nullopt = all, negative allowed ----
/// Sum accumulating in sum_acc_dtype (int8 -> int32, uint8 -> uint32, bool -> int32);
/// 16-bit and fp8 floats accumulate in float32 and round back to their dtype.
Tensor sum(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim);
/// Product in t's own dtype (uint8 wraps); empty products are 1.
Tensor prod(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim);
/// Max/min in t's own dtype; an empty axis gives the dtype's lowest/highest value.
Tensor max(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim);
Tensor min(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim);
/// tinygrad's any(axis, keepdim): whether any element is true (nonzero; nan counts), as
/// t.bool().max(); bool. The any of no elements is False.
Tensor any(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim);
/// tinygrad's all(axis, keepdim): not any(not t); bool. The all of no elements is True.
Tensor all(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim);
/// sum / count in a float (t's own float dtype, else float32); an empty reduction is nan.
Tensor mean(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim,
            const Defaults& defaults = {});
/// Variance with `correction` (tinygrad default 1) and its square root (tinygrad's std).
Tensor var(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim,
           double correction = 1.0, const Defaults& defaults = {});
Tensor std_dev(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim,
           double correction = 1.0, const Defaults& defaults = {});
/// tinygrad's repeat(repeats): the tensor tiled repeats[i] times along each axis (like
/// np.tile); extra leading counts add axes. Error(BadShape) for too few or negative counts.
Tensor repeat(const Tensor& t, const Shape& repeats);
/// tinygrad's cumsum(axis=0): running sums along `axis`, accumulated like sum (int8 in int32,
/// float16 in float32 and back to float16) and in the order tinygrad's kernels add them, so
/// float results match bit for bit; linear time, memory the output's. Error(BadShape) for
/// an axis out of range.
Tensor cumsum(const Tensor& t, std::int64_t axis);
/// tinygrad's cat(dim=0): tensors joined along `dim` (shapes equal elsewhere), promoted to
/// their least upper dtype. Error(BadShape) for mismatched shapes, 0-d or no tensors.
Tensor cat(const std::vector<Tensor>& ts, std::int64_t dim);
/// tinygrad's stack(dim=0): equal shapes joined along a new axis `dim`.
Tensor stack(const std::vector<Tensor>& ts, std::int64_t dim);
/// tinygrad's tril(diagonal) (upper=false) and triu(diagonal) (upper=true) over the last two
/// axes: elements with j - i above (tril) or below (triu) `diagonal` become 0.
Tensor tril(const Tensor& t, std::int64_t diagonal, bool upper = false);
/// tinygrad's softmax(axis=-1): exp(x - max) / sum(exp(x - max)) over `axis` (negative counts
/// from the end); ints become the default float. Error(BadShape) for an axis out of range.
Tensor softmax(const Tensor& t, std::int64_t axis, const Defaults& defaults = {});
/// tinygrad's log_softmax(axis=-1): (x - max) - log(sum(exp(x - max))) over `axis`.
Tensor log_softmax(const Tensor& t, std::int64_t axis, const Defaults& defaults = {});
/// Index of the first max/min along `axis` (nullopt: of the flattened tensor), int32.
Tensor argmax(const Tensor& t, std::optional<std::int64_t> axis, bool keepdim);
Tensor argmin(const Tensor& t, std::optional<std::int64_t> axis, bool keepdim);
/// tinygrad dot/matmul: 1-d and n-d operands, products summed with sum's accumulation
/// and cast to the promoted dtype. Throws Error(BadShape) on mismatched inner sizes.
Tensor matmul(const Tensor& a, const Tensor& b);

// ---- constructors; dtype nullopt = tinygrad's default for the arguments ----
/// Tensor.arange(start, stop, step): int arguments give the default int, any float the
/// default float; values are start + i*step. Empty when the range is empty. Throws
/// Error(BadExpression) for step 0, Error(BadShape) past max_elements().
Tensor arange(Scalar start, Scalar stop, Scalar step, std::optional<DType> dtype,
              const Defaults& defaults = {});
/// Tensor.full(shape, value): dtype nullopt gives the value's Python dtype (int -> weakint).
Tensor full(const Shape& shape, const Scalar& value, std::optional<DType> dtype);
/// Tensor.ones/zeros (and empty, which reads as zeros): default float when dtype is nullopt.
Tensor ones(const Shape& shape, std::optional<DType> dtype, const Defaults& defaults = {});
Tensor zeros(const Shape& shape, std::optional<DType> dtype, const Defaults& defaults = {});
/// Tensor.eye(n, m): ones on the diagonal, default float.
Tensor eye(std::int64_t n, std::optional<std::int64_t> m, std::optional<DType> dtype,
           const Defaults& defaults = {});
/// Tensor.linspace(start, stop, steps): start + i*(stop-start)/(steps-1), default float.
Tensor linspace(Scalar start, Scalar stop, std::int64_t steps, std::optional<DType> dtype,
                const Defaults& defaults = {});
/// A tensor from nested Python values (the Tensor(...) constructor). `values` are the
/// leaves in C order, `shape` the nesting; dtype nullopt infers bool < int < float (a
/// 0-d Python scalar keeps its weak dtype, a list commits to the defaults).
Tensor from_values(const std::vector<Scalar>& values, const Shape& shape, std::optional<DType> dtype,
                   const Defaults& defaults = {});

/// The expression's result as tinygrad's kernel of lanes computes it: in a kernel whose one dim is
/// upcast whole (4, or at most 7 gated by a WHERE: codegen/opt/heuristic.py), each float32 +, -, *
/// of an index-only value (arange, linspace) and a weak float CONST folds per lane in double
/// (frontend/lane_fold.cpp).
Tensor fold_upcast_lanes(const Tensor& t);

/// Checks that `shape` has no negative dims and at most max_elements() elements; `what`
/// names the operation in the Error(BadShape).
void check_shape(const Shape& shape, const std::string& what);

}  // namespace tensor_inspect::tg
