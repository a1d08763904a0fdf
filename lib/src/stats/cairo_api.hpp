// stats/cairo_api.hpp — the cairo functions the pictures use, loaded with dlopen on the first
// picture (see plot.cpp for why not linked), and the RAII types around its surfaces.
//
//   Surface s(cairo().image_surface_create(CAIRO_FORMAT_RGB24, w, h));
//   CairoContext cr(cairo().create(s.get()));
#pragma once

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>

#include <memory>

namespace tensor_inspect {

struct CairoApi {
  decltype(&::cairo_image_surface_create) image_surface_create = nullptr;
  decltype(&::cairo_image_surface_get_data) image_surface_get_data = nullptr;
  decltype(&::cairo_image_surface_get_stride) image_surface_get_stride = nullptr;
  decltype(&::cairo_svg_surface_create_for_stream) svg_surface_create_for_stream = nullptr;
  decltype(&::cairo_pdf_surface_create_for_stream) pdf_surface_create_for_stream = nullptr;
  decltype(&::cairo_surface_status) surface_status = nullptr;
  decltype(&::cairo_surface_mark_dirty) surface_mark_dirty = nullptr;
  decltype(&::cairo_surface_flush) surface_flush = nullptr;
  decltype(&::cairo_surface_finish) surface_finish = nullptr;
  decltype(&::cairo_surface_write_to_png_stream) surface_write_to_png_stream = nullptr;
  decltype(&::cairo_surface_destroy) surface_destroy = nullptr;
  decltype(&::cairo_create) create = nullptr;
  decltype(&::cairo_destroy) destroy = nullptr;
  decltype(&::cairo_save) save = nullptr;
  decltype(&::cairo_restore) restore = nullptr;
  decltype(&::cairo_translate) translate = nullptr;
  decltype(&::cairo_scale) scale = nullptr;
  decltype(&::cairo_set_source_rgb) set_source_rgb = nullptr;
  decltype(&::cairo_set_source_surface) set_source_surface = nullptr;
  decltype(&::cairo_get_source) get_source = nullptr;
  decltype(&::cairo_pattern_set_filter) pattern_set_filter = nullptr;
  decltype(&::cairo_paint) paint = nullptr;
  decltype(&::cairo_select_font_face) select_font_face = nullptr;
  decltype(&::cairo_set_font_size) set_font_size = nullptr;
  decltype(&::cairo_text_extents) text_extents = nullptr;
  decltype(&::cairo_move_to) move_to = nullptr;
  decltype(&::cairo_show_text) show_text = nullptr;
  decltype(&::cairo_set_line_width) set_line_width = nullptr;
  decltype(&::cairo_rectangle) rectangle = nullptr;
  decltype(&::cairo_stroke) stroke = nullptr;
  decltype(&::cairo_fill) fill = nullptr;
  void (*debug_reset_static_data)() = nullptr;  ///< optional: cairo's caches, freed for leak checkers
  void (*fc_fini)() = nullptr;                  ///< optional: fontconfig's (FcFini), which cairo loads
};

/// The functions, loaded on the first call. Throws Error(Unsupported) naming the Debian
/// package when libcairo.so.2 is missing.
const CairoApi& cairo();

struct SurfaceDeleter {
  void operator()(cairo_surface_t* s) const { cairo().surface_destroy(s); }
};
struct ContextDeleter {
  void operator()(cairo_t* c) const { cairo().destroy(c); }
};
using Surface = std::unique_ptr<cairo_surface_t, SurfaceDeleter>;
using CairoContext = std::unique_ptr<cairo_t, ContextDeleter>;

}  // namespace tensor_inspect
