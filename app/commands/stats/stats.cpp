// app/commands/stats/stats.cpp — --stats, --hist, --plot and --fail-on: one tensor or every tensor of a
// file, scanned in place where the bytes allow (stats.hpp), an expression's result
// streamed through the executor, with progress on a terminal.
// Everything is computed before the first byte reaches stdout.
#include "commands/stats/stats.hpp"

#include <CLI/CLI.hpp>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "commands/inspect/checks.hpp"
#include "tensor_inspect/counts.hpp"
#include "commands/inspect/inspect.hpp"
#include "cli/options.hpp"
#include "term/progress.hpp"
#include "term/removed_on_signal.hpp"
#include "tensor_inspect/file_stats.hpp"
#include "tensor_inspect/tensor_errors.hpp"
#include "tensor_inspect/totals.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/frontend.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "tensor_inspect/plot.hpp"
#include "tensor_inspect/realize.hpp"
#include "tensor_inspect/stats.hpp"
#include "tensor_inspect/tensor_stats.hpp"

namespace tensor_inspect::app {
void log_stats_time(std::chrono::steady_clock::time_point start, std::size_t tensors, std::uint64_t bytes) {
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  spdlog::info("statistics: {}, {} scanned in {:.3f} ms ({:.2f} GB/s)", count_of(tensors, "tensor"),
               count_of(bytes, "byte"), secs * 1e3, secs > 0 ? static_cast<double>(bytes) / 1e9 / secs : 0.0);
}

namespace {

// Progress of a whole-file scan on stderr, only when stderr is a terminal (term's
// ProgressLine: at most ten times a second, cleared when the scan ends or an error comes).
class ScanProgress {
 public:
  ScanProgress(std::size_t tensors, std::uint64_t bytes) : tensors_(tensors), total_(bytes), on_(::isatty(2) == 1) {
    if (on_) quiet_.emplace();  // this line, not the kernels'
  }
  void update(std::size_t tensors_done, std::uint64_t bytes_done) {
    if (!on_) return;
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    line_.draw(fmt::format("tensor-inspect: {}/{} tensors, {:.2f} of {:.2f} GB, {:.2f} GB/s", tensors_done, tensors_,
                           static_cast<double>(bytes_done) / 1e9, static_cast<double>(total_) / 1e9,
                           secs > 0 ? static_cast<double>(bytes_done) / 1e9 / secs : 0.0));
  }

 private:
  std::size_t tensors_;
  std::uint64_t total_;
  bool on_;
  std::optional<QuietKernels> quiet_;
  ProgressLine line_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace

void adopt_input_from_hist(StatsOptions& o, std::string& input) {
  if (!o.hist || !input.empty() || o.hist->empty()) return;
  for (char c : *o.hist)
    if (c < '0' || c > '9') {
      input = *o.hist;
      o.hist = std::to_string(kDefaultHistBins);
      return;
    }
}

void setup_stats(CLI::App& cli, StatsOptions& o) {
  auto* g = "Statistics";
  cli.add_flag("--stats", o.stats,
               "min, max, mean, std, absmax and nan/inf/zero counts; for a file, one row per tensor and totals")
      ->group(g);
  cli.add_option("--hist", o.hist,
                 "a histogram of the finite values in BINS bins (default 20): bars in text, bins in JSON")
      ->expected(0, 1)
      ->default_str(std::to_string(kDefaultHistBins))
      ->group(g);
  cli.add_option(
         "--plot", o.plot,
         "write a picture (.png, .svg, .pdf; - is PNG on stdout): a histogram, or with --plot-kind heatmap a 2-D "
         "tensor's values; {name} in the path becomes the tensor's name (needed over several tensors); pictures "
         "appear once every tensor is computed; a symlink's target is written, a pipe written through")
      ->group(g);
  cli.add_option("--plot-kind", o.plot_kind, "what --plot draws: hist or heatmap (only with --plot)")
      ->check(CLI::IsMember({"hist", "heatmap"}))
      ->default_str("hist")
      ->group(g);
  cli.add_option("--fail-on", o.fail_on,
                 "exit 1 naming the tensors that hold nan, inf, or are all zero (nan,inf,zero-tensor); exit 2 naming a "
                 "tensor whose values cannot be decoded, so cannot be checked")
      ->group(g);
}

TensorStatsRequest stats_request(const Options& o, const std::optional<std::string>& plot_path) {
  const StatsOptions& so = o.stats;
  TensorStatsRequest req;
  if (so.fail_on) req.fail_on = parse_fail_on(*so.fail_on);
  req.hist = so.hist.has_value();
  req.bins = so.hist ? parse_hist_bins(*so.hist) : kDefaultHistBins;
  req.plot_path = plot_path;
  req.heatmap = so.kind() == "heatmap";
  req.computed = o.expr.has_value();
  return req;
}

void check_plot_path(const std::string& path, const Options& o, const Item& item, PlotOutputs& plots) {
  const StatsOptions& so = o.stats;
  plots.protect(item.file);
  plots.check(path);
  if (!resolve_output(path).is_stdout) return;
  const char* other = so.stats     ? "--stats"
                      : so.hist    ? "--hist"
                      : so.fail_on ? "--fail-on"
                      : o.json     ? "--json"
                      : o.jsonl    ? "--jsonl"
                                   : nullptr;
  if (other)
    throw Error(ErrorCode::Usage, "--plot " + escape_untrusted(path, true) +
                                      " writes the picture to standard output, where " + other +
                                      " prints too: name a file for the picture");
}

bool print_plot_lines(const Options& o, const PlotOutputs& plots, OutBuffer& out) {
  const StatsOptions& so = o.stats;
  if (!so.plot || so.stats || so.hist || so.fail_on || o.json || o.jsonl) return false;
  if (!plots.to_stdout())
    for (const std::string& line : plots.written()) out.write(escape_untrusted(line, false) + "\n");
  return true;
}

int run_stats_tensor(const Item& item, const Options& o, const Defaults& defaults, std::FILE* to) {
  const StatsOptions& so = o.stats;
  const FailOn fail_on = so.fail_on ? parse_fail_on(*so.fail_on) : FailOn{};
  PlotOutputs plots(removed_on_signal_hooks());
  const TensorEntry* entry = o.expr || !item.entry ? nullptr : &*item.entry;
  std::optional<std::string> plot;
  if (so.plot) plot = plot_path_for(*so.plot, item.name.value_or(""));  // `{name}` also for one tensor
  if (plot) check_plot_path(*plot, o, item, plots);
  const auto start = std::chrono::steady_clock::now();
  const TensorStatsResult r = tensor_stats(item.tensor, entry, item.label, stats_request(o, plot), defaults, &plots);
  log_stats_time(start, 1, r.row.nbytes);
  plots.commit();
  OutBuffer out(to);
  if (print_plot_lines(o, plots, out)) return r.row.failed.empty() ? 0 : 1;
  render_tensor_stats(r.row, {item.file, item.name, item.label}, r.hist ? &*r.hist : nullptr, fail_on, o.json,
                      so.stats || !so.fail_on, out);
  return r.row.failed.empty() ? 0 : 1;
}

int run_stats_file(const LoadedFile& file, const Options& o, const Defaults& defaults, std::FILE* to) {
  const StatsOptions& so = o.stats;
  if (so.hist || so.plot)
    throw Error(ErrorCode::Usage, file.path + " holds " + count_of(file.tensors.size(), "tensor") +
                                      ": choose them for --hist and --plot with --name or --all");
  const FailOn fail_on = so.fail_on ? parse_fail_on(*so.fail_on) : FailOn{};
  std::uint64_t total = 0;
  for (const TensorEntry& e : file.tensors) total += e.nbytes;
  ScanProgress progress(file.tensors.size(), total);
  const auto progress_start = std::chrono::steady_clock::now();
  OutBuffer out(to);
  FileStatsCallbacks callbacks;
  callbacks.progress = [&](std::size_t tensors, std::uint64_t bytes) { progress.update(tensors, bytes); };
  callbacks.on_row = [&](const StatsRow& row, const std::string& label) {
    if (!row.skipped.empty()) spdlog::warn("{} (skipped)", row.skipped);
    if (!o.jsonl) return;  // one "stats" object per tensor and line, streamed as each is done
    const std::optional<std::string> name = row.name.empty() ? std::nullopt : std::optional<std::string>(row.name);
    render_tensor_stats(row, {file.path, name, label}, nullptr, fail_on, true, so.stats || !so.fail_on, out);
    out.flush();
    std::fflush(to);
  };
  const std::vector<StatsRow> rows = file_stats(file, fail_on, defaults, callbacks);
  std::uint64_t done = 0;
  for (const StatsRow& r : rows) done += r.nbytes;
  log_stats_time(progress_start, rows.size(), done);
  bool failed = false;
  for (const StatsRow& r : rows) failed |= !r.failed.empty();
  if (o.jsonl) return failed ? 1 : 0;
  render_file_stats(file.path, file.format, rows, fail_on, o.json, so.stats || !so.fail_on, out);
  return failed ? 1 : 0;
}

}  // namespace tensor_inspect::app
