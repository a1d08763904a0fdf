// validate/schemes.cpp — rule "<format>.scheme": a safetensors file or index whose
// quantization scheme's parts are missing or disagree (dtype, shape) with each other or with
// config.json, and "<format>.scheme_config": a config.json that is not JSON or whose
// quantization config is malformed. The facts are the scheme layer's own (schemes/): its
// apply_schemes_with runs with a sink that collects each broken group instead of throwing
// the first, so validate and the loader's exit-2 message say the same thing.
//
// config.json is the one beside the file (a model folder's), as opening the folder reads
// it; a shard of a folder that holds an index is left to the index, whose pass sees every
// part of a group whichever shard holds it.
#include <filesystem>
#include <unordered_map>

#include "schemes/scheme.hpp"
#include "validate/findings.hpp"

namespace tensor_inspect::validate {

namespace {

/// Whether `folder` holds a *.safetensors.index.json (its shards are checked through it).
bool folder_has_index(const std::filesystem::path& folder) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().ends_with(".safetensors.index.json")) return true;
  return false;
}

/// `what` without the "PREFIX: " it opens with, when it does.
std::string scheme_without_prefix(const std::string& what, const std::string& prefix) {
  return what.starts_with(prefix + ": ") ? what.substr(prefix.size() + 2) : what;
}

}  // namespace

void check_schemes(LoadedFile loaded, Findings& f) {
  if (loaded.format != "safetensors" && loaded.format != "safetensors-index") return;
  namespace fs = std::filesystem;
  const fs::path path(loaded.path);
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (loaded.format == "safetensors" && folder_has_index(folder)) return;

  SchemeConfig config;
  try {
    config = read_scheme_config(folder);
  } catch (const Error& err) {
    f.error("scheme_config", "config.json", std::nullopt, err.what());
    return;
  }
  if (config.unreadable) f.error("scheme_config", "config.json", std::nullopt, *config.unreadable);

  std::unordered_map<std::string, std::uint64_t> offsets;  // where each stored part lies
  for (const TensorEntry& e : loaded.tensors) offsets.emplace(e.name, e.offset);
  const std::size_t warnings_before = loaded.warnings.size();
  const std::string config_name = config.name;
  apply_schemes_with(loaded, std::move(config), [&](const SchemeError& err) {
    if (err.tensor.empty()) {  // a config key: "CONFIG: KEY: WHAT"
      f.error("scheme_config", "config.json", std::nullopt, scheme_without_prefix(err.what(), config_name));
      return;
    }
    const std::string place = "tensor '" + err.tensor + "'";
    const std::string message = scheme_without_prefix(scheme_without_prefix(err.what(), loaded.path), place);
    const auto at = offsets.find(err.part);
    const std::optional<std::uint64_t> offset = at == offsets.end() ? std::nullopt : std::optional(at->second);
    if (err.undecided) f.note("unsupported", place, offset, message);
    else f.error("scheme", place, offset, message);
  });
  // What the layer says it leaves as stored (a quant_method it does not decode).
  for (std::size_t k = warnings_before; k < loaded.warnings.size(); ++k)
    f.note("unsupported", "config.json", std::nullopt, scheme_without_prefix(loaded.warnings[k], config_name));
}

}  // namespace tensor_inspect::validate
