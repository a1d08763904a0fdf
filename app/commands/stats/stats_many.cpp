// app/commands/stats/stats_many.cpp — --stats, --hist, --plot and --fail-on over several tensors chosen
// with --name globs or --all: a table, a block per tensor (with --hist), one file_stats
// object (--json), or one stats object per line, streamed (--jsonl).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>

#include <spdlog/spdlog.h>

#include "commands/inspect/inspect.hpp"
#include "cli/options.hpp"
#include "commands/stats/stats.hpp"
#include "term/removed_on_signal.hpp"
#include "tensor_inspect/tensor_errors.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/remote.hpp"
#include "tensor_inspect/tensor_stats.hpp"

namespace tensor_inspect::app {

int run_stats_many(const std::vector<Item>& items, const std::string& format, const Options& o,
                   const Defaults& defaults, std::FILE* to) {
  const StatsOptions& so = o.stats;
  const FailOn fail_on = so.fail_on ? parse_fail_on(*so.fail_on) : FailOn{};
  const std::string count = std::to_string(items.size()) + (items.size() == 1 ? " tensor" : " tensors");
  if (so.plot && items.size() > 1 && so.plot->find("{name}") == std::string::npos)
    throw Error(ErrorCode::Usage,
                "--plot over " + count + ": put {name} in the path for one picture each (--plot 'hist-{name}.png')");
  if (so.plot && items.size() > 1) {
    // Two names can give one path ("dir/a" and "dir_a": '/' is spelled '_'): the second PNG
    // would replace the first. Refused before a file is drawn, naming both tensors.
    std::map<std::string, const Item*> taken;
    for (const Item& item : items) {
      const std::string path = plot_path_for(*so.plot, item.name.value_or(""));
      const auto [at, fresh] = taken.emplace(std::filesystem::path(path).lexically_normal().string(), &item);
      if (fresh) continue;
      auto quoted = [](const Item& it) {
        return it.name ? "'" + escape_untrusted(*it.name, true) + "'" : std::string("(unnamed)");
      };
      throw Error(ErrorCode::Usage, "--plot '" + escape_untrusted(*so.plot, true) + "': tensors " +
                                        quoted(*at->second) + " and " + quoted(item) + " both give the path " +
                                        escape_untrusted(path, true) +
                                        " (a '/' or control character in a name becomes '_')");
    }
  }
  if (so.hist && o.json && !o.jsonl)
    throw Error(ErrorCode::Usage,
                "--hist over " + count + " in JSON: use --jsonl (one stats object with its histogram per line)");
  const bool show_stats = so.stats || !so.fail_on;
  // A check must not pass what it could not look at: before a byte is written, a tensor
  // whose values cannot be decoded ends a --fail-on run as trouble, naming it.
  if (fail_on.enabled())
    for (const Item& item : items)
      if (!item.load_error.empty() && !o.expr) throw Error(ErrorCode::Unsupported, fail_on_unchecked(item.load_error));
  OutBuffer out(to);
  std::vector<StatsRow> rows;
  struct Block {
    const Item* item;
    StatsRow row;
    Histogram hist;
  };
  std::vector<Block> blocks;  // text with --hist: printed once every tensor is computed
  PlotOutputs plots(removed_on_signal_hooks());
  if (so.plot)
    for (const Item& item : items) check_plot_path(plot_path_for(*so.plot, item.name.value_or("")), o, item, plots);
  bool failed = false;
  const auto start = std::chrono::steady_clock::now();
  std::uint64_t scanned = 0;  // stored bytes of the tensors scanned, for -v
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Item& item = items[i];
    const TensorEntry* entry = o.expr || !item.entry ? nullptr : &*item.entry;
    std::optional<std::string> plot;
    if (so.plot) plot = plot_path_for(*so.plot, item.name.value_or(""));
    TensorStatsResult r;
    try {
      if (!item.load_error.empty()) throw Error(ErrorCode::Unsupported, item.load_error);
      r = for_tensor(item.label, [&] {
        return tensor_stats(item.tensor, entry, item.label, stats_request(o, plot), defaults, &plots);
      });
    } catch (const Error& err) {
      // As for a whole file: a tensor whose values cannot be shown (a type we cannot
      // dequantize) is a skipped row, unless --fail-on was to check it; a corrupt file is
      // trouble and ends the run.
      if (!cannot_show(err) || !entry) throw;
      if (fail_on.enabled()) throw Error(err.code(), fail_on_unchecked(err.what()), err.place());
      r.row = stats_row_of(*entry);
      r.row.skipped = err.what();
      spdlog::warn("{} (skipped)", err.what());
    }
    if (r.row.name.empty() && item.name) r.row.name = *item.name;
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
