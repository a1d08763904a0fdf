// app/commands/diff/diff.cpp — the diff subcommand: its options, both inputs opened, the library's diff
// (tensor_inspect/diff.hpp) run with progress on a terminal, its report printed.
#include "commands/diff/diff.hpp"

#include <CLI/CLI.hpp>
#include <unistd.h>

#include <optional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "tensor_inspect/input.hpp"
#include "term/progress.hpp"
#include "tensor_inspect/diff.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/json_shape.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/remote.hpp"
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

}  // namespace

CLI::App* setup_diff(CLI::App& app, DiffOptions& o) {
  CLI::App* sub =
      app.add_subcommand("diff", "compare two inputs tensor by tensor (exit 0 same, 1 different, 2 trouble)");
  sub->footer(kDiffExamples);
  sub->add_option("A", o.a,
                  "first input: a file (.safetensors .gguf .pt .npz .npy, an index, a model folder) or a literal")
      ->required();
  sub->add_option("B", o.b, "second input, the reference of the relative tolerance")->required();
  sub->add_option("--name", o.settings.names,
                  "compare only A's tensors whose name (or renamed name) matches, and their partners in B (shell glob; "
                  "repeatable)");
  sub->add_option("--rename", o.settings.renames, "A's tensor FROM is B's TO (repeatable)");
  sub->add_option("--rename-regex", o.settings.rename_regex,
                  "REGEX=REPLACEMENT applied to A's names, in order ($1 for groups)");
  sub->add_option("--rtol", o.settings.rtol, "relative tolerance, as numpy.allclose")
      ->capture_default_str()
      ->each([&o](const std::string&) { o.tolerance_given = "--rtol"; });
  sub->add_option("--atol", o.settings.atol, "absolute tolerance, as numpy.allclose")
      ->capture_default_str()
      ->each([&o](const std::string&) { o.tolerance_given = "--atol"; });
  sub->add_flag("--nan-differs", o.settings.nan_differs, "NaN vs NaN is a difference (default: equal, as h5diff)");
  sub->add_flag("--exact", o.settings.exact, "compare the bits of each element (no tolerance)");
  sub->add_flag(
      "--ignore-dtype", o.settings.ignore_dtype,
      "a pair of different dtypes is same or differs by its values (a conversion check); the dtypes still show");
  sub->add_flag("--stored", o.stored, "compare quantized weights' stored parts, not the dequantized tensors");
  sub->add_flag("--json", o.json, "one JSON object (kind \"diff\") on stdout");
  sub->add_flag("--jsonl", o.jsonl,
                "JSON Lines, streamed: a \"diff_tensor\" object per pair (the keys of --json's \"tensors\"), then a "
                "\"diff_summary\"");
  sub->add_option("--tolerance", o.settings.tolerance,
                  "torch: each pair's rtol/atol are torch.testing.assert_close's defaults for its looser dtype")
      ->check(CLI::IsMember({"torch"}));
  sub->add_option("--names", o.settings.names_map,
                  "hf-gguf: A's llama-style Hugging Face names as llama.cpp's converter writes them in B's GGUF, "
                  "q/k permutation undone")
      ->check(CLI::IsMember({"hf-gguf"}));
  sub->add_option("--limit", o.limits, "raise a resource cap, e.g. broadcast_pairs=2G (errors name the cap they hit)");
  return sub;
}

int run_diff(const DiffOptions& o) {
  if (o.json && o.jsonl)
    throw Error(
        ErrorCode::Usage,
        "diff: --json and --jsonl contradict (--json writes one object, --jsonl one object per line): choose one");
  check_diff_options(o.settings, o.tolerance_given);
  set_limits_from(o.limits);
  if (o.a == "-" && o.b == "-") throw Error(ErrorCode::Usage, "diff: standard input can be only one of A and B");
  const DiffInput a = open_diff_input(o.a, o.stored, "A"), b = open_diff_input(o.b, o.stored, "B");
  if (!o.settings.names_map.empty() && (!b.file || b.format != "gguf"))
    throw Error(ErrorCode::Usage, "diff --names hf-gguf: B (" + b.label +
                                      ") must be the GGUF and A the Hugging Face model (got " + b.format + ")");
  const bool show_progress = ::isatty(2) != 0;
  std::optional<QuietKernels> quiet;  // diff draws its own line
  if (show_progress) quiet.emplace();
  ProgressLine line;
  DiffProgress progress;
  if (show_progress)
    progress = [&](std::size_t index, std::size_t count, std::uint64_t done, std::uint64_t total, const char* unit) {
      line.draw(fmt::format("diff: tensor {} of {}, {} of {} {}", index + 1, count, done, total, unit));
    };
  OutBuffer out(stdout);
  auto on_row = [&](const DiffRow& row) {
    if (!o.jsonl) return;
    line.clear();  // streamed: each pair's line as soon as it is compared, whole
    out.write(std::string("{") + json_head("diff_tensor") + diff_row_json(row) + "}\n");
    out.flush();
  };
  const std::vector<DiffRow> rows = diff_tensors(a, b, o.settings, on_row, progress);
  line.clear();
  if (o.jsonl)
    out.write(std::string("{") + json_head("diff_summary") + diff_inputs_json(a, b, o.settings) + ", " +
              diff_summary_json(rows) + "}\n");
  else if (o.json)
    write_diff_json(rows, a, b, o.settings, out);
  else
    write_diff_text(rows, a, b, out);
  out.flush();
  // What a file warns of (a missing shard, pickle globals) goes to stderr once the report is
  // out, as for every other mode: tensors of a missing shard left out by --name, or on one
  // side only, are still heard of. A run that needed one has failed naming it instead. Each
  // is said once: a file compared with itself (or a copy under the same name) warns once.
  for (const std::string& w : warnings_once({a.file ? &*a.file : nullptr, b.file ? &*b.file : nullptr}))
    spdlog::warn("{}", escape_untrusted(w, false));
  return diff_found_difference(rows) ? 1 : 0;
}

}  // namespace tensor_inspect::app
