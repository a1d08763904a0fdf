// validate/validate.cpp — validate_file(): detect the format as the registry does, run
// its checker (validate/<format>.cpp), and open a file that broke no rule with its loader,
// so that "clean" always means "the tool reads it".
#include <filesystem>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "loaders/formats.hpp"
#include "loaders/zip_archive.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"
#include "validate/findings.hpp"

namespace tensor_inspect {

std::string_view severity_name(Severity s) { return s == Severity::Error ? "error" : "warning"; }

namespace validate {
namespace {

std::string detect(const std::shared_ptr<const MappedFile>& file, const std::string& path) {
  const auto head = file->bytes().first(std::min<std::size_t>(file->size(), 64));
  for (const FormatInfo& info : formats())
    if (info.sniff(head)) return std::string(info.name);
  for (const FormatInfo& info : formats())
    for (std::string_view ext : info.extensions)
      if (path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0) return std::string(info.name);
  throw Error(ErrorCode::BadFile, path + ": not a recognised tensor file (validate knows npy, npz, safetensors, "
                                         "safetensors-index, gguf, pytorch)");
}

// torch.save before 1.6: five pickles (magic number, protocol, system info, the object,
// the storage keys) and then the raw storages.
void check_legacy_pytorch(std::span<const std::byte> bytes, Findings& f) {
  std::uint64_t at = 0;
  for (int i = 0; i < 5 && at < bytes.size(); ++i) {
    Findings inner(f.all(), "pickle", "pickle " + std::to_string(i + 1));
    const std::size_t before = f.all().size();
    at += check_pickle(bytes.subspan(at), at, false, inner);
    if (f.all().size() != before && f.errors()) return;
  }
}

void check_index(const std::shared_ptr<const MappedFile>& file, Findings& f) {
  const std::string_view text(reinterpret_cast<const char*>(file->bytes().data()), file->size());
  if (text.size() > 100'000'000) {
    f.error("size", "index", std::nullopt, "the index is " + std::to_string(text.size()) + " bytes, over the limit of 100000000");
    return;
  }
  if (const int depth = json_nesting(text); depth > 16) {
    f.error("depth", "index", std::nullopt, "the index nests " + std::to_string(depth) + " levels deep (an index has 3)");
    return;
  }
  // Duplicate keys: Python's json (transformers) keeps the last mapping silently, the
  // loader refuses the index; a weight_map that names a tensor twice says two things.
  if (const std::optional<JsonFault> bad = json_scan(text, [&](const JsonDuplicate& d) {
        const std::string first = " (first at byte " + std::to_string(d.first) + ")";
        if (d.object.empty())
          f.error("duplicate_key", "key '" + d.key + "'", d.again, "key '" + d.key + "' appears again in the index" + first);
        else if (d.object == "weight_map")
          f.error("duplicate_key", "tensor '" + d.key + "'", d.again,
                  "tensor '" + d.key + "' appears again in weight_map" + first + "; json.load keeps the last shard named");
        else
          f.error("duplicate_key", "'" + d.object + "' key '" + d.key + "'", d.again, "key '" + d.key + "' appears again in '" +
                                                                                        d.object + "'" + first);
      })) {
    f.error("json", "index", bad->offset, "the index is not valid JSON: " + bad->what);
    return;
  }
  nlohmann::json index;
  try {
    index = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {  // json_scan read the same text: never
    f.error("json", "index", 0, "the index is not valid JSON");
    return;
  }
  if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object()) {
    f.error("weight_map", "index", std::nullopt, "the index has no \"weight_map\" object");
    return;
  }
  std::map<std::string, std::set<std::string>> by_shard;
  for (auto it = index["weight_map"].begin(); it != index["weight_map"].end(); ++it) {
    if (!it.value().is_string()) {
      f.error("weight_map", "tensor '" + it.key() + "'", std::nullopt, "the shard name is not a string");
      continue;
    }
    const std::string shard = it.value().get<std::string>();
    if (shard.empty() || shard.front() == '/' || shard.find("..") != std::string::npos)
      f.error("shard_name", "tensor '" + it.key() + "'", std::nullopt, "shard name '" + shard + "' leaves the index's directory");
    else by_shard[shard].insert(it.key());
  }
  // Beside the index as it was opened (a URL with its credentials), never as name() shows it.
  const std::filesystem::path dir = std::filesystem::path(file->location().empty() ? file->name() : file->location()).parent_path();
  for (const auto& [shard, names] : by_shard) {
    const std::string place = "shard '" + shard + "'";
    std::shared_ptr<MappedFile> sf;
    try {
      sf = MappedFile::open((dir / shard).string());
    } catch (const Error& e) {
      const std::string tensors = std::to_string(names.size()) + (names.size() == 1 ? " tensor" : " tensors");
      f.error("missing_shard", place, std::nullopt, "the shard of " + tensors + " cannot be read (" + e.what() + ")");
      continue;
    }
    Findings inner(f.all(), "safetensors", place);
    const std::size_t before = f.errors();
    inner.checked([&] { check_safetensors(sf->bytes(), inner); });
    if (f.errors() != before) continue;
    try {
      const LoadedFile part = open_safetensors(sf);
      std::set<std::string> held;
      for (const TensorEntry& e : part.tensors) {
        held.insert(e.name);
        if (!names.count(e.name))
          f.error("unmapped", place + ": tensor '" + e.name + "'", std::nullopt, "the shard holds a tensor the index does not map to it");
      }
      for (const std::string& n : names)
        if (!held.count(n)) f.error("unmapped", "tensor '" + n + "'", std::nullopt, "the index maps it to " + place + ", which does not hold it");
    } catch (const Error& e) {
      f.error("loader", place, std::nullopt, e.what());
    }
  }
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

ValidationReport validate_file(const std::string& path) {
  // A pipe or device named by its path is read whole, unless its first bytes are no format's.
  return validate_file(MappedFile::open(path, tensor_stream_check({path, std::nullopt, false, std::nullopt, true, false})));
}

ValidationReport validate_file(const std::shared_ptr<const MappedFile>& file) {
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
  // bytes, is read by the zip rules and then by the loader, which refuses it. Routed by
  // "not a zip" instead, such a file met only the legacy pickle rules (no bytes break
  // none, "N." is a whole pickle) and the loader was skipped: "clean", though it fails
  // to open.
  const auto head = bytes.first(std::min<std::size_t>(bytes.size(), 64));
  const bool legacy = report.format == "pytorch" && !sniff_zip(head) && sniff_pytorch(head);
  f.checked([&] {
    if (report.format == "safetensors") validate::check_safetensors(bytes, f);
    else if (report.format == "gguf") validate::check_gguf(bytes, f);
    else if (report.format == "npy") validate::check_npy(bytes, 0, f);
    else if (report.format == "safetensors-index") validate::check_index(file, f);
    else if (report.format == "npz" || (report.format == "pytorch" && !legacy)) validate::check_zip(file, report.format, f);
    else if (report.format == "pytorch") validate::check_legacy_pytorch(bytes, f);
  });
  if (f.errors() == 0 && !legacy) {
    // The loader's own checks (storages, dtypes, quantized sizes). What it refuses as
    // unsupported keeps the format's rules but cannot be opened: a warning, so that a
    // file called clean always opens. The checkers name most such cases with their field
    // and byte ("<format>.unsupported"); the loader's message covers the rest.
    bool flagged = false;
    for (const Finding& x : report.findings)
      flagged = flagged || (x.rule.size() >= 12 && x.rule.compare(x.rule.size() - 12, 12, ".unsupported") == 0);
    try {
      const std::optional<LoadedFile> loaded = open_detected(file, report.format);
      if (loaded)
        for (const TensorEntry& e : loaded->tensors) {
          try {
            (void)e.load();
          } catch (const Error& err) {
            const std::string what = validate::without_file(err.what(), path);
            if (err.code() != ErrorCode::Unsupported) f.error("loader", "tensor '" + e.name + "'", e.offset, what);
            else if (!flagged) f.warning("unsupported", "tensor '" + e.name + "'", e.offset, what);
          }
        }
    } catch (const Error& err) {
      const std::string what = validate::without_file(err.what(), path);
      if (err.code() != ErrorCode::Unsupported) f.error("loader", "", std::nullopt, what);
      else if (!flagged) f.warning("unsupported", "", std::nullopt, what);
    }
  }
  return report;
}

}  // namespace tensor_inspect
