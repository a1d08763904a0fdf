// tests/unit/plot_test.cpp — the PNG pictures of lib/src/stats/ (heatmaps, histograms) and
// plot_format_of, checked pixel by pixel against the layout's cells and viridis colours
// (split from stats_test.cpp).
#include <cairo.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test_util.hpp"
#include "tensor_inspect/plot.hpp"
#include "tensor_inspect/stats.hpp"

namespace ti = tensor_inspect;

namespace {
using test_util::tensor_of;

// The RGB of the pixel at (x, y) of an ARGB32 image surface.
std::uint32_t png_pixel(cairo_surface_t* s, double x, double y) {
  const unsigned char* data = cairo_image_surface_get_data(s);
  const int stride = cairo_image_surface_get_stride(s);
  std::uint32_t v = 0;
  std::memcpy(&v, data + static_cast<int>(y) * stride + static_cast<int>(x) * 4, 4);
  return v & 0xffffffu;
}

}  // namespace

TEST_CASE("heatmap PNG of [[0, 1], [2, 3]]: its size and the viridis colours of its cells") {
  const ti::StoredElements s = ti::scan_source(tensor_of(std::vector<float>{0, 1, 2, 3}, ti::DType::Float32, {2, 2}));
  const std::string path =
      std::filesystem::temp_directory_path() / ("ti_heatmap_" + std::to_string(::getpid()) + ".png");
  std::string bytes;
  const ti::PlotLayout l = ti::draw_heatmap(s, "test", ti::PlotFormat::Png, bytes);
  std::ofstream(path, std::ios::binary) << bytes;
  cairo_surface_t* png = cairo_image_surface_create_from_png(path.c_str());
  REQUIRE(cairo_surface_status(png) == CAIRO_STATUS_SUCCESS);
  CHECK(cairo_image_surface_get_width(png) == l.width);
  CHECK(cairo_image_surface_get_height(png) == l.height);
  CHECK(l.width == 80 + 512 + 120);
  CHECK(l.height == 60 + 512 + 50);
  auto centre = [&](int r, int c) { return png_pixel(png, l.x0 + (c + 0.5) * l.cell_w, l.y0 + (r + 0.5) * l.cell_h); };
  CHECK(centre(0, 0) == 0x440154u);  // matplotlib's viridis at 0
  CHECK(centre(1, 1) == 0xfde725u);  // and at 1
  CHECK(centre(0, 1) == ti::heatmap_colour(1.0 / 3.0));
  CHECK(png_pixel(png, 2, l.height - 2) == 0xffffffu);  // the background
  cairo_surface_destroy(png);
  std::filesystem::remove(path);
}

TEST_CASE(
    "heatmap of 1024 x 1024 with one NaN, one +inf, one -inf: each marks its block's cell, counted in the layout") {
  std::vector<float> v(1024 * 1024);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i % 7);
  v[3 * 1024 + 5] = NAN;                 // row 3, col 5: cell (1, 2) of 512 x 512 (blocks of 2 x 2)
  v[1000 * 1024 + 1001] = INFINITY;      // cell (500, 500)
  v[10 * 1024 + 1023] = -INFINITY;       // cell (5, 511)
  v[10 * 1024 + 1022] = INFINITY;        // the same cell: +inf comes before -inf
  const ti::StoredElements s = ti::scan_source(tensor_of(v, ti::DType::Float32, {1024, 1024}));
  const std::string path =
      std::filesystem::temp_directory_path() / ("ti_heatmap_nan_" + std::to_string(::getpid()) + ".png");
  std::string bytes;
  const ti::PlotLayout l = ti::draw_heatmap(s, "test", ti::PlotFormat::Png, bytes);
  std::ofstream(path, std::ios::binary) << bytes;
  CHECK(l.nan == 1);
  CHECK(l.posinf == 2);
  CHECK(l.neginf == 1);
  CHECK(l.rows == 512);
  cairo_surface_t* png = cairo_image_surface_create_from_png(path.c_str());
  REQUIRE(cairo_surface_status(png) == CAIRO_STATUS_SUCCESS);
  auto centre = [&](int r, int c) { return png_pixel(png, l.x0 + (c + 0.5) * l.cell_w, l.y0 + (r + 0.5) * l.cell_h); };
  CHECK(centre(1, 2) == ti::kHeatmapNan);
  CHECK(centre(500, 500) == ti::kHeatmapPosInf);
  CHECK(centre(5, 511) == ti::kHeatmapPosInf);
  CHECK(centre(1, 12) != ti::kHeatmapNan);  // past the 7-pixel mark around the NaN's cell
  cairo_surface_destroy(png);
  std::filesystem::remove(path);
}

TEST_CASE("ti::plot_format_of: the extension, any case; none only for a stream; others refused") {
  CHECK(ti::plot_format_of("a/b.PNG", false) == ti::PlotFormat::Png);
  CHECK(ti::plot_format_of("b.svg", false) == ti::PlotFormat::Svg);
  CHECK(ti::plot_format_of("b.pdf", true) == ti::PlotFormat::Pdf);
  CHECK(ti::plot_format_of("-", true) == ti::PlotFormat::Png);
  CHECK(test_util::code_of([] { ti::plot_format_of("x.jpg", false); }) == ti::ErrorCode::Usage);
  CHECK(test_util::code_of([] { ti::plot_format_of("x.d/out", false); }) == ti::ErrorCode::Usage);
}

TEST_CASE("histogram PNG: the tallest bar reaches the top of the plot area") {
  const ti::StoredElements s = ti::scan_source(tensor_of(std::vector<float>{0, 1, 1, 1, 2}, ti::DType::Float32));
  const ti::Histogram h = ti::compute_histogram(s, 3, 0, 2);
  const std::string path = std::filesystem::temp_directory_path() / ("ti_hist_" + std::to_string(::getpid()) + ".png");
  std::string bytes;
  const ti::PlotLayout l = ti::draw_histogram(h, "test", ti::PlotFormat::Png, bytes);
  std::ofstream(path, std::ios::binary) << bytes;
  cairo_surface_t* png = cairo_image_surface_create_from_png(path.c_str());
  REQUIRE(cairo_surface_status(png) == CAIRO_STATUS_SUCCESS);
  CHECK(cairo_image_surface_get_width(png) == l.width);
  const double mid = l.x0 + 1.5 * l.cell_w, side = l.x0 + 0.5 * l.cell_w;
  CHECK(png_pixel(png, mid, l.y0 + 5) == ti::heatmap_colour(0.35));           // the count-3 bar, full height
  CHECK(png_pixel(png, side, l.y0 + 5) == 0xffffffu);                        // the count-1 bar is a third of it
  CHECK(png_pixel(png, side, l.y0 + l.cell_h - 5) == ti::heatmap_colour(0.35));
  cairo_surface_destroy(png);
  std::filesystem::remove(path);
}
