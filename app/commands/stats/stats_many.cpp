// app/commands/stats/stats_many.cpp — --stats, --hist, --plot and --fail-on over several tensors chosen
// with --name globs or --all: a table, a block per tensor (with --hist), one file_stats
// object (--json), or one stats object per line, streamed (--jsonl).
#include <chrono>
#include <cstdio>

#include <spdlog/spdlog.h>

#include "commands/inspect/inspect.hpp"
#include "cli/options.hpp"
#include "commands/stats/stats.hpp"
#include "term/removed_on_signal.hpp"
#include "tensor_inspect/tensor_errors.hpp"
#include "tensor_inspect/counts.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/remote.hpp"
#include "tensor_inspect/tensor_stats.hpp"

namespace tensor_inspect::app {

int run_stats_many(const std::vector<Item>& items, const std::string& format, const Options& o,
                   const Defaults& defaults, std::FILE* to) {
  const StatsOptions& so = o.stats;
  const FailOn fail_on = so.fail_on ? parse_fail_on(*so.fail_on) : FailOn{};
  const std::vector<std::string> plot_paths = so.plot ? plot_paths_for(*so.plot, items) : std::vector<std::string>{};
  if (so.hist && o.json && !o.jsonl)
    throw Error(ErrorCode::Usage, "--hist over " + count_of(items.size(), "tensor") +
                                      " in JSON: use --jsonl (one stats object with its histogram per line)");
  const bool show_stats = so.stats || !so.fail_on;
  // A check must not pass what it could not look at: before a byte is written, a tensor
  // whose values cannot be decoded ends a --fail-on run as trouble, naming it.
  refuse_unchecked(items, fail_on, o.expr.has_value());
  OutBuffer out(to);
  std::vector<StatsRow> rows;
  struct Block {
    const Item* item;
    StatsRow row;
    Histogram hist;
  };
  std::vector<Block> blocks;  // text with --hist: printed once every tensor is computed
  PlotOutputs plots(removed_on_signal_hooks());
  for (std::size_t i = 0; i < plot_paths.size(); ++i) check_plot_path(plot_paths[i], o, items[i], plots);
  bool failed = false;
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t scanned = 0;  // stored bytes of the tensors scanned, for -v
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Item& item = items[i];
    TensorStatsResult r = selected_tensor_stats(
        item, stats_request(o, so.plot ? std::optional<std::string>(plot_paths[i]) : std::nullopt), defaults, &plots);
    if (!r.row.skipped.empty()) spdlog::warn("{} (skipped)", r.row.skipped);
    failed |= !r.row.failed.empty();
    scanned += r.row.nbytes;
    if (o.jsonl) {
      render_tensor_stats(r.row, {item.file, item.name, item.label}, r.hist ? &*r.hist : nullptr, fail_on, true,
                          show_stats, out);
      out.flush();
      std::fflush(to);
    } else if (r.hist && !o.json) {
      blocks.push_back(Block{&item, std::move(r.row), std::move(*r.hist)});
    } else {
      rows.push_back(std::move(r.row));
    }
  }
  log_stats_time(start, items.size(), scanned);
  plots.commit();  // every tensor is computed: the pictures appear
  if (print_plot_lines(o, plots, out)) return failed ? 1 : 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    // A histogram is a block of lines: each tensor's block under its name.
    const Block& b = blocks[i];
    if (i) out.put('\n');
    out.write("== " + escape_untrusted(b.item->name.value_or("(unnamed)"), true) + " ==\n");
    render_tensor_stats(b.row, {b.item->file, b.item->name, b.item->label}, &b.hist, fail_on, false, show_stats, out);
  }
  if (!o.jsonl && !(so.hist && !o.json)) {
    const std::string file =
        items.empty() ? input_name(o.input) : items[0].file.value_or("");  // none selected: the input
    render_file_stats(file, format, rows, fail_on, o.json, show_stats, out);
  }
  return failed ? 1 : 0;
}

}  // namespace tensor_inspect::app
