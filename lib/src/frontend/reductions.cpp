// tinygrad's reductions (with their accumulation dtypes), the ops built from them
// (mean, var, std, softmax, argmax, cumsum) and matmul.
#include <algorithm>
#include <cmath>

#include "internal.hpp"

namespace tensor_inspect::tg {

using namespace detail;

// ---------------------------------------------------------------------------- reductions

Tensor sum(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim) {
  std::vector<std::int64_t> ax = resolve_axes(t, axes);
  DType acc = sum_acc_dtype(t.dtype());
  Tensor r = reduce_axes(cast_to(t, acc), Op::ReduceSum, ax, keepdim);
  if (is_float(t.dtype()) && !is_weak(t.dtype()) && dtype_info(t.dtype()).itemsize < 4) r = cast_to(r, t.dtype());
  return r;
}


Tensor cumsum(const Tensor& t, std::int64_t axis) {
  // tinygrad's _split_cumalu(axis, ADD): the axis is resolved as for a 1-d tensor when t is
  // 0-d, and a 0-d or empty tensor is only cast to its sum's dtype.
  const std::int64_t ax = resolve_axes(t.ndim() == 0 ? t.reshape({1}) : t, std::vector<std::int64_t>{axis})[0];
  const DType acc = sum_acc_dtype(t.dtype());
  const bool narrow = is_float(t.dtype()) && !is_weak(t.dtype()) && dtype_info(t.dtype()).itemsize < 4;
  const DType out = narrow ? t.dtype() : acc;
  if (t.ndim() == 0 || t.numel() == 0) return cast_to(t, out);
  // Each output is a sum in `acc`, rounded to `out`, as tinygrad's window sums are (sum()
  // casts half, bfloat16 and fp8 to float32 and back).
  return cast_to(t, acc).scan_sum(ax, out);
}


namespace {
// tinygrad's _reduce (mixin/reduce.py) starts with `self.cast(strong_dtype(self.dtype))`: a weak
// (Python scalar) tensor is reduced, even over no axis, as the default int or float.
Tensor reduce_input_strong(const Tensor& t) {
  if (t.dtype() == DType::WeakInt) return cast_to(t, DType::Int32);
  if (t.dtype() == DType::WeakFloat) return cast_to(t, DType::Float32);
  return t;
}
}  // namespace

Tensor prod(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim) {
  return reduce_axes(reduce_input_strong(t), Op::ReduceProd, resolve_axes(t, axes), keepdim);
}

Tensor max(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim) {
  return reduce_axes(reduce_input_strong(t), Op::ReduceMax, resolve_axes(t, axes), keepdim);
}

Tensor min(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim) {
  return reduce_axes(reduce_input_strong(t), Op::ReduceMin, resolve_axes(t, axes), keepdim);
}

Tensor any(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim) {
  // tinygrad: self.bool().max(axis, keepdim); the max of no bools is False.
  return max(cast_to(t, DType::Bool), axes, keepdim);
}

Tensor all(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim) {
  // tinygrad: self.logical_not().any(axis, keepdim).logical_not(); so all of nothing is True.
  return logical_not(any(logical_not(t), axes, keepdim));
}

Tensor mean(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim,
            const Defaults& defaults) {
  // tinygrad: output_dtype = self.dtype if dtypes.is_float(self.dtype) else dtypes.float32 (not the default float)
  std::vector<std::int64_t> ax = resolve_axes(t, axes);
  DType out = is_float(t.dtype()) ? t.dtype() : DType::Float32;
  Tensor num = reduce_axes(cast_to(t, sum_acc_dtype(t.dtype())), Op::ReduceSum, ax, keepdim);
  return cast_to(div(num, Scalar::from_int(reduced_count(t, ax)), defaults), out);
}

Tensor var(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim, double correction,
           const Defaults& defaults) {
  // tinygrad (mixin/op.py): squares = (x - x.mean(axis, keepdim=True)).square();
  // squares.cast(sum_acc_dtype(x.dtype)).sum(axis) / max(n - correction, 0), cast to
  // x.dtype for floats and float32 otherwise. The squares of an int tensor are floats cast
  // to its int sum dtype, so they truncate: uint8 [1, 8] has var 24, not 24.5.
  std::vector<std::int64_t> ax = resolve_axes(t, axes);
  const DType out = is_float(t.dtype()) ? t.dtype() : DType::Float32;
  Tensor squares = square(sub(t, mean(t, ax, true, defaults)));
  Tensor num = reduce_axes(cast_to(squares, sum_acc_dtype(t.dtype())), Op::ReduceSum, ax, keepdim);
  double n = std::max(0.0, static_cast<double>(reduced_count(t, ax)) - correction);
  const bool whole = n == std::floor(n) && n < 9.0e15;
  Scalar den = whole ? Scalar::from_int(static_cast<std::int64_t>(n)) : Scalar::from_float(n);
  return cast_to(div(num, den, defaults), out);
}

Tensor std_dev(const Tensor& t, const std::optional<std::vector<std::int64_t>>& axes, bool keepdim, double correction,
               const Defaults& defaults) {
  return sqrt(var(t, axes, keepdim, correction, defaults), defaults);
}

// tinygrad's _softmax (mixin/op.py): m = x - x.max(axis, keepdim=True) in x's own dtype (an
// int tensor wraps there), e = m.exp(), ss = e.sum(axis, keepdim=True).
Tensor softmax(const Tensor& t, std::int64_t axis, const Defaults& defaults) {
  // tinygrad: e * ss.reciprocal()
  const std::vector<std::int64_t> ax{axis};
  Tensor e = exp(sub(t, max(t, ax, true)), defaults);
  return mul(e, reciprocal(sum(e, ax, true), defaults));
}

Tensor log_softmax(const Tensor& t, std::int64_t axis, const Defaults& defaults) {
  // tinygrad: m - ss.log()
  const std::vector<std::int64_t> ax{axis};
  Tensor m = sub(t, max(t, ax, true));
  return sub(m, log(sum(exp(m, defaults), ax, true), defaults));
}

Tensor argmax(const Tensor& t, std::optional<std::int64_t> axis, bool keepdim) {
  // tinygrad: `if axis is None: return self.flatten().argmax(0)`: keepdim is dropped.
  if (!axis) return argmax(flatten(t), 0, false);
  if (t.ndim() == 0) {
    resolve_dim(*axis, 0);
    return scalar_tensor(Scalar::from_int(0), DType::Int32);
  }
  std::int64_t a = resolve_dim(*axis, sz(t.ndim()));
  std::int64_t n = t.shape()[uz(a)];
  Tensor m = cmp_eq(t, max(t, std::vector<std::int64_t>{a}, true));
  Shape col(t.ndim() - uz(a), 1);
  col[0] = n;
  Tensor count_down =
      reshape(arange(Scalar::from_int(n), Scalar::from_int(0), Scalar::from_int(-1), DType::Int32), col);
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

}  // namespace tensor_inspect::tg
