// app/commands/validate/validate.cpp — the `validate` subcommand: runs tensor_inspect::validate_file on each
// file and prints every finding through the library's report (tensor_inspect/validate_report.hpp).
#include "commands/validate/validate.hpp"
#include "tensor_inspect/counts.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/render.hpp"
#include "tensor_inspect/validate.hpp"
#include "tensor_inspect/validate_report.hpp"

namespace tensor_inspect::app {
namespace {

constexpr const char* kValidateExamples = R"(Examples:
  tensor-inspect validate model.safetensors                every rule of the format, every finding
  tensor-inspect validate model.gguf weights.npz model.pt  several files, each by its own format
  curl -s https://host/x.npy | tensor-inspect validate -    standard input (read whole, up to 1 GiB)
  tensor-inspect validate model.pt --json | jq '.files[].findings[] | select(.severity == "error")'

A finding is one line: FILE: CLASS: PLACE (byte N): MESSAGE [RULE]. Errors: the file breaks
its format's spec or cannot be read as it says. Warnings: legal but unusual or risky (misaligned
data, trailing bytes, pickle globals outside PyTorch's weights_only allow-list, which torch.load
would run). Notes: what this tool cannot decode (a dtype or ggml type: rule <format>.unsupported),
nothing wrong with the file. Each fact is reported once per run (a shard validated on its own is
not reported again through its index).
Exit status: 0 no errors (warnings and notes listed); 1 errors, or warnings with --strict;
2 a file cannot be read or is no tensor file (then nothing is printed on stdout).)";

// A model folder names the files it opens as a checkpoint (loaders/checkpoint_dir.cpp):
// its safetensors index and files, else its .bin index and weights, in name order; a file
// names itself.
std::vector<std::string> files_of(const std::string& path) {
  std::error_code ec;
  if (path == "-" || !std::filesystem::is_directory(path, ec)) return {path};
  return checkpoint_dir_files(path);
}

}  // namespace

CLI::App* setup_validate(CLI::App& app, ValidateOptions& o) {
  CLI::App* sub =
      app.add_subcommand("validate", "check files against every rule of their format (exit 1 errors, 2 unreadable)");
  sub->footer(kValidateExamples);
  sub->add_option("FILE", o.files,
                  "tensor files (.safetensors and index, .gguf, .npy, .npz, .pt/.bin and index), a model folder (its "
                  "weights files), or - for standard input")
      ->required();
  sub->add_flag("--json", o.json, "one JSON object (kind \"validate\") on stdout");
  sub->add_flag("--strict", o.strict, "exit 1 on warnings too (legal but unusual files); notes never fail");
  sub->add_option("--limit", o.limits, "raise a resource cap, e.g. hdf5_chunks=64M (errors name the cap they hit)");
  return sub;
}

int run_validate(const ValidateOptions& o) {
  set_limits_from(o.limits);
  std::vector<ValidationReport> reports;
  // `-` is standard input, read whole (up to Limits::stream_bytes), as the inspect mode reads it.
  if (std::count(o.files.begin(), o.files.end(), "-") > 1)
    throw Error(ErrorCode::Usage, "validate: standard input (-) can be given once");
  ValidateScope scope;  // every path of the run: an index leaves its shards' own faults to them
  for (const std::string& arg : o.files)  // throws before any output
    for (const std::string& path : files_of(arg))
      if (path != "-") scope.also_validated.push_back(path);
  for (const std::string& arg : o.files)
    for (const std::string& path : files_of(arg)) {
      const auto start = std::chrono::steady_clock::now();
      reports.push_back(
          path == "-"
              ? validate_file(MappedFile::read_fd(
                    0, "<stdin>", tensor_stream_check({"<stdin>", std::nullopt, false, std::nullopt, true, false})))
              : validate_file(path, scope));
      const ValidationReport& r = reports.back();
      spdlog::info("{}{}: {}, {}; validated in {:.3f} ms", path == arg ? "" : escape_untrusted(arg, false) + ": ",
                   escape_untrusted(r.file, false), r.format, count_of(r.findings.size(), "finding"),
                   std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
  OutBuffer out(stdout);
  write_validation(reports, o.strict, o.json, out);
  return validation_fails(validation_totals(reports), o.strict) ? 1 : 0;
}

}  // namespace tensor_inspect::app
