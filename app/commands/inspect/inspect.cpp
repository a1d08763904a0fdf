// app/commands/inspect/inspect.cpp — one run of the tool: resolve the input to a tensor (literal, file
// entry, raw bytes or stdin), apply the expression, take Tensor.data(), render.
// Everything that can fail happens before the first byte is written to stdout.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <sstream>

#include <spdlog/spdlog.h>

#include "commands/inspect/checks.hpp"
#include "cli/contradictions.hpp"
#include "tensor_inspect/counts.hpp"
#include "commands/inspect/inspect.hpp"
#include "tensor_inspect/json_shape.hpp"
#include "tensor_inspect/listing.hpp"
#include "commands/inspect/open_logged.hpp"
#include "tensor_inspect/overview.hpp"
#include "tensor_inspect/selection.hpp"
#include "cli/options.hpp"
#include "cli/print_options.hpp"
#include "term/process_exit.hpp"
#include "commands/stats/stats.hpp"
#include "tensor_inspect/tensor_errors.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/remote.hpp"
#include "tensor_inspect/expr.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/literal.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "tensor_inspect/realize.hpp"
#include "tensor_inspect/render.hpp"
#include "tensor_inspect/schemes.hpp"

namespace tensor_inspect::app {

namespace {

// Every option that takes a dtype reads the one table of names users write (dtype_names.cpp).
DType parse_dtype(const std::string& name, const char* what) { return parse_dtype_name(name, what); }

Defaults parse_defaults(const Options& o) {
  Defaults d;
  const std::string float_name = o.default_float.value_or("float32"), int_name = o.default_int.value_or("int32");
  d.float_dtype = parse_dtype(float_name, "--default-float");
  d.int_dtype = parse_dtype(int_name, "--default-int");
  if (!is_float(d.float_dtype))
    throw Error(ErrorCode::Usage, "--default-float: " + float_name + " is not a float dtype");
  if (!is_int(d.int_dtype)) throw Error(ErrorCode::Usage, "--default-int: " + int_name + " is not an int dtype");
  return d;
}

bool is_regular_or_special_file(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0;
}

// A literal starts like a Python value; anything else is taken for a path.
bool looks_like_literal(const std::string& s) {
  auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return true;
  char c = s[first];
  if (std::string("[(-+.0123456789'\"").find(c) != std::string::npos) return true;
  std::string word = s.substr(first, s.find_first_of(" ([,", first) - first);
  return word == "True" || word == "False" || word == "None" || word == "float" || word == "nan" || word == "inf";
}

// Many-tensor mode is chosen by the command line, never by what the file holds: a glob,
// several --name, --all or --jsonl. One exception: a --name that is a tensor's exact name
// (`['a.b']` of a PyTorch file holds glob characters) is that tensor, as a plain name is
// (resolve_file).
bool many_mode(const Options& o) {
  return o.all || o.jsonl || o.names.size() > 1 || (o.names.size() == 1 && is_glob(o.names[0]));
}

// memoryview.cast(FMT[, SHAPE]) for each --view-as, in order.
MemoryView apply_view_as(MemoryView mv, const std::vector<std::string>& view_as) {
  for (const std::string& spec : view_as) {
    auto colon = spec.find(':');
    std::string fmt = spec.substr(0, colon);
    if (fmt.size() != 1 && !(fmt.size() == 2 && fmt[0] == '@'))
      throw Error(ErrorCode::Usage, "--view-as '" + spec + "': a format is one struct character (B, b, c, i, f, ...)");
    std::optional<Shape> shape;
    if (colon != std::string::npos) shape = parse_shape(spec.substr(colon + 1), "--view-as");
    mv = cast_view(mv, std::string_view(fmt), shape);
  }
  return mv;
}

struct Resolved {
  std::vector<Item> items;         // the tensors to show, before -e
  std::optional<LoadedFile> file;  // set when the input is a file that should be listed
  std::string format;              // the file's format, when items come from one
  std::vector<std::string> warnings;  // what the file warns of (missing shards, pickle globals)
  std::optional<bool> many;        // a file's tensors shown as several, each under its name; unset: many_mode
};

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

Resolved resolve_file(LoadedFile lf, const Options& o) {
  // What the file warns of (pickle globals torch.load would import, missing shards) goes
  // to stderr at the end of a run without trouble (WarningsAtEnd); --strict refuses the file.
  if (o.strict && !lf.warnings.empty()) throw Error(ErrorCode::BadFile, lf.warnings[0] + " (--strict)");
  Resolved r;
  r.format = lf.format;
  r.warnings = lf.warnings;
  if (o.meta || o.list || o.list0 || o.overview) {
    r.file = std::move(lf);
    return r;
  }
  std::vector<std::size_t> chosen;
  r.many = many_mode(o) && !(o.names.size() == 1 && !o.all && !o.jsonl && names_a_tensor(lf, o.names[0]));
  if (*r.many && (o.all || !o.names.empty())) {
    chosen = select_entries(lf, o.names, o.all);
  } else if (!o.names.empty()) {
    chosen = select_entries(lf, o.names, false);
    if (chosen.size() > 1)
      chosen.erase(chosen.begin() + 1, chosen.end());  // an exact name held twice: the first, as before
  } else if (lf.tensors.size() == 1) {
    chosen = {0};
  } else if (o.jsonl && !o.stats.active()) {
    throw Error(ErrorCode::Usage, lf.path + " holds " + count_of(lf.tensors.size(), "tensor") +
                                      ": choose them with --name or --all for --jsonl");
  } else {
    r.file = std::move(lf);
    return r;
  }
  // --expect reads the header alone: a tensor whose values cannot be decoded is checked too.
  const bool checks = !o.expects.empty() || !o.asserts.empty();
  for (std::size_t i : chosen)
    r.items.push_back(selected_tensor_of(lf, lf.tensors[i], (o.stats.active() || checks) && !o.expr));
  return r;
}

// The run prints the listing, the names or the metadata, and nothing else of the tensors:
// the file may be opened for a listing only (open_listing: a GGUF header's records, no
// entry per tensor). Not --overview, which groups the entries.
bool lists_only(const Options& o) {
  return (o.list || o.meta || o.list0) && !o.overview && !o.stats.active() && !o.expr && o.expects.empty() &&
         o.asserts.empty() && !o.print.header && !o.graph;
}

Resolved resolve_input(const Options& o, const Defaults& defaults) {
  std::optional<DType> literal_dtype;
  if (o.dtype) literal_dtype = parse_dtype(*o.dtype, "--dtype");
  if (o.raw) {
    if (o.format)
      throw Error(ErrorCode::Usage,
                  "--raw " + *o.raw + " and --format " + *o.format + " both say how to read the file: choose one");
    RawOptions ro;
    ro.dtype = parse_dtype(*o.raw, "--raw");
    if (o.shape) ro.shape = parse_shape(*o.shape, "--shape");
    ro.offset = o.offset.value_or(0);
    ro.big_endian = o.byte_order == "big";
    const bool from_stdin = o.input.empty() || o.input == "-";
    struct stat st{};
    const bool device = (from_stdin ? ::fstat(0, &st) : ::stat(o.input.c_str(), &st)) == 0 && S_ISCHR(st.st_mode);
    const StreamCheck check =
        tensor_stream_check({from_stdin ? "<stdin>" : o.input, std::nullopt, false, ro, false, device});
    auto file = from_stdin ? MappedFile::read_fd(0, "<stdin>", check) : MappedFile::open(o.input, check);
    LoadedFile lf = open_raw(file, ro);
    lf.path = file->name();
    return resolve_file(std::move(lf), o);
  }
  if (o.shape || o.offset || o.byte_order)
    throw Error(ErrorCode::Usage, "--shape, --offset and --byte-order go with --raw");
  if (o.input.empty()) {
    if (!o.names.empty() || o.all || o.list || o.meta || o.list0 || o.overview)
      throw Error(ErrorCode::Usage, "--name, --all, --list, --meta, --list0 and --overview need a file INPUT");
    if (o.dtype)
      throw Error(ErrorCode::Usage,
                  "--dtype types a literal INPUT, and -e alone has none: cast in the expression (.cast(dtypes." +
                      std::string(dtype_info(*literal_dtype).name) + "))");
    return {};
  }
  const bool file_mode = !o.names.empty() || o.all || o.list || o.meta || o.list0 || o.overview || o.format;
  if (o.input == "-") {
    auto file = MappedFile::read_fd(0, "<stdin>",
                                    tensor_stream_check({"<stdin>", o.format, !file_mode, std::nullopt, false, false}));
    std::optional<LoadedFile> lf = open_detected(file, o.format);
    if (lf) {
      if (o.dtype)
        throw Error(ErrorCode::Usage, "--dtype applies to literals, and <stdin> holds a " + lf->format +
                                          " file; use -e 'x.cast(dtypes." +
                                          std::string(dtype_info(*literal_dtype).name) + ")'");
      if (!o.stored) apply_schemes(*lf);
      lf->path = "<stdin>";
      return resolve_file(std::move(*lf), o);
    }
    auto bytes = file->bytes();
    if (bytes.empty())  // `< /dev/null`, or a producer that wrote nothing
      throw Error(ErrorCode::BadFile, "<stdin>: empty input (0 bytes): neither a tensor file nor a literal");
    if (file_mode) throw Error(ErrorCode::BadFile, "<stdin>: not a recognised tensor file");
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());  // parsed where it was read
    Resolved r;
    try {
      r.items.push_back(Item{std::nullopt, std::nullopt, tensor_from_literal(text, literal_dtype, defaults), "<stdin>",
                             "", std::nullopt, ""});
    } catch (const Error& e) {
      throw Error(e.code(), "<stdin>: " + std::string(e.what()), {"<stdin>", "", e.byte_offset(), e.limit()});
    }
    return r;
  }
  if (file_mode || is_regular_or_special_file(o.input) || !looks_like_literal(o.input)) {
    if (o.dtype) throw Error(ErrorCode::Usage, "--dtype applies to literals; for a file use -e 'x.cast(dtypes." +
                                                  std::string(dtype_info(*literal_dtype).name) + ")'");
    LoadedFile lf = open_file_logged(o.input, o.format, "", lists_only(o));
    if (!o.stored) apply_schemes(lf);
    lf.path = input_name(o.input);  // a URL without its password or query
    return resolve_file(std::move(lf), o);
  }
  Resolved r;
  r.items.push_back(Item{std::nullopt, std::nullopt, tensor_from_literal(o.input, literal_dtype, defaults), "", "",
                         std::nullopt, ""});
  return r;
}

}  // namespace

bool is_literal_input(const std::string& input) {
  return !is_regular_or_special_file(input) && looks_like_literal(input);
}

ComputeHook graph_hook(const Options& o, const Item* heading) {
  if (!o.graph) return {};
  // Among several tensors, each graph is told apart by its tensor's name, as stdout's blocks are.
  const std::string head =
      heading ? "== " + (heading->name ? escape_untrusted(*heading->name, true) : std::string("(unnamed)")) + " ==\n"
              : "";
  return [mode = *o.graph, head](const Tensor& t) {
    std::cerr << head;
    if (mode == "dot") {
      std::cerr << graph_to_dot(t.node());
      return;
    }
    std::cerr << "graph:\n" << graph_to_string(t.node()) << "schedule:\n";
    auto kernels = schedule(t.contiguous().node());
    for (std::size_t i = 0; i < kernels.size(); ++i) std::cerr << kernels[i].to_string(i) << "\n";
  };
}

MemoryView item_view(const Item& item, const Options& o, const Defaults& defaults, bool labelled) {
  const Tensor& t = item.tensor;
  if (o.graph) graph_hook(o, labelled ? &item : nullptr)(t);
  DataOptions dopt;
  dopt.defaults = defaults;
  dopt.strict = o.strict;
  // The view is only printed: a big-endian file is read in place, swapped as printed. Not
  // under --view-as, which reinterprets the memoryview's own bytes.
  dopt.swapped_in_place = o.view_as.empty();
  MemoryView mv = for_tensor(item.label, [&] { return apply_view_as(data(t, dopt), o.view_as); });
  if (!item.note.empty()) spdlog::info("{}", item.note);
  return mv;
}

MemoryView item_memoryview(const Item& item, const Options& o, const Defaults& defaults, bool realized, bool labelled) {
  if (realized) return item_view(item, o, defaults, labelled);
  DataOptions dopt;
  dopt.defaults = defaults;
  dopt.strict = o.strict;
  return for_tensor(item.label, [&] { return apply_view_as(data_header(item.tensor, dopt), o.view_as); });
}

Shown item_shown(const Item& item, const Options& o, const Defaults& defaults) {
  if (o.view_as.empty()) return {item.tensor, false};
  DataOptions dopt;
  dopt.defaults = defaults;
  dopt.strict = o.strict;
  const MemoryView cast = item_memoryview(item, o, defaults, false);
  if (std::optional<Tensor> lazy = cast_of_swapped(item.tensor, cast, dopt)) return {*lazy, false};
  return {item.tensor, true};
}

void check_whole_read(const Item& item, const Shown& shown, const Options& o, bool json) {
  if (!o.expr && item.entry && item.entry->details().check_whole &&
      prints_every_element(shown.tensor, shown.reinterpreted, o.print, json))
    item.entry->details().check_whole();
}

int run(const Options& o) {
  refuse_contradictions(o);
  if (o.graph && *o.graph != "text" && *o.graph != "dot")
    throw Error(ErrorCode::Usage, "--graph takes text or dot, not '" + *o.graph + "'");
  set_limits_from(o.limits);
  const Defaults defaults = parse_defaults(o);
  Resolved in = resolve_input(o, defaults);
  const WarningsAtEnd warnings(std::move(in.warnings));
  const bool many = in.many.value_or(many_mode(o));
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
    if (!o.expects.empty() || !o.asserts.empty())
      throw Error(ErrorCode::Usage, holds + ": choose them with --name or --all before --expect/--assert");
    if (o.stats.active()) return run_stats_file(*in.file, o, defaults);
    if (o.print.header)
      throw Error(ErrorCode::Usage, holds + ": choose one with --name for --header (--list shows them all)");
    if (o.graph)
      throw Error(ErrorCode::Usage, holds + ": choose one with --name for --graph (--list shows them all)");
    {
      OutBuffer out(stdout);
      if (o.meta) render_meta(*in.file, o.json, o.print.full, out);
      else if (o.list0) render_names0(*in.file, out);
      else if (o.overview) render_overview(o.input, *in.file, o.json, out);
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
  if (o.stats.active()) {
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
  if (!o.expects.empty() || !o.asserts.empty()) return run_checks(in.items, o, defaults);
  if (many) return run_many(in.items, o, defaults);
  const Item& item = in.items[0];
  auto view = [&](bool realized) { return item_memoryview(item, o, defaults, realized); };
  OutBuffer out(stdout);
  JsonOptions jo;
  jo.nonfinite = o.json_nonfinite == "python" ? NonFinite::Python : NonFinite::String;
  jo.head = tensor_json_head(item.file, item.name);
  for_tensor(item.label, [&] {
    const Shown shown = item_shown(item, o, defaults);
    check_whole_read(item, shown, o, o.json);
    print_tensor(shown.tensor, view, shown.reinterpreted, o.print, o.json, jo, out, {}, graph_hook(o));
  });
  return 0;
}

}  // namespace tensor_inspect::app
