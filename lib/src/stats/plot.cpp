// stats/plot.cpp — histogram and heatmap pictures through cairo (see plot.hpp for why cairo); a
// heatmap's cells are made in heatmap_cells.cpp.
#include "tensor_inspect/plot.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "decode/lanes.hpp"
#include "stats/cairo_api.hpp"
#include "stats/heatmap_cells.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {
namespace {

constexpr double kLeft = 80, kRight = 120, kTop = 60, kBottom = 50;
constexpr double kArea = 512;  // the longer side of the data area

// NOTE: cairo is loaded with dlopen on the first picture, not linked (cairo_api.cpp): the tool
// starts in about a millisecond, which listing and header runs are bound by, and linking cairo
// would add its 19 shared libraries (X11, fontconfig, freetype, ...) to every start.

// Declared before a picture's surface and context, so it runs after they are destroyed:
// frees the font caches cairo and fontconfig keep for the life of the process (one
// picture per run), which LeakSanitizer would otherwise report at exit.
struct ReleaseFontCaches {
  ~ReleaseFontCaches() {
    if (cairo().debug_reset_static_data) cairo().debug_reset_static_data();
    if (cairo().fc_fini) cairo().fc_fini();
  }
};

cairo_status_t append(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

std::string label(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

void set_rgb(cairo_t* cr, std::uint32_t rgb) {
  cairo().set_source_rgb(cr, ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0, (rgb & 0xff) / 255.0);
}

void text(cairo_t* cr, double x, double y, const std::string& s, double size, double align = 0) {
  cairo().select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  cairo().set_font_size(cr, size);
  cairo_text_extents_t e;
  cairo().text_extents(cr, s.c_str(), &e);
  cairo().move_to(cr, x - align * e.x_advance, y);
  cairo().show_text(cr, s.c_str());
}

// A canvas of `format` drawing into `out`, with a white background and the title on top.
std::pair<Surface, CairoContext> canvas(PlotFormat format, std::string& out, int w, int h, const std::string& title,
                                        const std::string& subtitle) {
  out.clear();
  Surface s(format == PlotFormat::Svg   ? cairo().svg_surface_create_for_stream(append, &out, w, h)
            : format == PlotFormat::Pdf ? cairo().pdf_surface_create_for_stream(append, &out, w, h)
                                        : cairo().image_surface_create(CAIRO_FORMAT_RGB24, w, h));
  CairoContext cr(cairo().create(s.get()));
  set_rgb(cr.get(), 0xffffff);
  cairo().paint(cr.get());
  set_rgb(cr.get(), 0x000000);
  text(cr.get(), w / 2.0, 24, title.size() > 90 ? title.substr(0, 87) + "..." : title, 15, 0.5);
  text(cr.get(), w / 2.0, 44, subtitle, 11, 0.5);
  return {std::move(s), std::move(cr)};
}

// Ends the picture: a PNG is encoded into `out`; SVG and PDF surfaces wrote there as they drew.
void finish(cairo_surface_t* s, PlotFormat format, std::string& out) {
  cairo_status_t status = CAIRO_STATUS_SUCCESS;
  if (format == PlotFormat::Png) {
    cairo().surface_flush(s);
    status = cairo().surface_write_to_png_stream(s, append, &out);
  } else {
    cairo().surface_finish(s);
    status = cairo().surface_status(s);
  }
  if (status != CAIRO_STATUS_SUCCESS)
    throw Error(ErrorCode::Io, std::string("cannot draw the ") + plot_format_name(format) + " picture (cairo status " +
                                   std::to_string(static_cast<int>(status)) + ")");
}

// A frame around the data area with tick labels at both ends of each axis.
void axes(cairo_t* cr, const PlotLayout& l, double w, double h, const std::string& x_lo, const std::string& x_hi,
          const std::string& y_top, const std::string& y_bottom) {
  set_rgb(cr, 0x000000);
  cairo().set_line_width(cr, 1);
  cairo().rectangle(cr, l.x0 - 0.5, l.y0 - 0.5, w + 1, h + 1);
  cairo().stroke(cr);
  text(cr, l.x0, l.y0 + h + 18, x_lo, 11, 0);
  text(cr, l.x0 + w, l.y0 + h + 18, x_hi, 11, 1);
  text(cr, l.x0 - 6, l.y0 + 10, y_top, 11, 1);
  text(cr, l.x0 - 6, l.y0 + h, y_bottom, 11, 1);
}

std::uint32_t cell_colour(const HeatmapCells& c, std::size_t k) {
  if (c.kinds[k] & 1) return kHeatmapNan;
  if (c.kinds[k] & 2) return kHeatmapPosInf;
  if (c.kinds[k] & 4) return kHeatmapNegInf;
  return heatmap_colour(c.hi > c.lo ? (c.mean[k] - c.lo) / (c.hi - c.lo) : 0.0);
}

// The cells as an image of one pixel each, scaled onto the data area without smoothing: one
// image in an SVG or PDF, where 512 x 512 rectangles would be megabytes.
void paint_cells(cairo_t* cr, const HeatmapCells& c, const PlotLayout& l) {
  Surface image(cairo().image_surface_create(CAIRO_FORMAT_RGB24, static_cast<int>(c.cols), static_cast<int>(c.rows)));
  cairo().surface_flush(image.get());
  unsigned char* data = cairo().image_surface_get_data(image.get());
  const auto stride = static_cast<std::size_t>(cairo().image_surface_get_stride(image.get()));
  for (std::int64_t i = 0; i < c.rows; ++i)
    for (std::int64_t j = 0; j < c.cols; ++j) {
      const std::uint32_t rgb = cell_colour(c, static_cast<std::size_t>(i * c.cols + j));  // RGB24: native 0x00RRGGBB
      std::memcpy(data + static_cast<std::size_t>(i) * stride + static_cast<std::size_t>(j) * 4, &rgb, 4);
    }
  cairo().surface_mark_dirty(image.get());
  cairo().save(cr);
  cairo().translate(cr, l.x0, l.y0);
  cairo().scale(cr, l.cell_w, l.cell_h);
  cairo().set_source_surface(cr, image.get(), 0, 0);
  cairo().pattern_set_filter(cairo().get_source(cr), CAIRO_FILTER_NEAREST);
  cairo().rectangle(cr, 0, 0, static_cast<double>(c.cols), static_cast<double>(c.rows));
  cairo().fill(cr);
  cairo().restore(cr);
  // Cells of a pixel or two would hide one NaN among millions of values: each non-finite cell
  // gets a 7-pixel square of its colour in a black frame on top, centred on it. Past
  // kMarkedCells such cells they make regions of their own and need no marks.
  constexpr std::size_t kMarkedCells = 4096;
  if (l.cell_w >= 6) return;
  std::size_t flagged = 0;
  for (const std::uint8_t k : c.kinds) flagged += k != 0;
  if (flagged > kMarkedCells) return;
  for (std::int64_t i = 0; i < c.rows; ++i)
    for (std::int64_t j = 0; j < c.cols; ++j) {
      const auto k = static_cast<std::size_t>(i * c.cols + j);
      if (c.kinds[k] == 0) continue;
      const double x = std::floor(l.x0 + (static_cast<double>(j) + 0.5) * l.cell_w);
      const double y = std::floor(l.y0 + (static_cast<double>(i) + 0.5) * l.cell_h);
      set_rgb(cr, 0x000000);
      cairo().rectangle(cr, x - 4, y - 4, 9, 9);
      cairo().fill(cr);
      set_rgb(cr, cell_colour(c, k));
      cairo().rectangle(cr, x - 3, y - 3, 7, 7);
      cairo().fill(cr);
    }
}

// Under the x axis: a swatch and the count of each non-finite kind.
void legend(cairo_t* cr, const HeatmapCells& c, const PlotLayout& l, double ht) {
  const struct {
    std::uint32_t colour;
    const char* name;
    std::uint64_t count;
  } kinds[] = {{kHeatmapNan, "nan", c.nan}, {kHeatmapPosInf, "+inf", c.posinf}, {kHeatmapNegInf, "-inf", c.neginf}};
  double x = l.x0;
  const double y = l.y0 + ht + 40;
  for (const auto& k : kinds) {
    set_rgb(cr, k.colour);
    cairo().rectangle(cr, x, y - 9, 10, 10);
    cairo().fill(cr);
    set_rgb(cr, 0x000000);
    const std::string s = std::string(k.name) + " " + std::to_string(k.count);
    text(cr, x + 14, y, s, 11);
    x += 14 + 7.0 * static_cast<double>(s.size()) + 20;
  }
}

}  // namespace

PlotFormat plot_format_of(const std::string& path, bool stream) {
  const std::size_t slash = path.rfind('/'), dot = path.rfind('.');
  std::string ext = dot == std::string::npos || (slash != std::string::npos && dot < slash) ? "" : path.substr(dot + 1);
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (ext == "png" || (ext.empty() && stream)) return PlotFormat::Png;
  if (ext == "svg") return PlotFormat::Svg;
  if (ext == "pdf") return PlotFormat::Pdf;
  throw Error(ErrorCode::Usage, "--plot '" + path + "': " + (ext.empty() ? "no extension" : "'." + ext + "'") +
                                    " names no picture format the tool writes: end the path in .png, .svg or .pdf");
}

const char* plot_format_name(PlotFormat format) {
  return format == PlotFormat::Svg ? "SVG" : format == PlotFormat::Pdf ? "PDF" : "PNG";
}

std::uint32_t heatmap_colour(double t) {
  static const double anchors[5][3] = {
      {0x44, 0x01, 0x54}, {0x3b, 0x52, 0x8b}, {0x21, 0x91, 0x8c}, {0x5e, 0xc9, 0x62}, {0xfd, 0xe7, 0x25}};
  t = std::clamp(std::isnan(t) ? 0.0 : t, 0.0, 1.0) * 4;
  const int i = std::min(3, static_cast<int>(t));
  const double f = t - i;
  std::uint32_t rgb = 0;
  for (int c = 0; c < 3; ++c)
    rgb = rgb << 8 | static_cast<std::uint32_t>(std::lround(anchors[i][c] + f * (anchors[i + 1][c] - anchors[i][c])));
  return rgb;
}

PlotLayout draw_histogram(const Histogram& h, const std::string& title, PlotFormat format, std::string& out) {
  PlotLayout l;
  const double w = 640, ht = 360;
  l.width = static_cast<int>(kLeft + w + 40);
  l.height = static_cast<int>(kTop + ht + kBottom);
  l.x0 = kLeft;
  l.y0 = kTop;
  l.rows = 1;
  l.cols = static_cast<std::int64_t>(h.counts.size());
  l.cell_w = w / static_cast<double>(h.counts.size());
  l.cell_h = ht;
  l.lo = h.lo;
  l.hi = h.hi;
  const ReleaseFontCaches release;
  auto [surface, cr] = canvas(format, out, l.width, l.height, title,
                              std::to_string(h.counts.size()) + (h.counts.size() == 1 ? " bin; nan " : " bins; nan ") +
                                  std::to_string(h.nan) + ", +inf " + std::to_string(h.posinf) + ", -inf " +
                                  std::to_string(h.neginf) + " counted apart");
  const std::uint64_t peak = std::max<std::uint64_t>(1, *std::max_element(h.counts.begin(), h.counts.end()));
  set_rgb(cr.get(), heatmap_colour(0.35));
  for (std::size_t i = 0; i < h.counts.size(); ++i) {
    const double bar = ht * static_cast<double>(h.counts[i]) / static_cast<double>(peak);
    cairo().rectangle(cr.get(), l.x0 + static_cast<double>(i) * l.cell_w, l.y0 + ht - bar, l.cell_w, bar);
  }
  cairo().fill(cr.get());
  axes(cr.get(), l, w, ht, label(h.lo), label(h.hi), std::to_string(peak), "0");
  cr.reset();
  finish(surface.get(), format, out);
  return l;
}

PlotLayout draw_heatmap_cells(const Shape& shape,
                              const std::function<HeatmapCells(std::int64_t rows, std::int64_t cols)>& make,
                              const std::string& title, PlotFormat format, std::string& out) {
  if (shape.size() != 2 || shape[0] == 0 || shape[1] == 0)
    throw Error(ErrorCode::Usage, "--plot-kind heatmap needs a non-empty 2-D tensor, not shape " + shape_repr(shape) +
                                      " (choose a 2-D slice with -e, e.g. -e 'x[0]')");
  const std::int64_t rows = shape[0], cols = shape[1];
  const std::int64_t gr = std::min<std::int64_t>(rows, 512), gc = std::min<std::int64_t>(cols, 512);
  const HeatmapCells cells = make(gr, gc);

  PlotLayout l;
  const double px = kArea / static_cast<double>(std::max(gr, gc));
  const double w = px * static_cast<double>(gc), ht = px * static_cast<double>(gr);
  // At least as wide as the legend under a narrow picture (a column of 512 rows).
  l.width = std::max(static_cast<int>(std::ceil(kLeft + w + kRight)), static_cast<int>(kLeft) + 300);
  l.height = static_cast<int>(std::ceil(kTop + ht + kBottom));
  l.x0 = kLeft;
  l.y0 = kTop;
  l.cell_w = l.cell_h = px;
  l.rows = gr;
  l.cols = gc;
  l.lo = cells.lo;
  l.hi = cells.hi;
  l.nan = cells.nan;
  l.posinf = cells.posinf;
  l.neginf = cells.neginf;
  const ReleaseFontCaches release;
  auto [surface, cr] = canvas(format, out, l.width, l.height, title,
                              shape_repr(shape) + (gr < rows || gc < cols ? ", block means in " + std::to_string(gr) +
                                                                                  " x " + std::to_string(gc) + " cells"
                                                                            : ""));
  paint_cells(cr.get(), cells, l);
  axes(cr.get(), l, w, ht, "col 0", "col " + std::to_string(cols - 1), "row 0", "row " + std::to_string(rows - 1));
  legend(cr.get(), cells, l, ht);
  // The colour scale: a vertical bar from hi (top) to lo (bottom).
  const double bx = l.x0 + w + 30, bw = 20;
  for (int y = 0; y < static_cast<int>(ht); ++y) {
    set_rgb(cr.get(), heatmap_colour(1.0 - (y + 0.5) / ht));
    cairo().rectangle(cr.get(), bx, l.y0 + y, bw, 1);
    cairo().fill(cr.get());
  }
  set_rgb(cr.get(), 0x000000);
  text(cr.get(), bx + bw + 4, l.y0 + 10, label(cells.hi), 11);
  text(cr.get(), bx + bw + 4, l.y0 + ht, label(cells.lo), 11);
  cr.reset();
  finish(surface.get(), format, out);
  return l;
}

}  // namespace tensor_inspect
