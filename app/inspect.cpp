// app/inspect.cpp — one run of the tool: resolve the input to a tensor (literal, file
// entry, raw bytes or stdin), apply the expression, take Tensor.data(), render.
// Everything that can fail happens before the first byte is written to stdout.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

#include <spdlog/spdlog.h>

#include "listing.hpp"
#include "options.hpp"
#include "stats.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/expr.hpp"
#include "tensor_inspect/literal.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "tensor_inspect/realize.hpp"
#include "tensor_inspect/render.hpp"

namespace tensor_inspect::app {
namespace {

DType parse_dtype(const std::string& name, const char* what) {
  if (auto d = dtype_from_name(name); d && !is_weak(*d)) return *d;
  throw Error(ErrorCode::BadDType, std::string(what) + ": unknown dtype '" + name +
                                       "' (known: bool int8 uint8 int16 uint16 int32 uint32 int64 uint64 float16 "
                                       "bfloat16 float32 float64 fp8e4m3 fp8e5m2, and aliases like half, float, long)");
}

Defaults parse_defaults(const Options& o) {
  Defaults d;
  d.float_dtype = parse_dtype(o.default_float, "--default-float");
  d.int_dtype = parse_dtype(o.default_int, "--default-int");
  if (!is_float(d.float_dtype)) throw Error(ErrorCode::Usage, "--default-float: " + o.default_float + " is not a float dtype");
  if (!is_int(d.int_dtype)) throw Error(ErrorCode::Usage, "--default-int: " + o.default_int + " is not an int dtype");
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

Shape parse_shape(const std::string& text, const char* what) {
  Shape s;
  std::string t;
  for (char c : text)
    if (c != '(' && c != ')' && c != ' ') t += c;
  std::stringstream ss(t);
  std::string part;
  while (std::getline(ss, part, ',')) {
    if (part.empty()) continue;
    try {
      std::size_t used = 0;
      long long v = std::stoll(part, &used);
      if (used != part.size() || v < 0) throw std::invalid_argument("bad");
      s.push_back(v);
    } catch (const std::exception&) {
      throw Error(ErrorCode::Usage, std::string(what) + ": '" + text + "' is not a shape like 2,3");
    }
  }
  return s;
}

std::vector<std::string> close_matches(const std::string& want, const std::vector<TensorEntry>& entries) {
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      cur[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j)
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      std::swap(prev, cur);
    }
    return prev[b.size()];
  };
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& e : entries) {
    if (e.name.empty()) continue;
    std::size_t d = e.name.find(want) != std::string::npos ? 0 : distance(want, e.name);
    if (d <= std::max<std::size_t>(3, want.size() / 3)) scored.push_back({d, e.name});
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < 5; ++i) out.push_back(scored[i].second);
  return out;
}

struct Resolved {
  std::optional<Tensor> tensor;
  std::optional<LoadedFile> file;  // set when the input is a file that should be listed
  std::string name, note;
  std::string label;  ///< the input as messages name it: a path, "<stdin>", or empty for a literal
  std::optional<TensorEntry> entry;  ///< the file entry the tensor came from (statistics scan it in place)
};

Resolved resolve_file(LoadedFile lf, const Options& o) {
  Resolved r;
  if (o.meta && o.list) throw Error(ErrorCode::Usage, "--list and --meta show different views: choose one");
  if (o.meta || o.list) {
    r.file = std::move(lf);
    return r;
  }
  const TensorEntry* entry = nullptr;
  if (o.name) {
    for (const auto& e : lf.tensors)
      if (e.name == *o.name) entry = &e;
    if (!entry) {
      std::string msg = lf.path + ": no tensor named '" + *o.name + "'";
      auto near = close_matches(*o.name, lf.tensors);
      if (!near.empty()) {
        msg += "; close matches:";
        for (std::size_t i = 0; i < near.size(); ++i) msg += (i ? ", '" : " '") + near[i] + "'";
      } else if (lf.tensors.size() == 1 && lf.tensors[0].name.empty()) {
        msg += " (it holds one unnamed tensor: drop --name)";
      } else {
        msg += " (" + std::to_string(lf.tensors.size()) + " tensors; --list shows them)";
      }
      throw Error(ErrorCode::NotFound, msg);
    }
  } else if (lf.tensors.size() == 1 && !o.list) {
    entry = &lf.tensors[0];
  } else {
    r.file = std::move(lf);
    return r;
  }
  r.tensor = entry->load();
  r.label = lf.path + (entry->name.empty() ? "" : ": tensor '" + entry->name + "'");
  r.name = entry->name;
  r.note = entry->note;
  r.entry = *entry;
  r.file.reset();
  return r;
}

Resolved resolve_input(const Options& o, const Defaults& defaults) {
  std::optional<DType> literal_dtype;
  if (o.dtype) literal_dtype = parse_dtype(*o.dtype, "--dtype");
  if (o.raw) {
    RawOptions ro;
    ro.dtype = parse_dtype(*o.raw, "--raw");
    if (o.shape) ro.shape = parse_shape(*o.shape, "--shape");
    ro.offset = o.offset;
    ro.big_endian = o.byte_order == "big";
    auto file = o.input.empty() || o.input == "-" ? MappedFile::read_fd(0, "<stdin>") : MappedFile::open(o.input);
    LoadedFile lf = open_raw(file, ro);
    lf.path = file->name();
    return resolve_file(std::move(lf), o);
  }
  if (o.shape || o.offset || o.byte_order != "little") throw Error(ErrorCode::Usage, "--shape, --offset and --byte-order go with --raw");
  if (o.input.empty()) {
    if (o.name || o.list || o.meta) throw Error(ErrorCode::Usage, "--name, --list and --meta need a file INPUT");
    return {};
  }
  const bool file_mode = o.name || o.list || o.meta || o.format;
  if (o.input == "-") {
    auto file = MappedFile::read_fd(0, "<stdin>");
    std::optional<LoadedFile> lf = open_detected(file, o.format);
    if (lf) {
      lf->path = "<stdin>";
      return resolve_file(std::move(*lf), o);
    }
    if (file_mode) throw Error(ErrorCode::BadFile, "<stdin>: not a recognised tensor file");
    auto bytes = file->bytes();
    std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    Resolved r;
    r.label = "<stdin>";
    try {
      r.tensor = tensor_from_literal(text, literal_dtype, defaults);
    } catch (const Error& e) {
      throw Error(e.code(), "<stdin>: " + std::string(e.what()));
    }
    return r;
  }
  if (file_mode || is_regular_or_special_file(o.input) || !looks_like_literal(o.input)) {
    if (o.dtype) throw Error(ErrorCode::Usage, "--dtype applies to literals; for a file use -e 'x.cast(dtypes." + *o.dtype + ")'");
    LoadedFile lf = open_file(o.input, o.format);
    lf.path = o.input;
    return resolve_file(std::move(lf), o);
  }
  Resolved r;
  r.tensor = tensor_from_literal(o.input, literal_dtype, defaults);
  return r;
}

}  // namespace

int run(const Options& o) {
  const Defaults defaults = parse_defaults(o);
  Resolved in = resolve_input(o, defaults);
  if (in.file) {
    if (o.expr) throw Error(ErrorCode::Usage, in.file->path + " holds " + std::to_string(in.file->tensors.size()) +
                                                  " tensors: choose one with --name before -e");
    if (o.stats.active() && (o.meta || o.list)) throw Error(ErrorCode::Usage, "--stats, --hist and --fail-on read values: not with --list or --meta");
    if (o.stats.active()) return run_stats_file(*in.file, o, defaults);
    OutBuffer out(stdout);
    if (o.meta) render_meta(*in.file, o.json, out);
    else render_listing(*in.file, o.json, out);
    return 0;
  }
  Tensor t = [&] {
    if (o.expr) return evaluate_expression(*o.expr, in.tensor, defaults);
    if (!in.tensor) throw Error(ErrorCode::Usage, "nothing to inspect: give an INPUT or an --expr (see --help)");
    return *in.tensor;
  }();
  if (o.stats.active()) return run_stats_tensor(t, o.expr || !in.entry ? nullptr : &*in.entry, in.label, o, defaults);
  if (o.graph) {
    std::string g = *o.graph;
    if (g != "text" && g != "dot") throw Error(ErrorCode::Usage, "--graph takes text or dot, not '" + g + "'");
    if (g == "dot") {
      std::cerr << graph_to_dot(t.node());
    } else {
      std::cerr << "graph:\n" << graph_to_string(t.node()) << "schedule:\n";
      auto kernels = schedule(t.contiguous().node());
      for (std::size_t i = 0; i < kernels.size(); ++i) std::cerr << kernels[i].to_string(i) << "\n";
    }
  }
  DataOptions dopt;
  dopt.defaults = defaults;
  dopt.strict = o.strict;
  MemoryView mv = [&] {
    try {
      return data(t, dopt);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::NoFormat || in.label.empty()) throw;
      throw Error(e.code(), in.label + ": " + e.what());
    }
  }();
  for (const std::string& spec : o.view_as) {
    auto colon = spec.find(':');
    std::string fmt = spec.substr(0, colon);
    if (fmt.size() == 2 && fmt[0] == '@') fmt = fmt.substr(1);
    if (fmt.size() != 1) throw Error(ErrorCode::Usage, "--view-as '" + spec + "': a format is one struct character (B, b, c, i, f, ...)");
    std::optional<Shape> shape;
    if (colon != std::string::npos) shape = parse_shape(spec.substr(colon + 1), "--view-as");
    mv = cast_view(mv, fmt[0], shape);
  }
  OutBuffer out(stdout);
  JsonOptions jo;
  jo.nonfinite = o.json_nonfinite == "python" ? NonFinite::Python : NonFinite::String;
  if (!in.note.empty()) spdlog::info("{}", in.note);
  if (o.json) render_json(mv, jo, out);
  else render_text(mv, out);
  return 0;
}

}  // namespace tensor_inspect::app
