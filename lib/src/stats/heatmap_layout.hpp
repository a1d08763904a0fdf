// stats/heatmap_layout.hpp — where a 2-D tensor's elements lie in its stored bytes, so a heatmap
// of a transposed or flipped tensor (a Fortran-order .npy, -e 'x.T', -e 'x.flip(0)') reads the
// bytes in their own order instead of realizing a C-order copy first: a heatmap of a 256 MiB
// Fortran-order file held the copy and the file's pages (542 MiB) and took 2.2 s.
#pragma once

#include <optional>
#include <string>

#include "tensor_inspect/plot.hpp"
#include "tensor_inspect/stored_elements.hpp"
#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect {

/// A 2-D tensor of shape (R, C) over stored bytes that hold, in order, a C-order matrix M of
/// its elements: M is (R, C) (or, `transposed`, (C, R)), and element (r, c) of the tensor is
/// M[r', c'] (M[c', r']) with r' = R - 1 - r when `flip_rows`, else r, and likewise c'.
struct HeatmapLayout {
  bool transposed = false;
  bool flip_rows = false, flip_cols = false;
};

/// The layout of the 2-D tensor `t` over the bytes stored_elements(t) finds, when its views
/// (reshapes, permutes, flips of one buffer) come down to a transpose and flips of a C-order
/// matrix; nullopt otherwise (a reshape of a permuted buffer, not 2-D).
std::optional<HeatmapLayout> heatmap_layout(const Tensor& t);

/// draw_heatmap (plot.hpp) of `source`, a 2-D tensor laid out over its bytes as `layout` says:
/// the same picture as of its C-order copy, read in the bytes' order (and their pages released
/// behind). Throws as draw_heatmap.
PlotLayout draw_heatmap(const StoredElements& source, const HeatmapLayout& layout, const std::string& title,
                        PlotFormat format, std::string& out);

}  // namespace tensor_inspect
