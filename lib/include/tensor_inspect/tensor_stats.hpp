// tensor_inspect/tensor_stats.hpp — one tensor's statistics as --stats, --hist, --plot and
// --fail-on give them: scanned in place where its bytes allow (a file entry's stored
// elements, a GGUF tensor's blocks), streamed through the executor otherwise, with its
// histogram and its picture when asked.
//
//   ti::TensorStatsRequest req;
//   req.fail_on = ti::parse_fail_on("nan");
//   req.hist = true;                                        // 20 bins
//   ti::TensorStatsResult r = ti::tensor_stats(t, nullptr, "", req, {}, nullptr);
//   ti::render_tensor_stats(r.row, {}, &*r.hist, req.fail_on, false, true, out);
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tensor_inspect/file_stats.hpp"
#include "tensor_inspect/plot_outputs.hpp"
#include "tensor_inspect/selection.hpp"
#include "tensor_inspect/stats.hpp"

namespace tensor_inspect {

/// The bins of a histogram when --hist gives none.
inline constexpr std::size_t kDefaultHistBins = 20;

/// What one tensor's statistics include.
struct TensorStatsRequest {
  FailOn fail_on;                        ///< --fail-on's checks, applied to the row
  bool hist = false;                     ///< return a histogram of the finite values (--hist)
  std::size_t bins = kDefaultHistBins;   ///< its bins, also those of a --plot histogram
  std::optional<std::string> plot_path;  ///< draw a picture there (--plot; into `plots`)
  bool heatmap = false;                  ///< the picture is a heatmap of a 2-D tensor, else a histogram
  bool computed = false;                 ///< the tensor is an expression's result: its entry describes the input
};

/// The bins --hist BINS asks for: a whole number from 1 to 100000, written in digits (at most
/// six). Throws Error(Usage) quoting `text` for anything else.
std::size_t parse_hist_bins(const std::string& text);

/// One tensor's statistics row and, when asked, its histogram.
struct TensorStatsResult {
  StatsRow row;
  std::optional<Histogram> hist;
};

/// The statistics of `t` (after -e). `entry` (may be null) is its file entry, which lets
/// its stored bytes be scanned in place and fills the row's header facts (unless
/// `computed`); a stored .npz member's CRC-32 is checked on the way (every byte is read).
/// `label` names it in the picture's title ("" : its dtype and shape). A computed tensor
/// that is scanned twice (histogram) and holds at most 32 MiB is realized once. The pages
/// of a mapped tensor are released behind each pass. The picture is staged in `plots`
/// (non-null when plot_path is set), to appear at plots->commit(). Throws Error for
/// trouble (a corrupt tensor, a picture that cannot be drawn).
TensorStatsResult tensor_stats(const Tensor& t, const TensorEntry* entry, const std::string& label,
                               const TensorStatsRequest& request, const Defaults& defaults, PlotOutputs* plots);

/// The --plot path of each of `items` (plot_path_for of its name; "" when unnamed), in order.
/// Over several tensors `pattern` must hold `{name}`, and no two may give one path (names
/// that differ only where plot_path_for spells '_'): each is Error(Usage), the second naming
/// both tensors. Throws before anything is drawn.
std::vector<std::string> plot_paths_for(const std::string& pattern, const std::vector<SelectedTensor>& items);

/// With --fail-on (`fail_on` enabled) over stored tensors (not `computed` by -e): throws
/// Error(Unsupported) (fail_on_unchecked) for the first of `items` whose values cannot be
/// decoded (its load_error), before any is scanned, for a check must not pass what it could
/// not look at. No-op otherwise.
void refuse_unchecked(const std::vector<SelectedTensor>& items, const FailOn& fail_on, bool computed);

/// tensor_stats of `item` (its entry scanned in place unless `request.computed`), as one row
/// of several, named after the item. A file's tensor whose values cannot be shown (its
/// load_error, or cannot_show from the scan) is a row of its header facts with `skipped`
/// saying why, unless --fail-on is enabled: then the Error is thrown as fail_on_unchecked
/// says it. Any other Error (a corrupt tensor) is thrown naming the tensor.
TensorStatsResult selected_tensor_stats(const SelectedTensor& item, const TensorStatsRequest& request,
                                        const Defaults& defaults, PlotOutputs* plots);

}  // namespace tensor_inspect
