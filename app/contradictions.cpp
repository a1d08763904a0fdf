// app/contradictions.cpp — the table of options that cannot be given together, each with
// the reason the error line gives.
#include "contradictions.hpp"

#include <string>

#include "tensor_inspect/error.hpp"

namespace tensor_inspect::app {

void refuse_contradictions(const Options& o) {
  // The statistics option given, for messages (--stats, --hist, --plot, --fail-on).
  const char* stats = o.stats.stats ? "--stats" : o.stats.hist ? "--hist" : o.stats.plot ? "--plot" : "--fail-on";
  const char* view = o.list ? "--list" : "--meta";
  const char* selection = o.all ? "--all" : "--name";
  const char* check = o.expects.empty() ? "--assert" : "--expect";
  struct Rule {
    bool both;
    std::string first, second, why;
  };
  const Rule rules[] = {
      {o.all && !o.names.empty(), "--all", "--name", "--all takes every tensor, --name only those it matches"},
      {o.json && o.jsonl, "--json", "--jsonl", "--json writes one object, --jsonl one object per line"},
      {(o.list || o.meta) && (o.all || !o.names.empty()), view, selection,
       std::string(view) + " shows the whole file, " + selection + " chooses tensors to show"},
      {(o.list || o.meta) && o.jsonl, view, "--jsonl", std::string("a listing is one JSON object (") + view + " --json)"},
      {o.print.header && o.stats.active(), "--header", stats, std::string("--header reads no data, ") + stats + " reads every value"},
      {(!o.expects.empty() || !o.asserts.empty()) && o.stats.active(), check, stats,
       std::string(check) + " checks a tensor, " + stats + " reports on it: one run does one"},
      {(!o.expects.empty() || !o.asserts.empty()) && (o.list || o.meta), check, view,
       std::string(check) + " checks tensors, " + view + " shows the file"},
      // --graph shows the lazy graph and kernels of what printing a tensor computes; these
      // print no tensor's values, so it would be silently ignored.
      {o.graph && o.print.header, "--graph", "--header", "--header reads and computes no data, --graph shows what printing computes"},
      {o.graph && o.stats.active(), "--graph", stats,
       std::string(stats) + " scans the values in a pass of its own, --graph shows what printing a tensor computes"},
      {o.graph && (o.list || o.meta), "--graph", view, std::string(view) + " reads headers only, --graph shows what printing a tensor computes"},
      {o.graph && (!o.expects.empty() || !o.asserts.empty()), "--graph", check,
       std::string(check) + " checks a tensor, --graph shows what printing it computes: one run does one"},
  };
  for (const Rule& r : rules)
    if (r.both) throw Error(ErrorCode::Usage, r.first + " and " + r.second + " contradict (" + r.why + "): choose one");
}

}  // namespace tensor_inspect::app
