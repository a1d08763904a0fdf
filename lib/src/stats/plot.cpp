// stats/plot.cpp — histogram and heatmap PNGs through cairo (see plot.hpp for why cairo).
#include "tensor_inspect/plot.hpp"

#include <cairo.h>
#include <dlfcn.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "tensor_inspect/error.hpp"

namespace tensor_inspect {
namespace {

constexpr double kLeft = 80, kRight = 120, kTop = 60, kBottom = 50;
constexpr double kArea = 512;  // the longer side of the data area

// NOTE: cairo is loaded with dlopen on the first picture, not linked: the tool starts in
// about a millisecond, which listing and header runs are bound by, and linking cairo would
// add its 19 shared libraries (X11, fontconfig, freetype, ...) to every start.
struct CairoApi {
  decltype(&::cairo_image_surface_create) image_surface_create = nullptr;
  decltype(&::cairo_create) create = nullptr;
  decltype(&::cairo_set_source_rgb) set_source_rgb = nullptr;
  decltype(&::cairo_paint) paint = nullptr;
  decltype(&::cairo_select_font_face) select_font_face = nullptr;
  decltype(&::cairo_set_font_size) set_font_size = nullptr;
  decltype(&::cairo_text_extents) text_extents = nullptr;
  decltype(&::cairo_move_to) move_to = nullptr;
  decltype(&::cairo_show_text) show_text = nullptr;
  decltype(&::cairo_surface_flush) surface_flush = nullptr;
  decltype(&::cairo_surface_write_to_png) surface_write_to_png = nullptr;
  decltype(&::cairo_set_line_width) set_line_width = nullptr;
  decltype(&::cairo_rectangle) rectangle = nullptr;
  decltype(&::cairo_stroke) stroke = nullptr;
  decltype(&::cairo_fill) fill = nullptr;
  decltype(&::cairo_surface_destroy) surface_destroy = nullptr;
  decltype(&::cairo_destroy) destroy = nullptr;
  void (*debug_reset_static_data)() = nullptr;  ///< optional: cairo's caches, freed for leak checkers
  void (*fc_fini)() = nullptr;                  ///< optional: fontconfig's (FcFini), which cairo loads
};

const CairoApi& cairo() {
  static const CairoApi api = [] {
    CairoApi a;
    void* lib = ::dlopen("libcairo.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib) throw Error(ErrorCode::Unsupported, "--plot needs the cairo library (Debian package libcairo2): " + std::string(::dlerror()));
    auto load = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib, name));
      if (!fn) throw Error(ErrorCode::Unsupported, std::string("--plot: libcairo.so.2 has no ") + name);
    };
    load(a.image_surface_create, "cairo_image_surface_create");
    load(a.create, "cairo_create");
    load(a.set_source_rgb, "cairo_set_source_rgb");
    load(a.paint, "cairo_paint");
    load(a.select_font_face, "cairo_select_font_face");
    load(a.set_font_size, "cairo_set_font_size");
    load(a.text_extents, "cairo_text_extents");
    load(a.move_to, "cairo_move_to");
    load(a.show_text, "cairo_show_text");
    load(a.surface_flush, "cairo_surface_flush");
    load(a.surface_write_to_png, "cairo_surface_write_to_png");
    load(a.set_line_width, "cairo_set_line_width");
    load(a.rectangle, "cairo_rectangle");
    load(a.stroke, "cairo_stroke");
    load(a.fill, "cairo_fill");
    load(a.surface_destroy, "cairo_surface_destroy");
    load(a.destroy, "cairo_destroy");
    a.debug_reset_static_data = reinterpret_cast<void (*)()>(::dlsym(lib, "cairo_debug_reset_static_data"));
    a.fc_fini = reinterpret_cast<void (*)()>(::dlsym(lib, "FcFini"));
    return a;
  }();
  return api;
}

// Declared before a picture's surface and context, so it runs after they are destroyed:
// frees the font caches cairo and fontconfig keep for the life of the process (one
// picture per run), which LeakSanitizer would otherwise report at exit.
struct ReleaseFontCaches {
  ~ReleaseFontCaches() {
    if (cairo().debug_reset_static_data) cairo().debug_reset_static_data();
    if (cairo().fc_fini) cairo().fc_fini();
  }
};

struct SurfaceDeleter {
  void operator()(cairo_surface_t* s) const { cairo().surface_destroy(s); }
};
struct ContextDeleter {
  void operator()(cairo_t* c) const { cairo().destroy(c); }
};
using Surface = std::unique_ptr<cairo_surface_t, SurfaceDeleter>;
using Context = std::unique_ptr<cairo_t, ContextDeleter>;

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

// A canvas with a white background and the title on top.
std::pair<Surface, Context> canvas(int w, int h, const std::string& title, const std::string& subtitle) {
  Surface s(cairo().image_surface_create(CAIRO_FORMAT_RGB24, w, h));
  Context cr(cairo().create(s.get()));
  set_rgb(cr.get(), 0xffffff);
  cairo().paint(cr.get());
  set_rgb(cr.get(), 0x000000);
  text(cr.get(), w / 2.0, 24, title.size() > 90 ? title.substr(0, 87) + "..." : title, 15, 0.5);
  text(cr.get(), w / 2.0, 44, subtitle, 11, 0.5);
  return {std::move(s), std::move(cr)};
}

void save(cairo_surface_t* s, const std::string& path) {
  cairo().surface_flush(s);
  // cairo says only "write error": the file is opened here first, so a missing folder or
  // a read-only place gets the OS's reason.
  errno = 0;
  if (std::FILE* f = std::fopen(path.c_str(), "wb")) std::fclose(f);
  else throw Error(ErrorCode::Io, path + ": cannot write the PNG file: " + std::strerror(errno));
  errno = 0;
  if (cairo().surface_write_to_png(s, path.c_str()) != CAIRO_STATUS_SUCCESS)
    throw Error(ErrorCode::Io, path + ": cannot write the PNG file" + (errno ? std::string(": ") + std::strerror(errno) : std::string()));
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

}  // namespace

std::uint32_t heatmap_colour(double t) {
  static const double anchors[5][3] = {{0x44, 0x01, 0x54}, {0x3b, 0x52, 0x8b}, {0x21, 0x91, 0x8c}, {0x5e, 0xc9, 0x62}, {0xfd, 0xe7, 0x25}};
  t = std::clamp(std::isnan(t) ? 0.0 : t, 0.0, 1.0) * 4;
  const int i = std::min(3, static_cast<int>(t));
  const double f = t - i;
  std::uint32_t rgb = 0;
  for (int c = 0; c < 3; ++c)
    rgb = rgb << 8 | static_cast<std::uint32_t>(std::lround(anchors[i][c] + f * (anchors[i + 1][c] - anchors[i][c])));
  return rgb;
}

PlotLayout write_histogram_png(const std::string& path, const Histogram& h, const std::string& title) {
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
  auto [surface, cr] = canvas(l.width, l.height, title,
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
  save(surface.get(), path);
  return l;
}

PlotLayout write_heatmap_png(const std::string& path, const StoredElements& s, const std::string& title) {
  if (s.shape.size() != 2 || s.numel == 0)
    throw Error(ErrorCode::Usage, "--plot-kind heatmap needs a non-empty 2-D tensor, not shape " + shape_repr(s.shape) +
                                      " (choose a 2-D slice with -e, e.g. -e 'x[0]')");
  const std::int64_t rows = s.shape[0], cols = s.shape[1];
  const std::int64_t gr = std::min<std::int64_t>(rows, 512), gc = std::min<std::int64_t>(cols, 512);
  // Each cell is the mean of the finite values of its block of rows and columns.
  std::vector<double> sum(static_cast<std::size_t>(gr * gc), 0.0), count(sum.size(), 0.0);
  std::vector<double> row(static_cast<std::size_t>(std::min<std::int64_t>(cols, kStatsBlock)));
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t cr = r * gr / rows;
    for (std::int64_t c0 = 0; c0 < cols; c0 += static_cast<std::int64_t>(row.size())) {
      const auto n = static_cast<std::size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(row.size()), cols - c0));
      decode_values(s, r * cols + c0, std::span(row.data(), n));
      for (std::size_t j = 0; j < n; ++j) {
        if (!std::isfinite(row[j])) continue;
        const auto cell = static_cast<std::size_t>(cr * gc + (c0 + static_cast<std::int64_t>(j)) * gc / cols);
        sum[cell] += row[j];
        count[cell] += 1;
      }
    }
  }
  double lo = INFINITY, hi = -INFINITY;
  for (std::size_t i = 0; i < sum.size(); ++i)
    if (count[i] > 0) {
      sum[i] /= count[i];
      lo = std::min(lo, sum[i]);
      hi = std::max(hi, sum[i]);
    }
  if (!(lo <= hi)) lo = hi = 0;

  PlotLayout l;
  const double px = kArea / static_cast<double>(std::max(gr, gc));
  const double w = px * static_cast<double>(gc), ht = px * static_cast<double>(gr);
  l.width = static_cast<int>(std::ceil(kLeft + w + kRight));
  l.height = static_cast<int>(std::ceil(kTop + ht + kBottom));
  l.x0 = kLeft;
  l.y0 = kTop;
  l.cell_w = l.cell_h = px;
  l.rows = gr;
  l.cols = gc;
  l.lo = lo;
  l.hi = hi;
  const ReleaseFontCaches release;
  auto [surface, cr] = canvas(l.width, l.height, title,
                              shape_repr(s.shape) + (gr < rows || gc < cols ? ", block means in " + std::to_string(gr) + " x " +
                                                                                  std::to_string(gc) + " cells" : ""));
  for (std::int64_t i = 0; i < gr; ++i)
    for (std::int64_t j = 0; j < gc; ++j) {
      const auto k = static_cast<std::size_t>(i * gc + j);
      set_rgb(cr.get(), count[k] == 0 ? 0x808080 : heatmap_colour(hi > lo ? (sum[k] - lo) / (hi - lo) : 0.0));
      // Cells snap to whole pixels so neighbours never blend at the edges.
      const double x = std::round(l.x0 + static_cast<double>(j) * px), y = std::round(l.y0 + static_cast<double>(i) * px);
      cairo().rectangle(cr.get(), x, y, std::round(l.x0 + static_cast<double>(j + 1) * px) - x,
                      std::round(l.y0 + static_cast<double>(i + 1) * px) - y);
      cairo().fill(cr.get());
    }
  axes(cr.get(), l, w, ht, "col 0", "col " + std::to_string(cols - 1), "row 0", "row " + std::to_string(rows - 1));
  // The colour scale: a vertical bar from hi (top) to lo (bottom).
  const double bx = l.x0 + w + 30, bw = 20;
  for (int y = 0; y < static_cast<int>(ht); ++y) {
    set_rgb(cr.get(), heatmap_colour(1.0 - (y + 0.5) / ht));
    cairo().rectangle(cr.get(), bx, l.y0 + y, bw, 1);
    cairo().fill(cr.get());
  }
  set_rgb(cr.get(), 0x000000);
  text(cr.get(), bx + bw + 4, l.y0 + 10, label(hi), 11);
  text(cr.get(), bx + bw + 4, l.y0 + ht, label(lo), 11);
  save(surface.get(), path);
  return l;
}

}  // namespace tensor_inspect
