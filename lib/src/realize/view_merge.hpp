// view_merge.hpp — two stacked Views as one, where one can say what both do.
//
// A reshape a View cannot express (one of a masked view: tinygrad's `x[::2]` pads, reshapes
// to (n/2, 2) and shrinks) starts a new View on top of the old one (program.cpp's index_map).
// Each View alone may then read out of order where the pair reads in order: x.T[::2] stacks
// x.T (masked by the pad) under the reshape, and its kernel in the file's order (rows outer)
// steps the top View's index by 1 and 16,384 alternately, though the buffer index it reads only
// goes up. view_order judges a stack view by view, so it found no order, and a reduction over
// x.T[::2] went through block caches or the map instead of folding in the file's order.
#pragma once

#include <optional>

#include "tensor_inspect/view.hpp"

namespace tensor_inspect::realize_detail {

/// One View equal to `top` over `bottom` (top's index space mapped to bottom's C-order linear
/// index, then through bottom to the buffer) on every index top's mask leaves, or nullopt when
/// no View is: when a step of one of top's axes would carry from one of bottom's axes into
/// the next over the indices top reads, or reach where bottom's mask hides elements. The result
/// keeps top's shape and mask. This is tinygrad's merge of a ShapeTracker's views, narrowed to
/// the case without a carry (tinygrad/shape/view.py, View.__add__).
std::optional<View> merge_views(const View& bottom, const View& top);

}  // namespace tensor_inspect::realize_detail
