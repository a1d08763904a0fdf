// tensor.cpp — the Tensor primitives: each checks its arguments and adds one node.
#include "tensor_inspect/tensor.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "tensor/const_fold.hpp"
#include "tensor/pad_region.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/realize.hpp"

namespace tensor_inspect {
namespace {

[[noreturn]] void shape_error(const std::string& what) { throw Error(ErrorCode::BadShape, what); }

void check_axes_ranges(const Shape& shape, const Ranges& r, const char* op) {
  if (r.size() != shape.size())
    shape_error(std::string(op) + " needs one pair per axis: got " + std::to_string(r.size()) + " for shape " +
                shape_repr(shape));
}

}  // namespace

Tensor Tensor::from_buffer(std::shared_ptr<Buffer> buffer, DType dtype, Shape shape) {
  for (auto d : shape)
    if (d < 0) shape_error("negative dimension in shape " + shape_repr(shape));
  auto need = static_cast<std::uint64_t>(prod(shape)) * dtype_info(dtype).itemsize;
  if (buffer->nbytes() != need)
    throw Error(ErrorCode::Internal, "internal: buffer of " + std::to_string(buffer->nbytes()) + " bytes for " +
                                         std::to_string(need) + " bytes of " + std::string(dtype_info(dtype).name));
  return Tensor(make_node(Op::Buffer, dtype, std::move(shape), {}, std::move(buffer)));
}

Tensor Tensor::from_producer(std::shared_ptr<const Producer> producer, DType dtype, Shape shape) {
  return Tensor(make_node(Op::Producer, dtype, std::move(shape), {}, std::move(producer)));
}

Tensor Tensor::full(const Shape& shape, Scalar value, DType dtype) {
  for (auto d : shape)
    if (d < 0) shape_error("negative dimension in shape " + shape_repr(shape));
  return Tensor(make_node(Op::Const, dtype, shape, {}, const_fold::const_value(value, dtype)));
}

Tensor Tensor::reshape(const Shape& new_shape) const {
  for (auto d : new_shape)
    if (d < 0) shape_error("negative dimension in reshape to " + shape_repr(new_shape));
  if (prod(new_shape) != numel())
    shape_error("cannot reshape " + shape_repr(shape()) + " (" + std::to_string(numel()) +
                (numel() == 1 ? " element) to " : " elements) to ") +
                shape_repr(new_shape));
  if (new_shape == shape()) return *this;
  return Tensor(make_node(Op::Reshape, dtype(), new_shape, {node_}, new_shape));
}

Tensor Tensor::permute(const std::vector<std::int64_t>& order) const {
  std::vector<std::int64_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != static_cast<std::int64_t>(i) || sorted.size() != ndim())
      shape_error("permute order " + shape_repr(order) + " is not a permutation of " + std::to_string(ndim()) +
                  " axes");
  bool identity = true;
  Shape s;
  for (std::size_t i = 0; i < order.size(); ++i) {
    identity &= order[i] == static_cast<std::int64_t>(i);
    s.push_back(shape()[static_cast<std::size_t>(order[i])]);
  }
  if (identity) return *this;
  return Tensor(make_node(Op::Permute, dtype(), s, {node_}, order));
}

Tensor Tensor::expand(const Shape& new_shape) const {
  if (new_shape.size() != ndim())
    shape_error("expand " + shape_repr(shape()) + " to " + shape_repr(new_shape) + ": ndim differs");
  for (std::size_t i = 0; i < ndim(); ++i)
    if (shape()[i] != new_shape[i] && shape()[i] != 1)
      shape_error("cannot expand " + shape_repr(shape()) + " to " + shape_repr(new_shape));
  if (new_shape == shape()) return *this;
  return Tensor(make_node(Op::Expand, dtype(), new_shape, {node_}, new_shape));
}

Tensor Tensor::pad(const Ranges& padding) const {
  check_axes_ranges(shape(), padding, "pad");
  Shape s = shape();
  bool any = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (padding[i].first < 0 || padding[i].second < 0) shape_error("pad amounts must be >= 0");
    s[i] += padding[i].first + padding[i].second;
    any |= padding[i].first || padding[i].second;
  }
  if (!any) return *this;
  return Tensor(make_node(Op::Pad, dtype(), s, {node_}, padding));
}

Tensor Tensor::shrink(const Ranges& ranges) const {
  check_axes_ranges(shape(), ranges, "shrink");
  Shape s;
  bool any = false;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    auto [b, e] = ranges[i];
    if (b < 0 || e < b || e > shape()[i])
      shape_error("shrink range (" + std::to_string(b) + ", " + std::to_string(e) + ") is outside axis " +
                  std::to_string(i) + " of size " + std::to_string(shape()[i]));
    s.push_back(e - b);
    any |= b != 0 || e != shape()[i];
  }
  if (!any) return *this;
  if (node_->op == Op::ScanSum && prod(s) > 0) {
    // Running sums up to `end` need the inputs before `end` only, other axes are
    // independent lanes, and outputs before `begin` need not be kept. The scan keeps its
    // length, so its order, and so its values, stay the same.
    Shape arg = std::get<Shape>(node_->arg);
    const auto axis = static_cast<std::size_t>(arg[0]);
    Ranges below = ranges;
    below[axis] = {0, arg[2] + ranges[axis].second};
    arg[2] += ranges[axis].first;
    const Tensor src = Tensor(node_->src[0]).shrink(below);
    return Tensor(make_node(Op::ScanSum, dtype(), s, {src.node()}, arg));
  }
  return Tensor(make_node(Op::Shrink, dtype(), s, {node_}, ranges));
}

Tensor Tensor::flip(const std::vector<std::int64_t>& axes) const {
  std::vector<std::int64_t> a;
  for (auto ax : axes) {
    if (ax < 0 || ax >= static_cast<std::int64_t>(ndim()))
      shape_error("flip axis " + std::to_string(ax) + " out of range");
    if (std::find(a.begin(), a.end(), ax) != a.end()) shape_error("flip axis " + std::to_string(ax) + " repeated");
    if (shape()[static_cast<std::size_t>(ax)] > 1) a.push_back(ax);
  }
  if (a.empty()) return *this;
  std::sort(a.begin(), a.end());
  return Tensor(make_node(Op::Flip, dtype(), shape(), {node_}, a));
}

Tensor Tensor::cast(DType target) const {
  if (target == dtype()) return *this;
  if (auto folded = const_fold::unary(Op::Cast, target, *this)) return *folded;
  if (auto pushed = pad_region::map(*this, [target](const Tensor& x) { return x.cast(target); })) {
    pad_region::remember(*pushed, make_node(Op::Cast, target, shape(), {node_}));
    return *pushed;
  }
  // "cast/long folding" (uop/symbolic.py): x.cast(a).cast(b) is x.cast(b) when a holds every
  // value of x, so the sum's widening cast in mean does not hide that x - x.mean() of one
  // element is x - x.
  if (node_->op == Op::Cast && !is_weak(target) && !is_weak(dtype()) && !is_weak(node_->src[0]->dtype) &&
      can_lossless_cast(node_->src[0]->dtype, dtype()))
    return Tensor(node_->src[0]).cast(target);
  return Tensor(make_node(Op::Cast, target, shape(), {node_}));
}

Tensor Tensor::bitcast(DType target) const {
  if (is_weak(dtype()) || is_weak(target))
    throw Error(ErrorCode::Unsupported, "bitcast requires concrete dtypes, got dtypes." +
                                            std::string(dtype_info(dtype()).name) + " -> dtypes." +
                                            std::string(dtype_info(target).name));
  if (target == dtype()) return *this;
  const auto from = dtype_info(dtype()).itemsize, to = dtype_info(target).itemsize;
  // uop/symbolic.py, fold_bitcast: a BITCAST of a CONST between dtypes of one itemsize that struct
  // packs (not bfloat16 or an fp8) is the CONST of `bitcast(truncate[c.dtype](c.val))`, so what
  // follows folds on it (float64 0.5 bitcast to uint64, times -5, stays the exact negative int).
  auto packs = [](DType d) { return d != DType::BFloat16 && d != DType::FP8E4M3 && d != DType::FP8E5M2; };
  if (from == to && packs(dtype()) && packs(target))
    if (std::optional<Scalar> c = const_fold::constant_of(*this)) {
      std::array<std::byte, 8> bytes{};
      store_scalar(dtype(), cast_scalar(*c, dtype()), bytes.data());
      return Tensor::full(shape(), load_scalar(target, bytes.data()), target);
    }
  Shape s = shape();
  if (from != to) {
    if (s.empty()) throw Error(ErrorCode::Unsupported, "bitcast of a 0-d tensor needs equal itemsizes");
    auto& last = s.back();
    if ((last * from) % to != 0) throw Error(ErrorCode::Unsupported, "unsupported size in bitcast");
    last = last * from / to;
  }
  return Tensor(make_node(Op::Bitcast, target, s, {node_}));
}

Tensor Tensor::byteswap() const {
  if (!is_unsigned(dtype())) throw Error(ErrorCode::Internal, "internal: byteswap needs an unsigned dtype");
  if (dtype_info(dtype()).itemsize == 1) return *this;
  return Tensor(make_node(Op::ByteSwap, dtype(), shape(), {node_}));
}

Tensor Tensor::unary(Op op) const {
  if (!is_unary(op) || op == Op::Cast || op == Op::Bitcast || op == Op::ByteSwap)
    throw Error(ErrorCode::Internal, "internal: not a unary op");
  if (auto folded = const_fold::unary(op, dtype(), *this)) return *folded;
  if (auto pushed = pad_region::map(*this, [op](const Tensor& x) { return x.unary(op); })) {
    pad_region::remember(*pushed, make_node(op, dtype(), shape(), {node_}));
    return *pushed;
  }
  return Tensor(make_node(op, dtype(), shape(), {node_}));
}

Tensor Tensor::binary(Op op, const Tensor& a, const Tensor& b) {
  if (!is_binary(op)) throw Error(ErrorCode::Internal, "internal: not a binary op");
  if (a.shape() != b.shape())
    shape_error("shapes " + shape_repr(a.shape()) + " and " + shape_repr(b.shape()) + " differ");
  if (auto folded = const_fold::binary(op, a, b)) return *folded;
  auto f = [op](const Tensor& x, const Tensor& y) { return binary(op, x, y); };
  const DType out = is_comparison(op) ? DType::Bool : a.dtype();
  if (auto pushed = pad_region::pushes(op, a.dtype()) ? pad_region::binary(a, b, f) : std::nullopt) {
    pad_region::remember(*pushed, make_node(op, out, a.shape(), {a.node_, b.node_}));
    return *pushed;
  }
  return Tensor(make_node(op, out, a.shape(), {a.node_, b.node_}));
}

Tensor Tensor::where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  if (cond.shape() != a.shape() || a.shape() != b.shape()) shape_error("where: shapes differ");
  if (auto folded = const_fold::where(cond, a, b)) return *folded;
  if (auto pushed = pad_region::where(cond, a, b)) {
    pad_region::remember(*pushed, make_node(Op::Where, a.dtype(), a.shape(), {cond.node_, a.node_, b.node_}));
    return *pushed;
  }
  return Tensor(make_node(Op::Where, a.dtype(), a.shape(), {cond.node_, a.node_, b.node_}));
}

Tensor Tensor::reduce(Op op, const std::vector<std::int64_t>& axes) const {
  if (!is_reduce(op)) throw Error(ErrorCode::Internal, "internal: not a reduce op");
  Shape s = shape();
  for (auto ax : axes) {
    if (ax < 0 || ax >= static_cast<std::int64_t>(ndim()))
      shape_error("reduce axis " + std::to_string(ax) + " out of range");
    s[static_cast<std::size_t>(ax)] = 1;
  }
  // tinygrad reduces no axis of size 1 (uop/ops.py `_rop`): a reduce over such axes alone is a
  // reshape, so a constant stays a constant (`x == x.max()` of a 0-d nan folds to True), and
  // the kernel sees the same x on both sides of `x - x.max()`, which folds to 0.
  if (s == shape()) return *this;
  return Tensor(make_node(op, dtype(), s, {pad_region::unpushed(*this).node_}, Shape(axes)));
}

Tensor Tensor::scan_sum(std::int64_t axis, DType out) const {
  if (axis < 0 || axis >= static_cast<std::int64_t>(ndim()))
    shape_error("scan axis " + std::to_string(axis) + " out of range");
  const NodePtr src = pad_region::unpushed(*this).node_;  // as for reduce
  return Tensor(make_node(Op::ScanSum, out, shape(), {src}, Shape{axis, shape()[static_cast<std::size_t>(axis)], 0}));
}

Tensor Tensor::contiguous() const {
  if (node_->op == Op::Buffer || node_->op == Op::Contiguous) return *this;
  return Tensor(make_node(Op::Contiguous, dtype(), shape(), {node_}));
}

Tensor Tensor::realize() const { return Tensor(tensor_inspect::realize(node_)); }

}  // namespace tensor_inspect
