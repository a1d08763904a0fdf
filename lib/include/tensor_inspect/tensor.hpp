// tensor_inspect/tensor.hpp — a Tensor is a handle on one node of the lazy graph.
//
// Every method returns a new Tensor and computes nothing; `realize()` runs the schedule
// and returns a Tensor over a CPU buffer; `data()` (memoryview.hpp) follows tinygrad's
// Tensor.data(). The methods here are the primitives, with strict rules (equal shapes,
// equal dtypes); tinygrad's user-facing semantics (broadcasting, promotion, Python
// scalars, indexing) are built on them in frontend.hpp.
//
//   Tensor t = Tensor::from_buffer(buf, DType::Float32, {2, 3});
//   Tensor u = t.permute({1, 0}).cast(DType::Float16);   // nothing computed yet
//   Tensor r = u.realize();                              // one kernel, one CPU buffer
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "tensor_inspect/graph.hpp"

namespace tensor_inspect {

class Tensor {
 public:
  explicit Tensor(NodePtr node) : node_(std::move(node)) {}

  /// A tensor over `buffer`, which must hold prod(shape) * itemsize bytes (C order).
  /// Throws Error(Internal) when it does not.
  static Tensor from_buffer(std::shared_ptr<Buffer> buffer, DType dtype, Shape shape);
  /// A tensor whose bytes are made at realize by `producer` (C order, native).
  static Tensor from_producer(std::shared_ptr<const Producer> producer, DType dtype, Shape shape);
  /// `value` at every element of `shape`, as tinygrad's `dtype.const` keeps it (a float rounded
  /// to dtype, an int unwrapped in an int dtype: stores wrap it); allocates nothing.
  static Tensor full(const Shape& shape, Scalar value, DType dtype);

  const NodePtr& node() const { return node_; }
  DType dtype() const { return node_->dtype; }
  const Shape& shape() const { return node_->shape; }
  std::size_t ndim() const { return node_->shape.size(); }
  std::int64_t numel() const { return prod(node_->shape); }

  // Movement (view only). Arguments are already normalised: no -1, no negative axes.
  /// Same elements, new shape of equal numel. Throws Error(BadShape) otherwise.
  Tensor reshape(const Shape& shape) const;
  /// Axes reordered; `order` must be a permutation of 0..ndim-1 (Error(BadShape) if not).
  Tensor permute(const std::vector<std::int64_t>& order) const;
  /// Size-1 axes broadcast; same ndim; other axes must match (Error(BadShape)).
  Tensor expand(const Shape& shape) const;
  /// Zero padding (before, after) per axis, both >= 0.
  Tensor pad(const Ranges& padding) const;
  /// [begin, end) per axis with 0 <= begin <= end <= dim. Over a scan_sum, the shrink
  /// moves below it (as far as its end along the scanned axis), so a slice of running sums
  /// reads and sums only what it needs.
  Tensor shrink(const Ranges& ranges) const;
  /// Reverses the listed axes.
  Tensor flip(const std::vector<std::int64_t>& axes) const;

  // Element-wise.
  /// Value conversion with cast_scalar semantics (dtype.hpp).
  Tensor cast(DType dtype) const;
  /// Reinterprets the bytes as `dtype`; when itemsizes differ the last axis scales
  /// (tinygrad's bitcast). Throws Error(Unsupported) for weak dtypes or a last axis that
  /// does not divide.
  Tensor bitcast(DType dtype) const;
  /// Reverses the bytes of every element: big-endian data made native. Unsigned int
  /// dtypes only (view other dtypes through the same-size uint and bitcast after);
  /// Error(Internal) otherwise. Fuses into loops like any element-wise op.
  Tensor byteswap() const;
  /// A unary op (Neg, Exp, Sqrt, ...) computed in this tensor's dtype.
  Tensor unary(Op op) const;
  /// A binary op on equal shapes and dtypes; comparisons give bool.
  static Tensor binary(Op op, const Tensor& a, const Tensor& b);
  /// cond ? a : b, equal shapes, cond bool, a and b one dtype.
  static Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);

  /// Folds `axes` (sorted, unique) with op; reduced axes keep size 1 (keepdim).
  Tensor reduce(Op op, const std::vector<std::int64_t>& axes) const;
  /// Running sums along `axis` in the order tinygrad's cumsum computes them (a sum per
  /// output in this tensor's dtype, chunks of 256 past 512 elements; realize/scan_sum.cpp),
  /// rounded to `out`: this dtype, or a float narrower than float32 when this is float32.
  /// Linear in the elements. A shrink of the result scans only up to its end.
  Tensor scan_sum(std::int64_t axis, DType out) const;

  /// Marks a realization boundary: the result is a contiguous buffer.
  Tensor contiguous() const;
  /// Runs the schedule and returns a tensor over a contiguous CPU buffer with the same
  /// dtype and shape. Throws Error for failures of producers (corrupt data).
  Tensor realize() const;

 private:
  NodePtr node_;
};

}  // namespace tensor_inspect
