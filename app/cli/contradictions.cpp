// app/cli/contradictions.cpp — the table of options that cannot be given together, each with
// the reason the error line gives, and of options that change nothing without another.
#include "cli/contradictions.hpp"

#include <string>

#include "tensor_inspect/error.hpp"

namespace tensor_inspect::app {

void refuse_contradictions(const Options& o) {
  // The statistics option given, for messages (--stats, --hist, --plot, --fail-on).
  const char* stats = o.stats.stats ? "--stats" : o.stats.hist ? "--hist" : o.stats.plot ? "--plot" : "--fail-on";
  const char* view = o.overview ? "--overview" : o.list ? "--list" : o.meta ? "--meta" : "--list0";
  const char* selection = o.all ? "--all" : "--name";
  const char* check = o.expects.empty() ? "--assert" : "--expect";
  // How a tensor's values are printed (--full, --threshold, --edgeitems): modes that print
  // no values would drop them.
  // --meta --full prints every item of long metadata arrays.
  const bool printing = (o.print.full && !o.meta) || o.print.threshold || o.print.edgeitems;
  const char* print = o.print.full ? "--full" : o.print.threshold ? "--threshold" : "--edgeitems";
  const bool listing = o.list || o.meta || o.list0 || o.overview;
  const bool checks = !o.expects.empty() || !o.asserts.empty();
  const bool view_as = !o.view_as.empty();
  struct Rule {
    bool both;
    std::string first, second, why;
  };
  const Rule rules[] = {
      {o.all && !o.names.empty(), "--all", "--name", "--all takes every tensor, --name only those it matches"},
      {o.json && o.jsonl, "--json", "--jsonl", "--json writes one object, --jsonl one object per line"},
      {o.list && o.meta, "--list", "--meta", "--list shows the tensors, --meta the metadata"},
      {o.overview && (o.list || o.meta || o.list0), "--overview",
       o.list   ? "--list"
       : o.meta ? "--meta"
                : "--list0",
       "--overview groups the tensors, the other a view of its own"},
      {o.list0 && (o.list || o.meta), "--list0", view,
       std::string("--list0 writes the names alone, ") + view + " a view for people or JSON"},
      {o.list0 && o.json, "--list0", "--json",
       "--list0 writes NUL-ended names, --json one object (--list --json lists the tensors)"},
      {listing && (o.all || !o.names.empty()), view, selection,
       std::string(view) + " shows the whole file, " + selection + " chooses tensors to show"},
      {listing && o.jsonl, view, "--jsonl",
       o.list0 ? std::string("--list0 writes NUL-ended names, --jsonl JSON lines")
               : std::string("a listing is one JSON object (") + view + " --json)"},
      {listing && o.expr.has_value(), view, "-e", std::string(view) + " reads headers only, -e computes a tensor"},
      {listing && o.stats.active(), view, stats,
       std::string(view) + " reads headers only, " + stats + " reads every value"},
      {listing && o.print.header, view, "--header",
       std::string(view) + " shows the whole file, --header one tensor's fields"},
      {o.print.header && o.stats.active(), "--header", stats,
       std::string("--header reads no data, ") + stats + " reads every value"},
      {checks && listing, check, view, std::string(check) + " checks tensors, " + view + " shows the file"},
      // --view-as recasts the memoryview that is printed; these print none.
      {view_as && o.stats.active(), "--view-as", stats,
       std::string(stats) + " reads the tensor's values, --view-as recasts the printed memoryview"},
      {view_as && listing, "--view-as", view,
       std::string(view) + " reads headers only, --view-as recasts a printed memoryview"},
      {view_as && checks, "--view-as", check,
       std::string(check) + " checks the tensor itself, --view-as recasts the printed memoryview"},
      // --full, --threshold and --edgeitems say how values are printed; these print none.
      {printing && o.stats.active(), print, stats,
       std::string(print) + " says how values are printed, " + stats + " prints none"},
      {printing && listing, print, view, std::string(print) + " says how values are printed, " + view + " prints none"},
      {printing && checks, print, check,
       std::string(print) + " says how values are printed, " + check + " prints none"},
      {printing && o.print.header, print, "--header",
       std::string(print) + " says how values are printed, --header prints none"},
      // --graph shows the lazy graph and kernels of what printing a tensor computes; these
      // print no tensor's values, so it would be silently ignored.
      {o.graph && o.print.header, "--graph", "--header",
       "--header reads and computes no data, --graph shows what printing computes"},
      {o.graph && o.stats.active(), "--graph", stats,
       std::string(stats) + " scans the values in a pass of its own, --graph shows what printing a tensor computes"},
      {o.graph && listing, "--graph", view,
       std::string(view) + " reads headers only, --graph shows what printing a tensor computes"},
      {o.graph && checks, "--graph", check,
       std::string(check) + " checks a tensor, --graph shows what printing it computes: one run does one"},
      // --json-nonfinite spells nan and inf among a tensor's values in JSON; these write none.
      {o.json_nonfinite && o.stats.active(), "--json-nonfinite", stats,
       std::string(stats) + " JSON holds no tensor values (an overflowing std is always \"inf\")"},
      {o.json_nonfinite && listing, "--json-nonfinite", view, std::string(view) + " JSON holds no tensor values"},
      {o.json_nonfinite && checks, "--json-nonfinite", check, std::string(check) + " JSON holds no tensor values"},
      {o.json_nonfinite && o.print.header, "--json-nonfinite", "--header", "--header JSON holds no tensor values"},
      {o.dtype && o.raw, "--dtype", "--raw", "--dtype types a literal, --raw the bytes of a file"},
  };
  for (const Rule& r : rules)
    if (r.both) throw Error(ErrorCode::Usage, r.first + " and " + r.second + " contradict (" + r.why + "): choose one");

  // Options that only shape what another asks for: alone they would change nothing.
  struct Needs {
    bool alone;
    std::string option, needs, why;
  };
  const Needs needs[] = {
      {o.stats.plot_kind && !o.stats.plot, "--plot-kind", "--plot", "it says what --plot draws"},
      {o.json_nonfinite && !o.json && !o.jsonl, "--json-nonfinite", "--json or --jsonl",
       "it says how JSON spells nan and inf"},
  };
  for (const Needs& n : needs)
    if (n.alone)
      throw Error(ErrorCode::Usage, n.option + " without " + n.needs + " changes nothing (" + n.why + "): give " +
                                        n.needs + " too, or drop " + n.option);
}

}  // namespace tensor_inspect::app
