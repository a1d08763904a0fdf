// tensor_inspect/memoryview.hpp — CPython's memoryview over a realized tensor, and
// tinygrad's Tensor.data() that makes one.
//
//   ti::MemoryView mv = ti::data(t);            // commits weak dtypes, realizes, copies
//   mv.format;  mv.shape;  mv.nbytes;            // "f", (2, 3), 24
//   mv.element(5);                               // the 6th value in C order, as a Scalar
//   ti::MemoryView b = ti::cast_view(mv, 'B');   // memoryview.cast('B'): the raw bytes
//   ti::data_header(t).nbytes;                   // the same fields, nothing realized
//   ti::cast_of_swapped(t, ti::cast_view(ti::data_header(t), 'B'));  // lazy, for a big-endian file
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
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
  bool native_prefix = false;     ///< cast with an explicit '@' ("@i"): CPython keeps it in format
  /// `buffer` holds each element with its bytes reversed: the stored bytes of a file of the
  /// other byte order, read in place (DataOptions::swapped_in_place) instead of realizing
  /// the swapped copy. The fields describe the values as data() gives them; element() and
  /// the renderers swap each value back. Never set by data()'s default; cast_view refuses it.
  bool stored_swapped = false;

  /// CPython's memoryview.format: the struct char, with the '@' it was cast with ("@i");
  /// nullopt where there is no format.
  std::optional<std::string> format_string() const {
    if (!format) return std::nullopt;
    return native_prefix ? std::string{'@', *format} : std::string(1, *format);
  }

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
  /// When t is a byte swap of one whole stored buffer in C order (a big-endian .npy), give
  /// a view of the stored bytes with MemoryView::stored_swapped set instead of realizing a
  /// swapped copy. For callers that only print the values (the printing of a whole tensor);
  /// the view's bytes are not Tensor.data()'s, so nothing that hands out raw bytes sets this.
  bool swapped_in_place = false;
};

/// tinygrad's Tensor.data(): commits a weak dtype, then an empty tensor gives a
/// zero-length view of shape (0,); otherwise contiguous + realize + a copy into a new host
/// buffer (or, with options.swapped_in_place, the stored bytes of a byte-swapped file). Throws Error(NoFormat) with
/// strict for bfloat16/fp8 ("... has no struct format"), Error(Unsupported) "realize needs N bytes, over the cap of M
/// (DataOptions::max_bytes)" when the schedule's buffers would exceed a max_bytes cap.
MemoryView data(const Tensor& t, const DataOptions& options = {});

/// The fields data() would give (format, dtype, itemsize, nbytes, shape, strides, flags),
/// from t's dtype and shape alone: nothing is realized or read, and `buffer` stays null.
/// Throws what data() throws before it realizes (Error(NoFormat) with strict, a memoryview
/// of more than 64 dimensions).
MemoryView data_header(const Tensor& t, const DataOptions& options = {});

/// CPython's memoryview.cast(fmt[, shape]): reinterprets the bytes. Only C-contiguous
/// views (and not a stored_swapped one: Error(Internal)); one side must be a byte format ('B', 'b', 'c'); the byte
/// length must be kept; `shape` (default: one axis) must multiply out to nbytes / itemsize. Each refusal is
/// Error(Unsupported) with CPython's words (e.g. "memoryview: cannot cast between two
/// non-byte formats").
MemoryView cast_view(const MemoryView& view, char format, const std::optional<Shape>& shape = std::nullopt);
/// The elements of `view` as a lazy tensor of its dtype and shape, where `view` is
/// memoryview.cast() (cast_view, once or more) of data_header(t, options): when data(t)'s
/// bytes are a byte swap of one whole stored buffer in C order (a big-endian .npy), each
/// element is gathered from the stored bytes as it is computed, so realizing a slice of it
/// (a summary's shown elements) reads only their bytes, not a swapped copy of the whole
/// tensor. nullopt for every other t: cast the realized data(t) instead. Reads nothing.
std::optional<Tensor> cast_of_swapped(const Tensor& t, const MemoryView& view, const DataOptions& options = {});

/// memoryview.cast with the format as Python spells it: one struct char, optionally after
/// '@' ("@i"), which the result's format_string() keeps as CPython does. Any other
/// spelling is Error(Unsupported) "memoryview: destination format must be a native single
/// character format prefixed with an optional '@'".
MemoryView cast_view(const MemoryView& view, std::string_view format, const std::optional<Shape>& shape = std::nullopt);

/// cast_view for each --view-as spec, in order: "FMT" or "FMT:SHAPE" ("B", "@i", "f:2,2"), as
/// memoryview.cast(FMT[, SHAPE]) chained. Throws Error(Usage) for a format that is not one struct
/// character (optionally after '@') or a malformed shape, and what cast_view throws.
MemoryView cast_view_as(MemoryView view, const std::vector<std::string>& view_as);

}  // namespace tensor_inspect
