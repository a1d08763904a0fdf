// stats/heatmap_cells.hpp — a heatmap's cells: block means of a 2-D tensor's finite values and
// which non-finite kinds each block holds, added up in one fixed order (the stored bytes' order
// for stored elements, C order for a computed tensor), so a picture never depends on how its
// values were read or on the thread count. plot.cpp paints them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "stats/heatmap_layout.hpp"
#include "tensor_inspect/plot.hpp"
#include "tensor_inspect/stored_elements.hpp"
#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect {

/// The cells of a heatmap: `rows` x `cols` blocks of the tensor's (R, C) elements, element (r, c)
/// in cell (r * rows / R, c * cols / C).
struct HeatmapCells {
  std::int64_t rows = 0, cols = 0;
  std::vector<double> mean;         ///< the mean of the finite values (when `finite` > 0)
  std::vector<double> finite;       ///< how many finite values
  std::vector<std::uint8_t> kinds;  ///< bit 0: a NaN, bit 1: a +inf, bit 2: a -inf
  std::uint64_t nan = 0, posinf = 0, neginf = 0;
  double lo = 0, hi = 0;  ///< the finite cell means' range

  /// Empty cells, `rows` x `cols` of them.
  HeatmapCells(std::int64_t rows_, std::int64_t cols_);
  /// The cell of element (r, c) of a tensor of `tensor_rows` x `tensor_cols` elements.
  std::size_t cell(std::int64_t r, std::int64_t c, std::int64_t tensor_rows, std::int64_t tensor_cols) const {
    return static_cast<std::size_t>(r * rows / tensor_rows * cols + c * cols / tensor_cols);
  }
  /// Adds value `v` to cell `cell` (a sum of the finite ones, a kind bit and count otherwise).
  void add(std::size_t cell, double v);
  /// Turns the sums into means and sets lo and hi (both 0 when no cell holds a finite value).
  void finish();
};

/// The cells of stored elements `s` (2-D, its shape the tensor's) laid out over its bytes as
/// `layout` says, read in the bytes' order, the pages of a local file map released behind.
HeatmapCells heatmap_cells(const StoredElements& s, const HeatmapLayout& layout, std::int64_t rows,
                           std::int64_t cols);

/// The cells of 2-D tensor `t` (committed dtype) computed by the executor and streamed in C order
/// (for_each_chunk): memory a batch of values, however large `t`. The same cells, bit for bit, as
/// those of its realized C-order copy. Throws what realize throws.
HeatmapCells heatmap_cells_streamed(const Tensor& t, std::int64_t rows, std::int64_t cols);

/// Draws the heatmap of a 2-D tensor of `shape` whose cells `cells(rows, cols)` makes (plot.cpp):
/// at most 512 x 512 cells. Throws Error(Usage) for a shape not 2-D or empty, Error(Io) when
/// cairo cannot draw.
PlotLayout draw_heatmap_cells(const Shape& shape,
                              const std::function<HeatmapCells(std::int64_t rows, std::int64_t cols)>& cells,
                              const std::string& title, PlotFormat format, std::string& out);

}  // namespace tensor_inspect
