// stats/tensor_stats.cpp — one tensor's row, histogram and picture (tensor_stats.hpp).
#include "tensor_inspect/tensor_stats.hpp"

#include <algorithm>

#include "stats/heatmap_cells.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "tensor_inspect/plot.hpp"
#include "tensor_inspect/realize.hpp"

namespace tensor_inspect {
namespace {

constexpr std::uint64_t kRealizeOnceBytes = std::uint64_t{32} << 20;

}  // namespace

std::size_t parse_hist_bins(const std::string& text) {
  std::size_t bins = 0;
  bool ok = !text.empty() && text.size() <= 6;
  for (char c : text) ok = ok && c >= '0' && c <= '9';
  if (ok) bins = std::stoul(text);
  if (!ok || bins < 1 || bins > 100000)
    throw Error(ErrorCode::Usage,
                "--hist: '" + text + "' is not a number of bins from 1 to 100000 (write --hist=BINS before INPUT)");
  return bins;
}

TensorStatsResult tensor_stats(const Tensor& t, const TensorEntry* entry, const std::string& label,
                               const TensorStatsRequest& req, const Defaults& defaults, PlotOutputs* plots) {
  if (entry && !req.computed && entry->details().check_whole) entry->details().check_whole();  // every byte is scanned
  std::optional<StoredElements> source = in_place_source(t, entry, defaults);
  // A computed tensor is streamed through the executor (memory stays flat). When a
  // histogram scans it a second time and it is small, it is realized once instead: running
  // the executor twice costs more than holding kRealizeOnceBytes.
  const bool hist_asked = req.hist || (req.plot_path && !req.heatmap);
  if (!source && hist_asked &&
      static_cast<std::uint64_t>(t.numel()) * dtype_info(commit_dtype(t.dtype(), defaults)).itemsize <=
          kRealizeOnceBytes)
    source = scan_source(t, defaults);
  TensorStatsResult result;
  StatsRow& row = result.row;
  if (entry) row = stats_row_of(*entry);
  row.name = entry ? entry->name : "";
  if (!entry || req.computed) {
    row = StatsRow{};
    row.dtype = commit_dtype(t.dtype(), defaults);
    row.shape = t.shape();
    row.nbytes = static_cast<std::uint64_t>(t.numel()) * dtype_info(*row.dtype).itemsize;
    row.group = std::string(dtype_info(*row.dtype).name);
    row.stored_type = row.group;
    if (entry) row.name = entry->name;
  }
  // Every pass over a mapped tensor releases its pages as it goes (ScanOptions), also when
  // a histogram or a heatmap reads it again: that pass faults them back in from the page
  // cache, and the resident set stays flat (a 400 MB float32 .npy with --hist peaked at
  // 394 MB when the first pass kept them; a user's finding).
  ScanOptions scan;
  scan.release_pages = true;
  // Elements of 1 or 2 bytes have their bit patterns counted in the statistics pass: the
  // histogram comes from the counts, with no second pass (a remote file fetched twice).
  std::vector<std::uint64_t> patterns;
  if (hist_asked && source && counts_bit_patterns(*source)) scan.bit_patterns = &patterns;
  row.stats = source ? compute_stats(*source, scan) : compute_stats_streamed(t, defaults, scan);
  scan.bit_patterns = nullptr;
  apply_fail_on(req.fail_on, row);
  if (std::find(row.failed.begin(), row.failed.end(), "nan") != row.failed.end())
    row.first_nan = first_nan_index(t, defaults);
  std::optional<Histogram>& hist = result.hist;
  if (hist_asked) {
    const auto lo = row.stats->min_value(), hi = row.stats->max_value();
    hist = !patterns.empty() ? histogram_of_patterns(*source, patterns, req.bins, lo ? *lo : 0.0, hi ? *hi : 1.0)
           : source        ? compute_histogram(*source, req.bins, lo ? *lo : 0.0, hi ? *hi : 1.0, scan)
                           : compute_histogram_streamed(t, defaults, req.bins, lo ? *lo : 0.0, hi ? *hi : 1.0, scan);
  }
  if (req.plot_path && plots) {
    const std::string title =
        label.empty() ? std::string(dtype_info(row.stats->dtype).name) + " " + shape_repr(row.shape) : label;
    if (req.heatmap) {
      // A heatmap reads the stored bytes in their order: a transposed or flipped 2-D view (a
      // Fortran-order file) as laid out there (heatmap_layout.hpp); another view or a computed
      // tensor is streamed through the executor in C order (it was realized whole first: 300 MiB
      // for -e 'x * 2' of a 256 MiB file).
      const std::optional<HeatmapLayout> layout =
          !source ? std::nullopt : source->c_order ? std::optional(HeatmapLayout{}) : heatmap_layout(t);
      const Tensor committed = t.cast(commit_dtype(t.dtype(), defaults));
      plots->write(*req.plot_path, "heatmap of " + title, [&](PlotFormat f, std::string& out) {
        if (layout) return (void)draw_heatmap(*source, *layout, title, f, out);
        draw_heatmap_cells(
            committed.shape(),
            [&](std::int64_t rows, std::int64_t cols) { return heatmap_cells_streamed(committed, rows, cols); }, title,
            f, out);
      });
    } else {
      plots->write(*req.plot_path, "histogram of " + title,
                   [&](PlotFormat f, std::string& out) { draw_histogram(*hist, title, f, out); });
    }
  }
  if (!req.hist) hist.reset();  // drawn, not printed
  return result;
}

}  // namespace tensor_inspect
