// app/commands/stats/stats.hpp — the statistics modes: --stats, --hist, --plot and --fail-on, over one
// tensor (a literal, a file's tensor, an expression's result) or every tensor of a file.
#pragma once

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include "cli/cli11_fwd.hpp"
#include "cli/option_groups.hpp"

#include "tensor_inspect/file_stats.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/plot_outputs.hpp"
#include "tensor_inspect/selection.hpp"
#include "tensor_inspect/tensor.hpp"
#include "tensor_inspect/tensor_stats.hpp"

namespace tensor_inspect::app {

struct Options;
using Item = SelectedTensor;  ///< as inspect.hpp

/// What the statistics options ask for.
struct StatsOptions {
  bool stats = false;                    ///< --stats
  std::optional<std::string> hist;       ///< --hist [BINS] (the value as typed)
  std::optional<std::string> plot;       ///< --plot FILE.png
  std::optional<std::string> plot_kind;  ///< --plot-kind hist|heatmap (hist when not given; only with --plot)
  /// What --plot draws: "hist" or "heatmap".
  std::string kind() const { return plot_kind.value_or("hist"); }
  std::optional<std::string> fail_on;  ///< --fail-on nan,inf,zero-tensor
  /// True when any statistics option was given.
  bool active() const { return stats || hist || plot || fail_on; }
};

/// Adds the statistics options to the command line.
inline constexpr OptionNames kStatsOptionNames{"--stats --hist --plot --plot-kind --fail-on", ""};
void setup_stats(CLI::App& cli, StatsOptions& options);

/// `--hist x.npy` takes the file for BINS: when no INPUT was given and the value is not a
/// number, it becomes the INPUT and --hist keeps its default bins.
void adopt_input_from_hist(StatsOptions& options, std::string& input);

/// Logs at -v how long the statistics of `tensors` tensors (`bytes` stored bytes) took since `start`.
void log_stats_time(std::chrono::steady_clock::time_point start, std::size_t tensors, std::uint64_t bytes);

/// What tensor_stats (tensor_inspect/tensor_stats.hpp) computes for the statistics options
/// `options`, with the picture of `plot_path` when given. Throws Error(Usage) for a malformed
/// --hist or --fail-on.
TensorStatsRequest stats_request(const Options& options, const std::optional<std::string>& plot_path);

/// Checks --plot's `path` for `item` before any work: its format, what it is (a folder, an input
/// of the run, a terminal for a PNG), and that standard output is the picture's alone. Throws
/// Error(Usage).
void check_plot_path(const std::string& path, const Options& options, const Item& item, PlotOutputs& plots);

/// With --plot and no other statistics option or JSON, prints the lines naming the pictures
/// written (none when the picture went to standard output) and returns true: they replace
/// the statistics block.
bool print_plot_lines(const Options& options, const PlotOutputs& plots, OutBuffer& out);

/// Each run_stats_* writes its report onto `to` (stdout; a buffer when checks embed it).
/// Statistics of one tensor (after -e): its file entry, when it is one, lets GGUF blocks
/// be scanned in place; its label names it in messages, its file and name the JSON and
/// --plot's `{name}`. Returns the exit status: 1 when --fail-on finds something, else 0.
int run_stats_tensor(const Item& item, const Options& options, const Defaults& defaults, std::FILE* to = stdout);

/// Statistics of several tensors chosen with --name globs or --all (after -e): a table
/// (text; with --hist a block per tensor under its name), one "file_stats" object
/// (--json), or one "stats" object per tensor and line, streamed (--jsonl). --plot takes
/// a path holding {name} (one PNG per tensor), and the PNGs appear once every tensor is
/// computed. `format` is the file's (file_stats carries it). Returns 1 when --fail-on finds
/// something. Throws Error for trouble, also for a tensor --fail-on cannot check (values it
/// cannot decode).
int run_stats_many(const std::vector<Item>& items, const std::string& format, const Options& options,
                   const Defaults& defaults, std::FILE* to = stdout);

/// Statistics of every tensor of a file (one row each, then totals). Returns the exit
/// status: 1 when --fail-on finds something, else 0. Throws Error for trouble, also for a
/// tensor --fail-on cannot check (values it cannot decode; without --fail-on a skipped row).
int run_stats_file(const LoadedFile& file, const Options& options, const Defaults& defaults, std::FILE* to = stdout);

}  // namespace tensor_inspect::app
