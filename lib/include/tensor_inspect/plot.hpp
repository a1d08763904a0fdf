// tensor_inspect/plot.hpp — pictures of a tensor as PNG files: a histogram of its values,
// or a heatmap of a 2-D tensor, each with axes, a title and a colour scale.
//
// Drawn with cairo (Debian libcairo2-dev): a small, long-lived C library that writes PNG
// itself, draws text and anti-aliased lines, and reads PNGs back for tests, with no
// plotting runtime or interpreter behind it (PLplot or gnuplot would bring their own
// devices and drivers for what is here a few rectangles and labels).
//
//   ti::Histogram h = ti::compute_histogram(source, 40, lo, hi);
//   ti::write_histogram_png("hist.png", h, "model.norm.weight");
//   ti::PlotLayout l = ti::write_heatmap_png("w.png", source, "weights");  // source 2-D, C order
#pragma once

#include <string>

#include "tensor_inspect/stats.hpp"

namespace tensor_inspect {

/// Where a picture put its data, in pixels from the top-left corner of the image.
struct PlotLayout {
  int width = 0, height = 0;             ///< the image size
  double x0 = 0, y0 = 0;                 ///< top-left corner of the data area
  double cell_w = 0, cell_h = 0;         ///< heatmap: one cell; histogram: one bin's width, full height
  std::int64_t rows = 0, cols = 0;       ///< heatmap: cells drawn (after averaging); histogram: 1, bins
  double lo = 0, hi = 0;                 ///< the colour scale's (heatmap) or x axis' (histogram) range
};

/// The colour of `t` in [0, 1] on the heatmap scale (viridis: #440154 at 0, #fde725 at 1,
/// matplotlib's anchors at 0.25, 0.5, 0.75 linearly between), as 0xRRGGBB.
std::uint32_t heatmap_colour(double t);

/// Writes a PNG histogram of `hist`: one bar per bin, x axis from lo to hi, y axis in
/// counts, the nan/inf counts under the title. Throws Error(Io) naming `path` when the
/// file cannot be written.
PlotLayout write_histogram_png(const std::string& path, const Histogram& hist, const std::string& title);

/// Writes a PNG heatmap of a 2-D source in C order (`source.c_order`): rows top to
/// bottom, columns left to right; more than 512 rows or columns are averaged in blocks so
/// the picture holds at most 512 x 512 cells (nan cells grey). The colour scale spans the
/// cells' finite min..max. Throws Error(Usage) when the source is not 2-D or empty,
/// Error(Io) when the file cannot be written.
PlotLayout write_heatmap_png(const std::string& path, const StoredElements& source, const std::string& title);

}  // namespace tensor_inspect
