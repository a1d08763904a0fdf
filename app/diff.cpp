// app/diff.cpp — the diff subcommand: open both inputs, pair their tensors, compare each
// pair through the streaming comparison (compare.hpp), report a table or one JSON object.
#include "diff.hpp"
#include "open_logged.hpp"
#include "diff_rows.hpp"
#include "names_hf_gguf.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "inspect.hpp"
#include "json_shape.hpp"
#include "progress.hpp"
#include "selection.hpp"
#include "tensor_errors.hpp"
#include "tensor_inspect/compare.hpp"
#include "tensor_inspect/schemes.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/remote.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/literal.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/render.hpp"

namespace tensor_inspect::app {
namespace {

constexpr const char* kDiffExamples = R"(Examples:
  tensor-inspect diff original.safetensors converted.gguf --rtol 1e-3 --atol 1e-5 --ignore-dtype
  tensor-inspect diff a.npz b.npz --json | jq .summary
  tensor-inspect diff a.safetensors b.safetensors --jsonl | jq -c 'select(.status != "same")'   streamed
  tensor-inspect diff x.npy y.npy --exact                   bits, not values (-0.0 differs from 0.0)
  tensor-inspect diff ./hf-model/ model.pt --name 'model.layers.0.*'
  tensor-inspect diff hf.safetensors model.gguf --rename-regex '^model\.layers\.(\d+)\.=blk.$1.'
  tensor-inspect diff w.npy '[[1.5, -2.0]]'                 a literal, paired by position
  tensor-inspect diff Llama-3-8B/ Llama-3-8B-AWQ/ --json | jq .summary.sqnr_db      the model's quantization error
  tensor-inspect diff Llama-3-8B/ llama-3-8b-Q4_K_M.gguf --names hf-gguf --tolerance torch

Tensors are paired by name (--rename FROM=TO and --rename-regex REGEX=REPLACEMENT map A's
names to B's; write '=' inside a regex as \x3d); two single-tensor inputs pair by position.
--name selects by A's names (or what they are renamed to) and brings their partners in B
along; a tensor of B that pairs with none of A is kept when its own name matches.
Elements are equal as numpy.allclose(A, B) has it: |a - b| <= atol + rtol * |b|, values
widened to float64 (integers exactly); NaN equals NaN unless --nan-differs (h5diff).
Tensors whose values this tool cannot decode (GGUF Q8_1, safetensors C64, PyTorch
complex) are compared by their stored bytes: equal bytes are the same tensor, other bytes
differ (no figures); where those bytes are not the tensor's in order (a strided PyTorch
view), the pair is "not comparable".
Each measured pair also shows NMSE = sum((a-b)^2) / sum(a^2) and SQNR = 10 log10(sum(a^2) /
sum((a-b)^2)) dB, A the reference (put the original first); the counts line ends with the
model's, from the totals of both sums over all pairs (weighted by parameters).
Exit status: 0 every tensor the same; 1 a tensor differs, has another shape or dtype, is
on one side only or is not comparable; 2 trouble.)";

Input open_input(const std::string& arg, bool stored, const std::string& role) {
  Input in;
  in.label = arg;
  if (arg != "-" && is_literal_input(arg)) {
    Tensor t = tensor_from_literal(arg, std::nullopt);
    TensorEntry e;
    e.dtype = commit_dtype(t.dtype());
    e.shape = t.shape();
    e.details_for_write().loader = [t] { return t; };
    in.format = "literal";
    spdlog::info("{}: literal, {} {}", role, dtype_info(*e.dtype).name, shape_repr(e.shape));
    in.entries.push_back(std::move(e));
    return in;
  }
  in.file = open_file_logged(arg, std::nullopt, role);
  if (!stored) apply_schemes(*in.file);
  in.file->path = arg == "-" ? "<stdin>" : input_name(arg);  // a URL without its password or query
  in.label = in.file->path;
  in.format = in.file->format;
  in.entries = in.file->tensors;
  return in;
}

// A's name as B spells it: an exact --rename first, else every --rename-regex in order.
struct Renamer {
  std::map<std::string, std::string> exact;
  std::vector<std::pair<std::regex, std::string>> regexes;
  bool hf_gguf = false;
  explicit Renamer(const DiffOptions& o) : hf_gguf(o.names_map == "hf-gguf") {
    for (const std::string& r : o.renames) {
      const auto eq = r.find('=');
      if (eq == std::string::npos || eq == 0) throw Error(ErrorCode::Usage, "diff --rename '" + r + "': write FROM=TO");
      exact[r.substr(0, eq)] = r.substr(eq + 1);
    }
    for (const std::string& r : o.rename_regex) {
      const auto eq = r.find('=');
      if (eq == std::string::npos) throw Error(ErrorCode::Usage, "diff --rename-regex '" + r + "': write REGEX=REPLACEMENT");
      try {
        regexes.emplace_back(std::regex(r.substr(0, eq)), r.substr(eq + 1));
      } catch (const std::regex_error& e) {
        throw Error(ErrorCode::Usage, "diff --rename-regex '" + r + "': bad regular expression (" + e.what() + ")");
      }
    }
  }
  std::string operator()(const std::string& name) const {
    if (auto it = exact.find(name); it != exact.end()) return it->second;
    std::string out = name;
    if (hf_gguf)
      if (std::optional<std::string> mapped = hf_to_gguf_name(name)) out = *mapped;
    for (const auto& [re, replacement] : regexes) out = std::regex_replace(out, re, replacement);
    return out;
  }
};

// --name selects by A's names: A's tensor is kept when a glob matches its name or the name
// it is renamed to (B's spelling), and B's tensor of that name comes along; B's tensor that
// no kept one of A pairs with is kept when a glob matches its own name. Unnamed tensors (a
// lone .npy, a literal) are always kept. Each glob must match a name of A or of B. A
// --name that is exactly a name of A, of B or a renamed one (`['a.b']`) matches that name
// only, as in the main command.
bool matches_any(const DiffOptions& o, const std::vector<bool>& exact, const std::string& name, std::vector<bool>& matched) {
  bool any = false;
  for (std::size_t p = 0; p < o.names.size(); ++p)
    if (exact[p] ? name == o.names[p] : glob_matches(o.names[p], name)) any = matched[p] = true;
  return any;
}

std::vector<Row> pair_up(const Input& a, const Input& b, const DiffOptions& o) {
  const Renamer rename(o);
  std::vector<bool> matched(o.names.size(), false), exact(o.names.size(), false);
  auto mark_exact = [&](const std::string& name) {
    for (std::size_t p = 0; p < o.names.size(); ++p) exact[p] = exact[p] || name == o.names[p];
  };
  if (!o.names.empty()) {
    for (const TensorEntry& e : a.entries) {
      mark_exact(e.name);
      mark_exact(rename(e.name));
    }
    for (const TensorEntry& e : b.entries) mark_exact(e.name);
  }
  std::vector<const TensorEntry*> ea, eb;
  std::set<std::string> partners;  // B's names that kept tensors of A are renamed to
  for (const TensorEntry& e : a.entries) {
    const std::string renamed = rename(e.name);
    // Both are tried, so that each glob that matches either is counted as matching.
    const bool by_name = matches_any(o, exact, e.name, matched), by_renamed = matches_any(o, exact, renamed, matched);
    if (!o.names.empty() && !e.name.empty() && !by_name && !by_renamed) continue;
    ea.push_back(&e);
    if (!e.name.empty()) partners.insert(renamed);
  }
  for (const TensorEntry& e : b.entries) {
    const bool by_name = matches_any(o, exact, e.name, matched);
    if (o.names.empty() || e.name.empty() || by_name || partners.count(e.name)) eb.push_back(&e);
  }
  for (std::size_t p = 0; p < o.names.size(); ++p)
    if (!matched[p]) throw Error(ErrorCode::NotFound, "diff: --name '" + o.names[p] + "' matches no tensor of " + a.label + " or " + b.label);
  std::vector<Row> rows;
  if (ea.size() == 1 && eb.size() == 1) {
    rows.push_back({ea[0], eb[0], Status::Same, std::nullopt, {}, false});
    return rows;
  }
  std::map<std::string, std::size_t> in_b;
  for (std::size_t i = 0; i < eb.size(); ++i) in_b.emplace(eb[i]->name, i);
  std::vector<const TensorEntry*> paired_with(eb.size(), nullptr);  // B's tensor i pairs with A's
  for (const TensorEntry* e : ea) {
    auto it = in_b.find(rename(e->name));
    // Two of A's tensors renamed onto one of B's: one would silently show "only in A".
    if (it != in_b.end() && paired_with[it->second])
      throw Error(ErrorCode::Usage, "diff: " + a.label + "'s tensors '" + paired_with[it->second]->name + "' and '" + e->name +
                                        "' both pair with " + b.label + "'s '" + it->first + "' (check --rename and --rename-regex)");
    if (it != in_b.end()) {
      paired_with[it->second] = e;
      rows.push_back({e, eb[it->second], Status::Same, std::nullopt, {}, false});
    } else {
      rows.push_back({e, nullptr, Status::OnlyInA, std::nullopt, {}, false});
    }
  }
  for (std::size_t i = 0; i < eb.size(); ++i)
    if (!paired_with[i]) rows.push_back({nullptr, eb[i], Status::OnlyInB, std::nullopt, {}, false});
  return rows;
}

// How messages name one side's tensor: "a.safetensors: tensor 'w'", a literal as written.
std::string side_label(const Input& in, const TensorEntry& e) { return in.file ? tensor_label(in.label, e.name) : in.label; }

// A pair where a side's values cannot be decoded (r.a or r.b has no dtype) but their shapes
// agree. Two tensors of one stored type are compared by their stored bytes: equal bytes
// are an equal tensor, different bytes a difference without figures (nothing decoded to
// measure it by). A decoded tensor against an undecoded one, or two stored types, is a
// dtype mismatch. Where a side's bytes do not lie in its file as the tensor's (a strided or
// deflated PyTorch storage, one of a type of unknown size), the pair is not comparable: the
// run goes on with the other pairs, and exits 1, as h5diff does for objects it cannot compare.
void compare_undecoded(Row& r, const std::string& label_a, const std::string& label_b, bool show_progress, std::size_t index,
                       std::size_t count) {
  const std::string undecoded = !r.a->dtype && !r.b->dtype ? "A's and B's" : !r.a->dtype ? "A's" : "B's";
  if (r.a->dtype || r.b->dtype || r.a->stored_type != r.b->stored_type) {
    r.status = Status::DTypeMismatch;
    r.note = undecoded + " values (" + (r.a->dtype ? r.b->stored_type : r.a->stored_type) + ") are not decoded by this tool";
    return;
  }
  if (!has_stored_bytes(*r.a) || !has_stored_bytes(*r.b)) {
    const TensorEntry& without = has_stored_bytes(*r.a) ? *r.b : *r.a;
    const std::string side = !has_stored_bytes(*r.a) && !has_stored_bytes(*r.b) ? "A's and B's" : &without == r.a ? "A's" : "B's";
    // The loader's note says how the tensor lies over its storage (strides, deflated, big-endian).
    const std::string why = !without.note.empty() ? without.note : "a storage type of unknown element size";
    r.status = Status::NotComparable;
    r.note = r.a->stored_type + " values are not decoded by this tool, and " + side + " stored bytes are not the tensor's in order (" +
             why + "): not compared";
    return;
  }
  auto progress = [&](std::uint64_t done) {
    if (show_progress)
      std::fprintf(stderr, "\rdiff: tensor %zu of %zu, %llu of %llu stored bytes\x1b[K", index + 1, count,
                   static_cast<unsigned long long>(done), static_cast<unsigned long long>(r.a->nbytes));
  };
  const std::optional<std::uint64_t> at = for_pair(label_a, label_b, [&] { return first_differing_byte(*r.a, *r.b, progress); });
  r.bytes_compared = true;
  r.status = at ? Status::Differs : Status::Same;
  r.note = r.a->stored_type + " values are not decoded by this tool: stored bytes " +
           (at ? "differ, first at byte " + std::to_string(*at) + " of " + std::to_string(r.a->nbytes) : std::string("equal"));
}

void compare_row(Row& r, const Input& a, const Input& b, CompareOptions copt, const DiffOptions& o, bool show_progress,
                 std::size_t index, std::size_t count) {
  const bool ignore_dtype = o.ignore_dtype;
  if (!r.a || !r.b) return;
  const std::string label_a = side_label(a, *r.a), label_b = side_label(b, *r.b);
  // An entry whose values cannot be shown says why when loaded: a tensor in a missing shard
  // is trouble (its shape is unknown, not ()), a dtype tinygrad lacks still gets its shape
  // compared and then its stored bytes (compare_undecoded).
  for (const TensorEntry* e : {r.a, r.b})
    if (!e->dtype) {
      try {
        (void)for_tensor(e == r.a ? label_a : label_b, [e] { return e->load(); });
      } catch (const Error& err) {
        if (err.code() != ErrorCode::Unsupported) throw;
      }
    }
  if (r.a->shape != r.b->shape) {
    r.status = Status::ShapeMismatch;
    return;
  }
  if (!r.a->dtype || !r.b->dtype) {
    compare_undecoded(r, label_a, label_b, show_progress, index, count);
    return;
  }
  // Every element is compared, so every byte is read: what a whole read checks is checked.
  for (const TensorEntry* e : {r.a, r.b})
    if (e->details().check_whole) for_tensor(e == r.a ? label_a : label_b, e->details().check_whole);
  const Tensor ta = for_tensor(label_a, [&] { return r.a->load(); });
  Tensor tb = for_tensor(label_b, [&] { return r.b->load(); });
  if (o.tolerance == "torch") std::tie(copt.rtol, copt.atol) = torch_tolerance(*r.a, *r.b);
  r.rtol = o.exact ? 0 : copt.rtol;  // --exact compares bits: no tolerance
  r.atol = o.exact ? 0 : copt.atol;
  if (o.names_map == "hf-gguf" && !align_gguf_to_hf(r, *b.file, tb, label_b)) return;
  auto progress = [&](std::int64_t done) {
    if (show_progress)
      std::fprintf(stderr, "\rdiff: tensor %zu of %zu, %lld of %lld elements\x1b[K", index + 1, count, static_cast<long long>(done),
                   static_cast<long long>(ta.numel()));
  };
  // Both stream through one pass: what fails there is named by the pair.
  r.cmp = for_pair(label_a, label_b, [&] { return compare_tensors(ta, tb, copt, progress); });
  if (commit_dtype(ta.dtype()) != commit_dtype(tb.dtype()) && !ignore_dtype) r.status = Status::DTypeMismatch;
  else r.status = r.cmp->mismatched ? Status::Differs : Status::Same;
}

}  // namespace

CLI::App* setup_diff(CLI::App& app, DiffOptions& o) {
  CLI::App* sub = app.add_subcommand("diff", "compare two inputs tensor by tensor (exit 0 same, 1 different, 2 trouble)");
  sub->footer(kDiffExamples);
  sub->add_option("A", o.a, "first input: a file (.safetensors .gguf .pt .npz .npy, an index, a model folder) or a literal")->required();
  sub->add_option("B", o.b, "second input, the reference of the relative tolerance")->required();
  sub->add_option("--name", o.names, "compare only A's tensors whose name (or renamed name) matches, and their partners in B (shell glob; repeatable)");
  sub->add_option("--rename", o.renames, "A's tensor FROM is B's TO (repeatable)");
  sub->add_option("--rename-regex", o.rename_regex, "REGEX=REPLACEMENT applied to A's names, in order ($1 for groups)");
  sub->add_option("--rtol", o.rtol, "relative tolerance, as numpy.allclose")->capture_default_str()->each([&o](const std::string&) {
    o.tolerance_given = "--rtol";
  });
  sub->add_option("--atol", o.atol, "absolute tolerance, as numpy.allclose")->capture_default_str()->each([&o](const std::string&) {
    o.tolerance_given = "--atol";
  });
  sub->add_flag("--nan-differs", o.nan_differs, "NaN vs NaN is a difference (default: equal, as h5diff)");
  sub->add_flag("--exact", o.exact, "compare the bits of each element (no tolerance)");
  sub->add_flag("--ignore-dtype", o.ignore_dtype,
                "a pair of different dtypes is same or differs by its values (a conversion check); the dtypes still show");
  sub->add_flag("--stored", o.stored, "compare quantized weights' stored parts, not the dequantized tensors");
  sub->add_flag("--json", o.json, "one JSON object (kind \"diff\") on stdout");
  sub->add_flag("--jsonl", o.jsonl,
                "JSON Lines, streamed: a \"diff_tensor\" object per pair (the keys of --json's \"tensors\"), then a \"diff_summary\"");
  sub->add_option("--tolerance", o.tolerance,
                  "torch: each pair's rtol/atol are torch.testing.assert_close's defaults for its looser dtype")
      ->check(CLI::IsMember({"torch"}));
  sub->add_option("--names", o.names_map,
                  "hf-gguf: A's llama-style Hugging Face names as llama.cpp's converter writes them in B's GGUF, "
                  "q/k permutation undone")
      ->check(CLI::IsMember({"hf-gguf"}));
  sub->add_option("--limit", o.limits, "raise a resource cap, e.g. broadcast_pairs=2G (errors name the cap they hit)");
  return sub;
}

int run_diff(const DiffOptions& o) {
  if (!(o.rtol >= 0) || !(o.atol >= 0))  // NaN fails both tests too
    throw Error(ErrorCode::Usage, "diff: --rtol and --atol must be numbers >= 0 (got --rtol " + fmt::format("{}", o.rtol) +
                                      ", --atol " + fmt::format("{}", o.atol) + ")");
  if (o.json && o.jsonl)
    throw Error(ErrorCode::Usage, "diff: --json and --jsonl contradict (--json writes one object, --jsonl one object per line): choose one");
  if (o.exact && !o.tolerance_given.empty())
    throw Error(ErrorCode::Usage, "diff: --exact and " + o.tolerance_given + " contradict (--exact compares bits, " + o.tolerance_given +
                                      " is a tolerance of values): choose one");
  if (!o.tolerance.empty() && (o.exact || !o.tolerance_given.empty()))
    throw Error(ErrorCode::Usage, "diff: --tolerance torch and " + (o.exact ? std::string("--exact") : o.tolerance_given) +
                                      " contradict (--tolerance torch sets each pair's rtol and atol): choose one");
  set_limits_from(o.limits);
  if (o.a == "-" && o.b == "-") throw Error(ErrorCode::Usage, "diff: standard input can be only one of A and B");
  const Input a = open_input(o.a, o.stored, "A"), b = open_input(o.b, o.stored, "B");
  if (!o.names_map.empty() && (!b.file || b.format != "gguf"))
    throw Error(ErrorCode::Usage, "diff --names hf-gguf: B (" + b.label + ") must be the GGUF and A the Hugging Face model (got " +
                                      b.format + ")");
  std::vector<Row> rows = pair_up(a, b, o);
  CompareOptions copt;
  copt.rtol = o.rtol;
  copt.atol = o.atol;
  copt.nan_equal = !o.nan_differs;
  copt.exact = o.exact;
  const bool show_progress = ::isatty(2) != 0;
  std::optional<QuietKernels> quiet;  // diff draws its own line
  if (show_progress) quiet.emplace();
  OutBuffer out(stdout);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    compare_row(rows[i], a, b, copt, o, show_progress, i, rows.size());
    if (o.jsonl) {  // streamed: each pair's line as soon as it is compared, whole
      if (show_progress) std::fprintf(stderr, "\r\x1b[K");
      out.write(std::string("{") + json_head("diff_tensor") + diff_row_json(rows[i]) + "}\n");
      out.flush();
    }
  }
  if (show_progress && !rows.empty()) std::fprintf(stderr, "\r\x1b[K");
  if (o.jsonl) out.write(std::string("{") + json_head("diff_summary") + diff_inputs_json(a, b, o) + ", " + diff_summary_json(rows) + "}\n");
  else if (o.json) write_diff_json(rows, a, b, o, out);
  else write_diff_text(rows, a, b, out);
  out.flush();
  // What a file warns of (a missing shard, pickle globals) goes to stderr once the report is
  // out, as for every other mode: tensors of a missing shard left out by --name, or on one
  // side only, are still heard of. A run that needed one has failed naming it instead. Each
  // is said once: a file compared with itself (or a copy under the same name) warns once.
  std::vector<std::string> said;
  for (const Input* in : {&a, &b})
    if (in->file)
      for (const std::string& w : in->file->warnings)
        if (std::find(said.begin(), said.end(), w) == said.end()) {
          said.push_back(w);
          spdlog::warn("{}", escape_untrusted(w, false));
        }
  for (const Row& r : rows)
    if (r.status != Status::Same) return 1;
  return 0;
}

}  // namespace tensor_inspect::app
