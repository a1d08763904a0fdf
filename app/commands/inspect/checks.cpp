// app/commands/inspect/checks.cpp — --expect and --assert over each selected tensor, decided by the
// library (tensor_inspect/checks.hpp) and printed here.
#include "commands/inspect/checks.hpp"

#include <cstdio>
#include <functional>
#include <string>

#include "tensor_inspect/checks.hpp"

namespace tensor_inspect::app {
namespace {

ChecksOutput checks_output(const Options& o) {
  return o.jsonl ? ChecksOutput::Jsonl : o.json ? ChecksOutput::Json : ChecksOutput::Text;
}

int print_checks(const std::vector<CheckResult>& results, const std::vector<Item>& items, const Options& o) {
  OutBuffer out(stdout);
  return render_checks(results, items, checks_output(o), out) ? 1 : 0;
}

}  // namespace

// The statistics options (--stats, --hist, --plot, --fail-on) with --expect and --assert
// in one run: every check is decided first (trouble leaves stdout empty), then the
// statistics are written, then the checks' results. With --json the statistics object
// carries the "checks" object; with --jsonl the "check" lines follow the "stats" lines.
// The exit status is 1 when a check or --fail-on failed.
int with_checks(const std::vector<Item>& items, const Options& o, const Defaults& defaults,
                const std::function<int(std::FILE*)>& run_stats) {
  if (o.expects.empty() && o.asserts.empty()) return run_stats(stdout);
  const std::vector<CheckResult> results = evaluate_checks(items, o.expects, o.asserts, defaults);
  if (o.json && !o.jsonl) {
    OutBuffer out(stdout);
    return write_stats_with_checks(results, items, run_stats, out);
  }
  const int status = run_stats(stdout);
  std::fflush(stdout);
  return print_checks(results, items, o) || status ? 1 : 0;
}

int run_checks(const std::vector<Item>& items, const Options& o, const Defaults& defaults) {
  // Every check is decided before anything is printed: trouble leaves stdout empty.
  return print_checks(evaluate_checks(items, o.expects, o.asserts, defaults), items, o);
}

}  // namespace tensor_inspect::app
