// tensor_inspect/plot.hpp — pictures of a tensor: a histogram of its values, or a heatmap of a
// 2-D tensor, each with axes, a title and a colour scale, as PNG, SVG or PDF bytes (written to
// a file through tensor_inspect/safe_write.hpp).
//
// Drawn with cairo (Debian libcairo2-dev): a small, long-lived C library that writes PNG, SVG
// and PDF itself, draws text and anti-aliased lines, and reads PNGs back for tests, with no
// plotting runtime or interpreter behind it (PLplot or gnuplot would bring their own
// devices and drivers for what is here a few rectangles and labels).
//
//   ti::Histogram h = ti::compute_histogram(source, 40, lo, hi);
//   std::string png;
//   ti::draw_histogram(h, "model.norm.weight", ti::PlotFormat::Png, png);
//   ti::PlotLayout l = ti::draw_heatmap(source, "w", ti::plot_format_of("w.svg", false), svg);  // 2-D, C order
#pragma once

#include <string>

#include "tensor_inspect/stats.hpp"

namespace tensor_inspect {

/// Where a picture put its data, in pixels (points for SVG and PDF) from its top-left corner.
struct PlotLayout {
  int width = 0, height = 0;             ///< the image size
  double x0 = 0, y0 = 0;                 ///< top-left corner of the data area
  double cell_w = 0, cell_h = 0;         ///< heatmap: one cell; histogram: one bin's width, full height
  std::int64_t rows = 0, cols = 0;       ///< heatmap: cells drawn (after averaging); histogram: 1, bins
  double lo = 0, hi = 0;                 ///< the colour scale's (heatmap) or x axis' (histogram) range
  std::uint64_t nan = 0, posinf = 0, neginf = 0;  ///< heatmap: the non-finite values, as its legend counts them
};

/// The file formats a picture can take.
enum class PlotFormat { Png, Svg, Pdf };

/// The format `path`'s extension names (.png, .svg, .pdf, any case). A path without an
/// extension that is a `stream` (`-`, a pipe, a device) is PNG. Throws Error(Usage) naming the
/// path and the formats for any other extension, or none.
PlotFormat plot_format_of(const std::string& path, bool stream);

/// The format's name as a file type ("PNG", "SVG", "PDF").
const char* plot_format_name(PlotFormat format);

/// The colour of `t` in [0, 1] on the heatmap scale (viridis: #440154 at 0, #fde725 at 1,
/// matplotlib's anchors at 0.25, 0.5, 0.75 linearly between), as 0xRRGGBB.
std::uint32_t heatmap_colour(double t);

/// The heatmap's colours of the values off its scale, as 0xRRGGBB: red, magenta and cyan,
/// none of them on viridis.
inline constexpr std::uint32_t kHeatmapNan = 0xff0000, kHeatmapPosInf = 0xff00ff, kHeatmapNegInf = 0x00ffff;

/// Draws a histogram of `hist` into `out` (replaced) in `format`: one bar per bin, x axis
/// from lo to hi, y axis in counts, the nan/inf counts under the title.
PlotLayout draw_histogram(const Histogram& hist, const std::string& title, PlotFormat format, std::string& out);

/// Draws a heatmap of a 2-D source in C order (`source.c_order`) into `out` (replaced) in
/// `format`: rows top to bottom, columns left to right; more than 512 rows or columns are
/// averaged in blocks so the picture holds at most 512 x 512 cells. A cell holding a NaN
/// takes kHeatmapNan, else one holding +inf kHeatmapPosInf, else one holding -inf
/// kHeatmapNegInf, else the colour of the mean of
/// its values on the scale, which spans the cells' finite min..max. Where cells are smaller
/// than 6 pixels, each non-finite one (up to 4096 of them) also gets a 7-pixel square of its
/// colour, so one NaN among 2^28 values is seen. A legend under the picture counts each kind.
/// Throws Error(Usage) when the source is not 2-D or empty.
PlotLayout draw_heatmap(const StoredElements& source, const std::string& title, PlotFormat format, std::string& out);

}  // namespace tensor_inspect
