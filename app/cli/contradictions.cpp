// app/cli/contradictions.cpp — the run's mode, resolved once from what each option declares:
// the activity it asks for (a listing, the header, statistics, checks), or, for an option that
// shapes an output, the activities it shapes and the question it answers. The refusals follow.
#include "cli/contradictions.hpp"

#include <string>
#include <vector>

#include "tensor_inspect/error.hpp"

namespace tensor_inspect::app {
namespace {

// Activities that run together: checks beside statistics or beside the header.
constexpr unsigned kTogether[] = {kStats | kChecks, kHeader | kChecks};
// What options that pick tensors or compute from them shape: everything but a listing.
constexpr unsigned kPerTensor = kValues | kHeader | kStats | kChecks;

bool run_together(unsigned a, unsigned b) {
  for (const unsigned t : kTogether)
    if ((t & a) && (t & b)) return true;
  return a == b;
}

// An option as the rules see it (--stats/--hist/--plot/--fail-on: one, named as given).
struct Declared {
  bool given;
  std::string name, does;  ///< "--name", "takes the tensors it matches"
  unsigned activity = 0, shapes = 0;  ///< the activity it asks for, else (0) those it shapes
  int question = 0;        ///< two options answering the same question (not 0) are a choice of one
};

}  // namespace

Mode resolve_mode(const Options& o) {
  const char* stats = o.stats.stats ? "--stats" : o.stats.hist ? "--hist" : o.stats.plot ? "--plot" : "--fail-on";
  const bool checks = !o.expects.empty() || !o.asserts.empty();
  const std::string printed = "says how values are printed";
  enum Question { kNone, kWhichTensors, kWhichJson, kInputDtype };
  const std::vector<Declared> options = {
      {o.list, "--list", "lists every tensor from the header", kList},
      {o.meta, "--meta", "shows the file's metadata", kMeta},
      {o.list0, "--list0", "writes every tensor's name alone, NUL-ended", kList0},
      {o.overview, "--overview", "groups every tensor from the header", kOverview},
      {o.print.header, "--header", "shows one tensor's fields and reads no data", kHeader},
      {o.stats.active(), stats, "scans every value and prints statistics, no values", kStats},
      {checks, o.expects.empty() ? "--assert" : "--expect", "checks tensors and prints no values", kChecks},
      {o.all, "--all", "takes every tensor", 0, kPerTensor, kWhichTensors},
      {!o.names.empty(), "--name", "takes the tensors it matches", 0, kPerTensor, kWhichTensors},
      {o.json, "--json", "writes one JSON object", 0, ~kList0, kWhichJson},
      {o.jsonl, "--jsonl", "writes one JSON object per tensor and line", 0, kPerTensor, kWhichJson},
      {o.expr.has_value(), "-e", "computes a tensor", 0, kPerTensor},
      {!o.view_as.empty(), "--view-as", "recasts the printed memoryview", 0, kValues | kHeader},
      // --meta --full prints every item of long metadata arrays.
      {o.print.full, "--full", printed, 0, kValues | kMeta},
      {o.print.threshold.has_value(), "--threshold", printed, 0, kValues},
      {o.print.edgeitems.has_value(), "--edgeitems", printed, 0, kValues},
      {o.graph.has_value(), "--graph", "shows what printing a tensor computes", 0, kValues},
      {o.json_nonfinite.has_value(), "--json-nonfinite", "spells nan and inf among printed values", 0, kValues},
      {o.dtype.has_value(), "--dtype", "types a literal", 0, ~0U, kInputDtype},
      {o.raw.has_value(), "--raw", "types the bytes of a file", 0, ~0U, kInputDtype},
  };
  Mode mode;
  for (const Declared& d : options)
    if (d.given) mode.activities |= d.activity;
  if (mode.activities == 0) mode.activities = kValues;
  for (std::size_t i = 0; i < options.size(); ++i)
    for (std::size_t j = i + 1; j < options.size(); ++j) {
      const Declared &a = options[i], &b = options[j];
      if (!a.given || !b.given) continue;
      const bool contradict = a.activity && b.activity   ? !run_together(a.activity, b.activity)
                              : a.activity || b.activity ? !((a.activity | b.activity) & (a.shapes | b.shapes))
                                                         : a.question != kNone && a.question == b.question;
      if (contradict)
        throw Error(ErrorCode::Usage, a.name + " and " + b.name + " contradict (" + a.name + " " + a.does + "; " +
                                          b.name + " " + b.does + "): choose one");
    }

  // Options that only shape what another asks for: alone they would change nothing.
  const auto needs = [](const std::string& option, const std::string& other, const std::string& why) {
    return Error(ErrorCode::Usage, option + " without " + other + " changes nothing (" + why + "): give " + other +
                                       " too, or drop " + option);
  };
  if (o.stats.plot_kind && !o.stats.plot) throw needs("--plot-kind", "--plot", "it says what --plot draws");
  if (o.json_nonfinite && !o.json && !o.jsonl)
    throw needs("--json-nonfinite", "--json or --jsonl", "it says how JSON spells nan and inf");
  return mode;
}

}  // namespace tensor_inspect::app
