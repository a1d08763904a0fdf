// stats/cairo_api.cpp — see cairo_api.hpp.
#include "stats/cairo_api.hpp"

#include <dlfcn.h>

#include <string>
#include <type_traits>

#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

const CairoApi& cairo() {
  static const CairoApi api = [] {
    CairoApi a;
    void* lib = ::dlopen("libcairo.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      throw Error(ErrorCode::Unsupported,
                  "--plot needs the cairo library (Debian package libcairo2): " + std::string(::dlerror()));
    auto load = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(::dlsym(lib, name));
      if (!fn) throw Error(ErrorCode::Unsupported, std::string("--plot: libcairo.so.2 has no ") + name);
    };
    load(a.image_surface_create, "cairo_image_surface_create");
    load(a.image_surface_get_data, "cairo_image_surface_get_data");
    load(a.image_surface_get_stride, "cairo_image_surface_get_stride");
    load(a.svg_surface_create_for_stream, "cairo_svg_surface_create_for_stream");
    load(a.pdf_surface_create_for_stream, "cairo_pdf_surface_create_for_stream");
    load(a.surface_status, "cairo_surface_status");
    load(a.surface_mark_dirty, "cairo_surface_mark_dirty");
    load(a.surface_flush, "cairo_surface_flush");
    load(a.surface_finish, "cairo_surface_finish");
    load(a.surface_write_to_png_stream, "cairo_surface_write_to_png_stream");
    load(a.surface_destroy, "cairo_surface_destroy");
    load(a.create, "cairo_create");
    load(a.destroy, "cairo_destroy");
    load(a.save, "cairo_save");
    load(a.restore, "cairo_restore");
    load(a.translate, "cairo_translate");
    load(a.scale, "cairo_scale");
    load(a.set_source_rgb, "cairo_set_source_rgb");
    load(a.set_source_surface, "cairo_set_source_surface");
    load(a.get_source, "cairo_get_source");
    load(a.pattern_set_filter, "cairo_pattern_set_filter");
    load(a.paint, "cairo_paint");
    load(a.select_font_face, "cairo_select_font_face");
    load(a.set_font_size, "cairo_set_font_size");
    load(a.text_extents, "cairo_text_extents");
    load(a.move_to, "cairo_move_to");
    load(a.show_text, "cairo_show_text");
    load(a.set_line_width, "cairo_set_line_width");
    load(a.rectangle, "cairo_rectangle");
    load(a.stroke, "cairo_stroke");
    load(a.fill, "cairo_fill");
    a.debug_reset_static_data = reinterpret_cast<void (*)()>(::dlsym(lib, "cairo_debug_reset_static_data"));
    a.fc_fini = reinterpret_cast<void (*)()>(::dlsym(lib, "FcFini"));
    return a;
  }();
  return api;
}

}  // namespace tensor_inspect
