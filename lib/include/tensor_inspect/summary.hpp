// tensor_inspect/summary.hpp — NumPy's summarized printing (numpy.set_printoptions'
// `threshold` and `edgeitems`): which elements a large array shows, and the small lazy
// tensor of exactly those, so that printing a 1 GiB tensor reads a few pages.
//
//   ti::PrintOptions po;                              // threshold 1000, edgeitems 3 (NumPy's defaults)
//   auto s = ti::summarize({2000, 10}, po);           // 20000 > 1000: both axes are longer than 6
//   s->shown_shape();                                 // (6, 6): 3 leading + 3 trailing items per axis
//   ti::MemoryView edges = ti::data(ti::edge_elements(t, *s));   // realizes 36 elements, not 20000
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "tensor_inspect/tensor.hpp"
#include "tensor_inspect/view.hpp"

namespace tensor_inspect {

/// NumPy's print options that decide summarization (numpy.get_printoptions()).
struct PrintOptions {
  /// An array is summarized when its size (elements) is greater than this; NumPy's
  /// default 1000. `kNoThreshold` (sys.maxsize) never summarizes.
  std::int64_t threshold = 1000;
  /// Items shown at each end of a summarized axis; NumPy's default 3.
  std::int64_t edgeitems = 3;
  static constexpr std::int64_t kNoThreshold = std::numeric_limits<std::int64_t>::max();
};

/// Which elements numpy.array2string shows for a summarized array (its _formatArray):
/// on each axis longer than 2 * edgeitems, `edgeitems` leading items, then "...", then
/// the trailing items; other axes in full.
struct Summary {
  Shape shape;                 ///< the full shape (elements per axis)
  std::int64_t edgeitems = 0;  ///< leading items of an elided axis
  std::vector<bool> elided;    ///< per axis: "..." stands for the middle items

  /// Trailing items of an elided axis: edgeitems, but at least 1, because NumPy always
  /// prints an axis's last item (edgeitems=0 prints `[..., 1999]`).
  std::int64_t trailing() const { return edgeitems > 0 ? edgeitems : 1; }
  /// Elements per axis of the shown part: edgeitems + trailing() on elided axes, the
  /// full length elsewhere.
  Shape shown_shape() const;
  /// Elements shown: prod(shown_shape()).
  std::int64_t shown() const { return prod(shown_shape()); }
  /// Elements of the whole array: prod(shape).
  std::int64_t size() const { return prod(shape); }
};

/// The summary NumPy prints for an array of `shape`, or nullopt when it prints every
/// element: a size at or under the threshold, no axis longer than 2 * edgeitems, a 0-d
/// array (a bare scalar) or an empty one (NumPy prints `[]`). Negative `edgeitems` count as 0.
std::optional<Summary> summarize(const Shape& shape, const PrintOptions& options);

/// The shown elements of `t` (whose shape is summary.shape) as a lazy tensor of
/// summary.shown_shape(), in C order: view-only ops (pad, reshape, shrink) per elided
/// axis, so realizing it computes and reads only those elements. Throws Error(Internal)
/// when t's shape is not summary.shape.
Tensor edge_elements(const Tensor& t, const Summary& summary);

}  // namespace tensor_inspect
