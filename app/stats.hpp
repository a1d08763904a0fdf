// app/stats.hpp — the statistics modes: --stats, --hist, --plot and --fail-on, over one
// tensor (a literal, a file's tensor, an expression's result) or every tensor of a file.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect::app {

struct Options;

/// What the statistics options ask for.
struct StatsOptions {
  bool stats = false;                   ///< --stats
  std::optional<std::string> hist;      ///< --hist [BINS] (the value as typed)
  std::optional<std::string> plot;      ///< --plot FILE.png
  std::string plot_kind = "hist";       ///< --plot-kind hist|heatmap
  std::optional<std::string> fail_on;   ///< --fail-on nan,inf,zero-tensor
  /// True when any statistics option was given.
  bool active() const { return stats || hist || plot || fail_on; }
};

/// Adds the statistics options to the command line.
void setup_stats(CLI::App& cli, StatsOptions& options);

/// `--hist x.npy` takes the file for BINS: when no INPUT was given and the value is not a
/// number, it becomes the INPUT and --hist keeps its default bins.
void adopt_input_from_hist(StatsOptions& options, std::string& input);

/// Statistics of one tensor. `entry` is the file entry the tensor came from (lets GGUF
/// blocks be scanned in place), or nullptr; `label` names it in messages and output.
/// Returns the exit status: 1 when --fail-on finds something, else 0.
int run_stats_tensor(const Tensor& t, const TensorEntry* entry, const std::string& label, const Options& options,
                     const Defaults& defaults);

/// Statistics of every tensor of a file (one row each, then totals). Returns the exit
/// status: 1 when --fail-on finds something, else 0. Throws Error for trouble.
int run_stats_file(const LoadedFile& file, const Options& options, const Defaults& defaults);

}  // namespace tensor_inspect::app
