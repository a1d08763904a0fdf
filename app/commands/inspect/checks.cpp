// app/commands/inspect/checks.cpp — --expect and --assert over each selected tensor, decided by the
// library (tensor_inspect/checks.hpp) and printed here.
#include "commands/inspect/checks.hpp"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <new>
#include <string>

#include "tensor_inspect/checks.hpp"
#include "tensor_inspect/error.hpp"

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
    char* text = nullptr;
    std::size_t size = 0;
    std::FILE* mem = ::open_memstream(&text, &size);
    if (!mem) throw std::bad_alloc();
    int status = 0;
    try {
      status = run_stats(mem);
    } catch (...) {
      std::fclose(mem);
      std::free(text);
      throw;
    }
    std::fclose(mem);
    std::string object(text, size);
    std::free(text);
    const std::size_t close = object.find_last_of('}');
    if (close == std::string::npos) throw Error(ErrorCode::Internal, "statistics JSON without an object");
    object.erase(close);
    OutBuffer out(stdout);
    out.write(object + ", \"checks\": " + checks_json(results, items) + "}\n");
    bool failed = false;
    for (const CheckResult& r : results) failed |= !r.passed;
    return status || failed ? 1 : 0;
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
