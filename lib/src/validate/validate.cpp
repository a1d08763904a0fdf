// validate/validate.cpp — validate_file(): detect the format as the registry does, run
// its checker (validate/<format>.cpp), and open a file that broke no rule with its loader,
// so that "clean" always means "the tool reads it".
#include <filesystem>
#include <set>

#include "loaders/formats.hpp"
#include "loaders/zip_archive.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"
#include "validate/findings.hpp"

namespace tensor_inspect {

std::string_view severity_name(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

namespace validate {
namespace {

std::string detect(const std::shared_ptr<const MappedFile>& file, const std::string& path) {
  const auto head = file->bytes().first(std::min<std::size_t>(file->size(), 64));
  for (const FormatInfo& info : formats())
    if (info.sniff(head)) return std::string(info.name);
  for (const FormatInfo& info : formats())
    for (std::string_view ext : info.extensions)
      if (path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0)
        return std::string(info.name);
  throw Error(ErrorCode::BadFile, path + ": not a recognised tensor file (validate knows npy, npz, safetensors, "
                                         "safetensors-index, gguf, pytorch, onnx, hdf5, keras, dcp)");
}

// A loader's message without the file name it opens with: the finding is printed after
// the name already ("x.npy: error: header: ..."). A member's name stays ("a.npy: ...").
std::string without_file(const std::string& what, const std::string& path) {
  if (what.size() <= path.size() || what.compare(0, path.size(), path) != 0 || what[path.size()] != ':') return what;
  const std::size_t from = path.size() + (what.compare(path.size(), 2, ": ") == 0 ? 2 : 1);
  return what.substr(from);
}

}  // namespace
}  // namespace validate

ValidationReport validate_file(const std::string& path, const ValidateScope& scope) {
  // A pipe or device named by its path is read whole, unless its first bytes are no format's.
  return validate_file(
      MappedFile::open(path, tensor_stream_check({path, std::nullopt, false, std::nullopt, true, false})), scope);
}

ValidationReport validate_file(const std::shared_ptr<const MappedFile>& file, const ValidateScope& scope) {
  const std::string& path = file->name();
  // NOTE: the rules read structures anywhere in a file (libzip, overlap checks), so a
  // remote file is fetched whole before it is validated.
  file->fetch(0, file->size());
  ValidationReport report;
  report.file = path;
  report.format = validate::detect(file, path);
  validate::Findings f(report.findings, report.format);
  const auto bytes = file->bytes();
  // A .pt that is not the legacy format (its pickled magic number first) is a zip archive
  // to torch.load, whatever its first bytes: an empty or truncated one, or a few stray
  // bytes, is read by the zip rules and then by the loader, which refuses it
  // (check_pytorch routes by the legacy magic, not by "not a zip").
  std::set<std::string> left_to_shards;  // an index's tensors in shards this run reports on their own
  f.checked([&] {
    if (report.format == "safetensors") validate::check_safetensors(bytes, f);
    else if (report.format == "gguf") validate::check_gguf(bytes, f);
    else if (report.format == "npy") validate::check_npy(bytes, 0, f);
    else if (report.format == "safetensors-index") left_to_shards = validate::check_index(file, scope, f);
    else if (report.format == "npz") validate::check_zip(file, report.format, f);
    else if (report.format == "pytorch") validate::check_pytorch(file, f);
    else if (report.format == "onnx") validate::check_onnx(bytes, f);
    else if (report.format == "hdf5") validate::check_hdf5(file, 0, file->size(), path, f);
    else if (report.format == "keras") validate::check_keras(file, f);
    else if (report.format == "dcp") validate::check_dcp(file, f);
  });
  if (f.errors() == 0) {
    // The loader's own checks (storages, dtypes, quantized sizes). What it refuses as
    // unsupported keeps the format's rules but cannot be opened: a note (nothing wrong with
    // the file), so that a file with no note always opens. The checkers name most such cases with their field
    // and byte ("<format>.unsupported"); the loader's message covers the rest.
    bool flagged = false;
    for (const Finding& x : report.findings)
      flagged = flagged || (x.rule.size() >= 12 && x.rule.compare(x.rule.size() - 12, 12, ".unsupported") == 0);
    try {
      std::optional<LoadedFile> loaded = open_detected(file, report.format);
      // An index whose shards are all torch.save files is labelled as its listing labels it.
      if (loaded && loaded->format == "pytorch-index") report.format = loaded->format;
      if (loaded)
        for (const TensorEntry& e : loaded->tensors) {
          if (left_to_shards.count(e.name)) continue;  // its shard's own report says why
          try {
            (void)e.load();
          } catch (const Error& err) {
            const std::string what = validate::without_file(err.what(), path);
            if (!cannot_show(err)) f.error("loader", "tensor '" + e.name + "'", e.offset, what);
            else if (!flagged) f.note("unsupported", "tensor '" + e.name + "'", e.offset, what);
          }
        }
      // The quantization schemes the parts make up, with config.json beside the file.
      if (loaded && f.errors() == 0) validate::check_schemes(std::move(*loaded), f);
    } catch (const Error& err) {
      const std::string what = validate::without_file(err.what(), path);
      if (!cannot_show(err)) f.error("loader", "", std::nullopt, what);
      else if (!flagged) f.note("unsupported", "", std::nullopt, what);
    }
  }
  return report;
}

}  // namespace tensor_inspect
