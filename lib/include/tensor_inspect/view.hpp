// tensor_inspect/view.hpp — shape, strides, offset and mask of a tensor over its buffer.
//
// A View is a value. Strides are in elements and signed (flip makes them negative); only
// the memoryview turns them into byte strides, as Python does. Movement ops return a new
// View; View::reshape returns nullopt when the reshape cannot be expressed over the same
// buffer without a copy (tinygrad's View.reshape).
//
//   View v = View::make({2, 3});                  // contiguous: strides (3, 1)
//   View t = v.permute({1, 0});                   // shape (3, 2), strides (1, 3)
//   std::optional<View> r = t.reshape({6});       // nullopt: a transposed view needs a copy
//   t.index_of({2, 1});                           // 5: element (2,1) of t is buffer element 5
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tensor_inspect {

/// Dimensions, outermost first, in elements.
using Shape = std::vector<std::int64_t>;
/// (begin, end) per axis: a pad amount (before, after) or a shrink/mask range [begin, end).
using Ranges = std::vector<std::pair<std::int64_t, std::int64_t>>;

/// Number of elements of a shape (1 for the 0-d shape ()).
std::int64_t prod(const Shape& shape);
/// C-order (row-major) element strides of a shape; size-1 axes get stride 0 like tinygrad.
std::vector<std::int64_t> strides_for_shape(const Shape& shape);
/// Python's repr of a shape tuple: "()", "(3,)", "(2, 3)".
std::string shape_repr(const Shape& shape);
/// A shape as a user writes it: "2,3", "(2, 3)", "2," (the 1-tuple), "" or "()" (0-d);
/// parentheses and spaces are ignored. Throws Error(Usage) naming `what` (the option, as
/// "--shape") for an empty dimension ("2,,2") or one that is not a whole number >= 0.
Shape parse_shape(const std::string& text, const char* what);

/// One affine view: element idx maps to buffer element offset + sum(idx[i] * strides[i]),
/// valid only where every idx[i] lies in mask[i] (outside it the value is 0).
struct View {
  Shape shape;
  std::vector<std::int64_t> strides;
  std::int64_t offset = 0;
  std::optional<Ranges> mask;
  bool contiguous = true;  ///< shape is laid out C-contiguously from offset 0, unmasked

  /// The canonical View: zero strides on size-1 axes, a mask dropped when it covers all,
  /// `contiguous` computed. Empty `strides` means C-contiguous strides.
  static View make(Shape shape, std::vector<std::int64_t> strides = {}, std::int64_t offset = 0,
                   std::optional<Ranges> mask = std::nullopt);

  /// Same elements under a new shape of equal size; nullopt when that needs a copy.
  std::optional<View> reshape(const Shape& new_shape) const;
  /// Axes reordered: new axis i is old axis order[i]. `order` must be a permutation.
  View permute(const std::vector<std::int64_t>& order) const;
  /// Size-1 axes broadcast to `new_shape` (stride 0). Same ndim required.
  View expand(const Shape& new_shape) const;
  /// Each axis grows by (before, after) elements that read as 0 (a mask).
  View pad(const Ranges& padding) const;
  /// Each axis restricted to [begin, end).
  View shrink(const Ranges& ranges) const;
  /// The axes with flip[i] true are reversed (negative stride).
  View flip(const std::vector<bool>& axes) const;

  /// Buffer element index of a multi-index, or -1 where the mask hides it.
  std::int64_t index_of(const std::vector<std::int64_t>& idx) const;
};

}  // namespace tensor_inspect
