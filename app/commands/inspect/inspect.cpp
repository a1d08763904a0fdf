// app/commands/inspect/inspect.cpp — one run of the tool: the input resolved to its tensors by the
// library (tensor_inspect/input.hpp), the expression applied, Tensor.data() taken, rendered.
// Everything that can fail happens before the first byte is written to stdout.
#include <cstdio>
#include <exception>
#include <iostream>

#include <spdlog/spdlog.h>

#include "commands/inspect/checks.hpp"
#include "cli/contradictions.hpp"
#include "tensor_inspect/counts.hpp"
#include "commands/inspect/inspect.hpp"
#include "tensor_inspect/json_shape.hpp"
#include "tensor_inspect/listing.hpp"
#include "tensor_inspect/overview.hpp"
#include "cli/options.hpp"
#include "cli/print_options.hpp"
#include "term/process_exit.hpp"
#include "commands/stats/stats.hpp"
#include "tensor_inspect/tensor_errors.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/remote.hpp"
#include "tensor_inspect/expr.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/input.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "tensor_inspect/realize.hpp"
#include "tensor_inspect/render.hpp"
#include "tensor_inspect/show_selected.hpp"

namespace tensor_inspect::app {

namespace {

// What a file warns of goes to stderr when the run ends without trouble (exit 0 or 1). A
// run that fails prints only its one error line, which says the same for the tensor it
// needed ("tensor 'w' is in shard '...', which cannot be read (...)"), whenever it fails:
// opening, realizing, or deep in a whole-file scan.
class WarningsAtEnd {
 public:
  explicit WarningsAtEnd(std::vector<std::string> warnings) : warnings_(std::move(warnings)) {}
  WarningsAtEnd(const WarningsAtEnd&) = delete;
  WarningsAtEnd& operator=(const WarningsAtEnd&) = delete;
  ~WarningsAtEnd() {
    if (std::uncaught_exceptions() > in_flight_) return;
    for (const std::string& w : warnings_) spdlog::warn("{}", escape_untrusted(w, false));
  }

 private:
  std::vector<std::string> warnings_;
  int in_flight_ = std::uncaught_exceptions();
};

// What the command line says of its INPUT, for the library's resolve_input (tensor_inspect/input.hpp).
InputRequest input_request(const Options& o) {
  return InputRequest{.input = o.input, .dtype = o.dtype, .format = o.format, .raw = o.raw, .shape = o.shape,
                      .offset = o.offset, .byte_order = o.byte_order, .names = o.names, .all = o.all,
                      .jsonl = o.jsonl, .strict = o.strict, .stored = o.stored, .list = o.list, .meta = o.meta,
                      .list0 = o.list0, .overview = o.overview, .stats = o.stats.active(),
                      .checks = !o.expects.empty() || !o.asserts.empty(), .expr = o.expr.has_value(),
                      .describes_tensor = o.print.header || o.graph.has_value()};
}

}  // namespace

ComputeHook graph_hook(const Options& o, const Item* heading) {
  if (!o.graph) return {};
  // Among several tensors, each graph is told apart by its tensor's name, as stdout's blocks are.
  const std::string head =
      heading ? "== " + (heading->name ? escape_untrusted(*heading->name, true) : std::string("(unnamed)")) + " ==\n"
              : "";
  return [dot = *o.graph == "dot", head](const Tensor& t) { std::cerr << head << graph_report(t.node(), dot); };
}

int run(const Options& o) {
  const Mode mode = resolve_mode(o);
  if (o.graph && *o.graph != "text" && *o.graph != "dot")
    throw Error(ErrorCode::Usage, "--graph takes text or dot, not '" + *o.graph + "'");
  set_limits_from(o.limits);
  const Defaults defaults = parse_defaults(o.default_float, o.default_int);
  const InputRequest request = input_request(o);
  ResolvedInput in = resolve_input(request, defaults);
  const WarningsAtEnd warnings(std::move(in.warnings));
  const bool many = in.many.value_or(many_mode(request));
  // Python numbers commit to --default-float/--default-int: a literal's, or those of -e and
  // --assert. A file's tensors have dtypes of their own, so without those it changes nothing.
  const std::optional<std::string> file =
      in.file ? std::optional<std::string>(in.file->path) : in.items.empty() ? std::nullopt : in.items[0].file;
  if ((o.default_float || o.default_int) && file && !o.expr && o.asserts.empty())
    throw Error(ErrorCode::Usage,
                std::string(o.default_float ? "--default-float" : "--default-int") + " changes nothing here: " + *file +
                    " holds tensors of their own dtypes, and only Python numbers (a literal's, -e's, --assert's) "
                    "commit to it; drop it");
  if (in.file) {
    const std::string holds = in.file->path + " holds " + count_of(ListedTensors(*in.file).size(), "tensor");
    if (o.expr) throw Error(ErrorCode::Usage, holds + ": choose one with --name before -e");
    if (mode.has(kChecks))
      throw Error(ErrorCode::Usage, holds + ": choose them with --name or --all before --expect/--assert");
    if (mode.has(kStats)) return run_stats_file(*in.file, o, defaults);
    if (mode.has(kHeader))
      throw Error(ErrorCode::Usage, holds + ": choose one with --name for --header (--list shows them all)");
    if (o.graph)
      throw Error(ErrorCode::Usage, holds + ": choose one with --name for --graph (--list shows them all)");
    {
      OutBuffer out(stdout);
      if (mode.has(kMeta)) render_meta(*in.file, o.json, o.print.full, out);
      else if (mode.has(kList0)) render_names0(*in.file, out);
      else if (mode.has(kOverview)) render_overview(o.input, *in.file, o.json, out);
      else render_listing(*in.file, o.json, out);
    }
    keep_until_exit(std::move(*in.file));  // freed with the process, not entry by entry
    return 0;
  }
  // Everything lazy happens before the first byte is written: -e over each tensor.
  if (in.items.empty() && !o.expr && !o.input.empty() && many) {
    // --all (or --jsonl) over an input of no tensors selects nothing: an empty result below.
  } else if (in.items.empty()) {
    if (!o.expr) throw Error(ErrorCode::Usage, "nothing to inspect: give an INPUT or an --expr (see --help)");
    in.items.push_back(Item{std::nullopt, std::nullopt, evaluate_expression(*o.expr, std::nullopt, defaults), "", "",
                            std::nullopt, ""});
  } else if (o.expr) {
    for (Item& it : in.items)
      it.tensor = for_tensor(it.label, [&] { return evaluate_expression(*o.expr, it.tensor, defaults); });
  }
  if (mode.has(kStats)) {
    return with_checks(in.items, o, defaults, [&](std::FILE* to) {
      if (many || in.items.size() > 1) return run_stats_many(in.items, in.format, o, defaults, to);
      const Item& item = in.items[0];
      // One tensor whose values cannot be decoded has no statistics to show, and nothing for
      // --fail-on to pass: trouble, as printing its values is.
      if (!item.load_error.empty() && !o.expr)
        throw Error(ErrorCode::Unsupported, o.stats.fail_on ? fail_on_unchecked(item.load_error) : item.load_error);
      return for_tensor(item.label, [&] { return run_stats_tensor(item, o, defaults, to); });
    });
  }
  if (mode.has(kChecks)) return run_checks(in.items, o, defaults);
  const ShowOptions show{defaults, o.strict, o.view_as, o.expr.has_value()};
  JsonOptions jo;
  jo.nonfinite = o.json_nonfinite == "python" ? NonFinite::Python : NonFinite::String;
  if (many) {
    const std::optional<std::string> input =
        o.input.empty() ? std::nullopt : std::optional<std::string>(input_name(o.input));
    const TensorsOutput output = o.jsonl ? TensorsOutput::Jsonl : o.json ? TensorsOutput::Json : TensorsOutput::Text;
    print_selected_many(in.items, input, show, o.print, output, jo, stdout,
                        [&](const Item& item) { return graph_hook(o, &item); });
    return 0;
  }
  OutBuffer out(stdout);
  print_selected(in.items[0], show, o.print, o.json, jo, out, {}, graph_hook(o));
  return 0;
}

}  // namespace tensor_inspect::app
