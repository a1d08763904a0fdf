// stats/heatmap_cells.cpp — a heatmap's cells from stored bytes or from the executor's stream
// (see heatmap_cells.hpp).
#include "stats/heatmap_cells.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <span>

#include "decode/lanes.hpp"
#include "tensor_inspect/realize.hpp"
#include "tensor_inspect/stats.hpp"

namespace tensor_inspect {
namespace {

// The pages of rows a heatmap has read leave the resident set behind it, as --stats' scan
// does (MappedFile::release_pages, a local file map only: it reads them again from the page
// cache if asked): a heatmap of a 1 GiB tensor held the whole file.
struct HeatmapPagesBehind {
  const StoredElements& s;
  std::int64_t done_elements = 0;  ///< elements handed to release_scanned so far
  std::uint64_t released = 0;      ///< the byte of s.bytes the next release starts at
  // Elements [0, done) are read (`last`: all). decode_values starts a read at a multiple of
  // kStatsBlock, so only the elements before the block `done` lies in are given back, in
  // runs of a million elements at least (each release is a TLB flush).
  void operator()(std::int64_t done, bool last = false) {
    done = last ? s.numel : done / kStatsBlock * kStatsBlock;
    if (done - done_elements < (last ? 1 : kStatsBlock * 256)) return;
    if (s.file && !s.file->is_remote() && !s.bytes.empty()) {
      const auto base = static_cast<std::uint64_t>(s.bytes.data() - s.file->bytes().data());
      const std::uint64_t end = last ? s.bytes.size() : byte_offset_of(s, done);
      s.file->release_pages(base + released, end - released);  // the whole pages inside
      // The page the end lies in goes with the next run (by address: a slice starts anywhere).
      static const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
      const auto start = reinterpret_cast<std::uintptr_t>(s.bytes.data());
      const std::uint64_t aligned = (start + end) / page * page;
      if (aligned > start + released) released = aligned - start;
    }
    if (s.release_scanned) s.release_scanned(done_elements, done);
    done_elements = done;
  }
};

}  // namespace

HeatmapCells::HeatmapCells(std::int64_t rows_, std::int64_t cols_) : rows(rows_), cols(cols_) {
  mean.assign(static_cast<std::size_t>(rows * cols), 0.0);
  finite.assign(mean.size(), 0.0);
  kinds.assign(mean.size(), 0);
}

void HeatmapCells::add(std::size_t cell, double v) {
  if (std::isfinite(v)) {
    mean[cell] += v;
    finite[cell] += 1;
  } else if (std::isnan(v)) {
    kinds[cell] |= 1;
    ++nan;
  } else if (v > 0) {
    kinds[cell] |= 2;
    ++posinf;
  } else {
    kinds[cell] |= 4;
    ++neginf;
  }
}

void HeatmapCells::finish() {
  double l = INFINITY, h = -INFINITY;
  for (std::size_t i = 0; i < mean.size(); ++i)
    if (finite[i] > 0) {
      mean[i] /= finite[i];
      l = std::min(l, mean[i]);
      h = std::max(h, mean[i]);
    }
  if (!(l <= h)) l = h = 0;
  lo = l;
  hi = h;
}

// Stored row k, a run of `run` elements, is the tensor's row or (transposed) column.
HeatmapCells heatmap_cells(const StoredElements& s, const HeatmapLayout& layout, std::int64_t gr, std::int64_t gc) {
  const std::int64_t rows = s.shape[0], cols = s.shape[1];
  const std::int64_t stored_rows = layout.transposed ? cols : rows, run = layout.transposed ? rows : cols;
  HeatmapCells c(gr, gc);
  std::vector<double> values(static_cast<std::size_t>(std::min<std::int64_t>(run, kStatsBlock)));
  HeatmapPagesBehind behind{s};
  for (std::int64_t k = 0; k < stored_rows; ++k) {
    behind(k * run);
    for (std::int64_t j0 = 0; j0 < run; j0 += static_cast<std::int64_t>(values.size())) {
      const auto n = static_cast<std::size_t>(std::min(static_cast<std::int64_t>(values.size()), run - j0));
      decode_values(s, k * run + j0, std::span(values.data(), n));
      for (std::size_t i = 0; i < n; ++i) {
        const std::int64_t j = j0 + static_cast<std::int64_t>(i);
        std::int64_t r = layout.transposed ? j : k, col = layout.transposed ? k : j;
        if (layout.flip_rows) r = rows - 1 - r;
        if (layout.flip_cols) col = cols - 1 - col;
        c.add(c.cell(r, col, rows, cols), values[i]);
      }
    }
  }
  behind(rows * cols, true);
  c.finish();
  return c;
}

HeatmapCells heatmap_cells_streamed(const Tensor& t, std::int64_t gr, std::int64_t gc) {
  const std::int64_t rows = t.shape()[0], cols = t.shape()[1];
  HeatmapCells c(gr, gc);
  // Values arrive in C order on this thread: each cell's sum runs in the order a C-order copy's
  // scan above would add them.
  for_each_chunk(t.node(), std::size_t{1} << 20, [&](const ValueChunk& chunk) {
    std::int64_t r = chunk.start / cols, col = chunk.start % cols;
    for (std::size_t k = 0; k < chunk.size; ++k) {
      const double v = chunk.f   ? chunk.f[k]
                       : chunk.i ? static_cast<double>(chunk.i[k])
                                 : static_cast<double>(chunk.u[k]);
      c.add(c.cell(r, col, rows, cols), v);
      if (++col == cols) col = 0, ++r;
    }
  });
  c.finish();
  return c;
}

PlotLayout draw_heatmap(const StoredElements& s, const HeatmapLayout& layout, const std::string& title,
                        PlotFormat format, std::string& out) {
  return draw_heatmap_cells(
      s.shape, [&](std::int64_t rows, std::int64_t cols) { return heatmap_cells(s, layout, rows, cols); }, title,
      format, out);
}

PlotLayout draw_heatmap(const StoredElements& s, const std::string& title, PlotFormat format, std::string& out) {
  return draw_heatmap(s, HeatmapLayout{}, title, format, out);
}

}  // namespace tensor_inspect
