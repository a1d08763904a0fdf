// tensor_inspect/memoryview.hpp — CPython's memoryview over a realized tensor, and
// tinygrad's Tensor.data() that makes one.
//
//   ti::MemoryView mv = ti::data(t);            // commits weak dtypes, realizes, copies
//   mv.format;  mv.shape;  mv.nbytes;            // "f", (2, 3), 24
//   mv.element(5);                               // the 6th value in C order, as a Scalar
//   ti::MemoryView b = ti::cast_view(mv, 'B');   // memoryview.cast('B'): the raw bytes
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/dtype.hpp"
#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect {

/// CPython's memoryview fields over a C-contiguous host buffer.
struct MemoryView {
  std::optional<char> format;     ///< struct format char; nullopt where tinygrad has none (bf16, fp8)
  DType dtype;                    ///< the element dtype (committed: never weak)
  std::int64_t itemsize = 0;      ///< bytes per element
  std::int64_t nbytes = 0;        ///< bytes of the whole view = prod(shape) * itemsize
  Shape shape;                    ///< elements per axis; () for 0-d
  std::vector<std::int64_t> strides;  ///< bytes per step on each axis (C order)
  bool readonly = false;          ///< Tensor.data() copies into a fresh, writable buffer
  bool c_contiguous = true;
  Shape tensor_shape;             ///< the tensor's own shape (differs for empty tensors)
  std::shared_ptr<Buffer> buffer; ///< the bytes (nbytes of them)

  std::size_t ndim() const { return shape.size(); }
  /// Number of elements.
  std::int64_t numel() const { return prod(shape); }
  /// Element i (0 <= i < numel) in C order, widened as tolist() widens it.
  Scalar element(std::int64_t i) const;
};

/// Options of data().
struct DataOptions {
  Defaults defaults;      ///< what weak dtypes commit to (--default-int/--default-float)
  bool strict = false;    ///< refuse dtypes with no struct format, as Tensor.data() does
  /// Most bytes the realization may allocate, the result and every intermediate buffer of
  /// its schedule together; 0 means no cap. Checked on the schedule before anything runs,
  /// so a fuzzing harness or an embedder bounds memory without walking the graph itself.
  std::uint64_t max_bytes = 0;
};

/// tinygrad's Tensor.data(): commits a weak dtype, then an empty tensor gives a
/// zero-length view of shape (0,); otherwise contiguous + realize + a copy into a new host
/// buffer. Throws Error(NoFormat) with strict for bfloat16/fp8 ("... has no struct format"),
/// Error(Unsupported) "realize needs N bytes, over the cap of M (DataOptions::max_bytes)"
/// when the schedule's buffers would exceed a max_bytes cap.
MemoryView data(const Tensor& t, const DataOptions& options = {});

/// CPython's memoryview.cast(fmt[, shape]): reinterprets the bytes. Only C-contiguous
/// views; one side must be a byte format ('B', 'b', 'c'); the byte length must be kept;
/// `shape` (default: one axis) must multiply out to nbytes / itemsize. Each refusal is
/// Error(Unsupported) with CPython's words (e.g. "memoryview: cannot cast between two
/// non-byte formats").
MemoryView cast_view(const MemoryView& view, char format, const std::optional<Shape>& shape = std::nullopt);

}  // namespace tensor_inspect
