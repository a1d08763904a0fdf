// app/validate.cpp — the `validate` subcommand: runs tensor_inspect::validate_file on each
// file and prints every finding (text: one line each; --json: one object for CI).
#include "validate.hpp"
#include "counts.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/render.hpp"
#include "tensor_inspect/validate.hpp"

namespace tensor_inspect::app {
namespace {

constexpr const char* kValidateExamples = R"(Examples:
  tensor-inspect validate model.safetensors                every rule of the format, every finding
  tensor-inspect validate model.gguf weights.npz model.pt  several files, each by its own format
  curl -s https://host/x.npy | tensor-inspect validate -    standard input (read whole, up to 1 GiB)
  tensor-inspect validate model.pt --json | jq '.files[].findings[] | select(.severity == "error")'

A finding is one line: FILE: SEVERITY: PLACE (byte N): MESSAGE [RULE]. Errors break the
format's rules; warnings are legal but risky (misaligned data, trailing bytes, pickle
globals outside PyTorch's weights_only allow-list, which torch.load would run) or
beyond this tool (a dtype or ggml type it cannot open: rule <format>.unsupported).
Exit status: 0 every file clean; 1 findings; 2 a file cannot be read or is no tensor file
(then nothing is printed on stdout).)";

std::size_t count(const ValidationReport& r, Severity s) {
  std::size_t n = 0;
  for (const Finding& f : r.findings) n += f.severity == s;
  return n;
}

// A model folder names the files it opens as a checkpoint (loaders/checkpoint_dir.cpp):
// its *.safetensors.index.json and *.safetensors files, in name order; a file names itself.
std::vector<std::string> files_of(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (path == "-" || !fs::is_directory(path, ec)) return {path};
  std::vector<std::string> found;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (it->is_regular_file(ec) && (name.ends_with(".safetensors.index.json") || name.ends_with(".safetensors")))
      found.push_back(it->path().string());
  }
  if (ec) throw Error(ErrorCode::Io, path + ": cannot read the folder (" + ec.message() + ")");
  if (found.empty())
    throw Error(ErrorCode::BadFile, path + ": a folder is validated through its *.safetensors and *.safetensors.index.json "
                                           "files (found neither)");
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

CLI::App* setup_validate(CLI::App& app, ValidateOptions& o) {
  CLI::App* sub = app.add_subcommand("validate", "check files against every rule of their format (exit 0 clean, 1 findings, 2 unreadable)");
  sub->footer(kValidateExamples);
  sub->add_option("FILE", o.files, "tensor files (.safetensors and index, .gguf, .npy, .npz, .pt), a model folder (its safetensors files), or - for standard input")->required();
  sub->add_flag("--json", o.json, "one JSON object (kind \"validate\") on stdout");
  return sub;
}

int run_validate(const ValidateOptions& o) {
  std::vector<ValidationReport> reports;
  // `-` is standard input, read whole (up to Limits::stream_bytes), as the inspect mode reads it.
  if (std::count(o.files.begin(), o.files.end(), "-") > 1) throw Error(ErrorCode::Usage, "validate: standard input (-) can be given once");
  for (const std::string& arg : o.files)  // throws before any output
    for (const std::string& path : files_of(arg))
      reports.push_back(path == "-" ? validate_file(MappedFile::read_fd(0, "<stdin>", tensor_stream_check({"<stdin>", std::nullopt, false, std::nullopt, true, false})))
                                    : validate_file(path));
  std::size_t errors = 0, warnings = 0, clean = 0;
  for (const auto& r : reports) {
    errors += count(r, Severity::Error);
    warnings += count(r, Severity::Warning);
    clean += r.findings.empty();
  }
  OutBuffer out(stdout);
  if (o.json) {
    nlohmann::ordered_json j;
    j["schema_version"] = 1;
    j["kind"] = "validate";
    j["files"] = nlohmann::ordered_json::array();
    for (const auto& r : reports) {
      nlohmann::ordered_json fj;
      fj["file"] = r.file;
      fj["format"] = r.format;
      fj["clean"] = r.findings.empty();
      fj["errors"] = count(r, Severity::Error);
      fj["warnings"] = count(r, Severity::Warning);
      fj["findings"] = nlohmann::ordered_json::array();
      for (const Finding& f : r.findings) {
        nlohmann::ordered_json x;
        x["severity"] = severity_name(f.severity);
        x["rule"] = f.rule;
        x["place"] = f.place;
        x["offset"] = f.offset ? nlohmann::ordered_json(*f.offset) : nlohmann::ordered_json(nullptr);
        x["message"] = f.message;
        fj["findings"].push_back(std::move(x));
      }
      j["files"].push_back(std::move(fj));
    }
    j["summary"] = {{"files", reports.size()}, {"clean", clean}, {"errors", errors}, {"warnings", warnings}};
    out.write(j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
    out.put('\n');
  } else {
    for (const auto& r : reports) {
      const std::string file = escape_untrusted(r.file, false);
      if (r.findings.empty()) out.write(file + ": " + r.format + ": clean\n");
      for (const Finding& f : r.findings) {
        std::string line = file + ": " + std::string(severity_name(f.severity)) + ": ";
        std::string place = escape_untrusted(f.place, true);
        if (f.offset) place += (place.empty() ? "byte " : " (byte ") + std::to_string(*f.offset) + (place.empty() ? "" : ")");
        if (!place.empty()) line += place + ": ";
        line += escape_untrusted(f.message, true) + " [" + f.rule + "]\n";
        out.write(line);
      }
    }
    out.write(count_of(reports.size(), "file") + ": " + std::to_string(clean) + " clean, " + count_of(errors, "error") + ", " +
              count_of(warnings, "warning") + "\n");
  }
  return errors + warnings == 0 ? 0 : 1;
}

}  // namespace tensor_inspect::app
