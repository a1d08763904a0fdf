// schemes/apply.cpp — apply_schemes: choose the schemes (config.json, else every row by the
// parts' names and dtypes), build each group's logical tensor, and list it in the place of
// its first part.
//
// config.json (transformers' save_pretrained) beside a model folder or an index holds
// `quantization_config` {"quant_method": ...}; MLX writes `quantization` {"group_size",
// "bits"} instead. With a config, each row it selects must find all its parts: a stored
// tensor that looks like a row's main part without the key part is an error naming both.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>

#include "schemes/scheme.hpp"
#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/schemes.hpp"

namespace tensor_inspect {

const std::vector<SchemeRow>& scheme_table() {
  static const std::vector<SchemeRow> rows = {scheme_fp8_block(), scheme_nvfp4(),         scheme_fp8_scale(),
                                              scheme_mxfp4(),     scheme_gptq(),          scheme_awq(),
                                              scheme_mlx(),       scheme_pack_quantized(), scheme_bnb()};
  return rows;
}

std::optional<std::filesystem::path> scheme_config_folder(const LoadedFile& f) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(f.path, ec)) return fs::path(f.path);  // a model folder, sharded (an index) or not
  if (f.format == "safetensors-index" && f.file && !f.path.empty() && fs::is_regular_file(f.path, ec))
    return fs::path(f.path).parent_path();
  return std::nullopt;
}

SchemeConfig read_scheme_config(const std::filesystem::path& folder) {
  namespace fs = std::filesystem;
  SchemeConfig out;
  const fs::path path = folder / "config.json";
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return out;
  out.name = path.string();
  if (fs::file_size(path, ec) > kMaxConfigJsonBytes)
    throw Error(ErrorCode::BadFile, out.name + ": over " + std::to_string(kMaxConfigJsonBytes) + " bytes");
  note_input_path(out.name);  // no output may replace it (buffer.hpp)
  std::ifstream stream(path, std::ios::binary);
  std::stringstream text;
  text << stream.rdbuf();
  if (!stream) throw Error(ErrorCode::Io, out.name + ": cannot be read");
  // A config.json that is not JSON says nothing about quantization: the folder is read as
  // it was before schemes (parts detected by name), with a warning (validate: an error).
  nlohmann::json config = nlohmann::json::parse(text.str(), nullptr, false);
  if (config.is_discarded()) {
    out.unreadable = out.name + ": not JSON; quantization schemes are detected from the tensors' names";
    return out;
  }
  SchemeConfig read = scheme_config_of(config, out.name);
  read.name = out.name;
  return read;
}

void apply_schemes(LoadedFile& f) {
  if (f.format != "safetensors" && f.format != "safetensors-index") return;
  SchemeConfig config;
  if (const auto folder = scheme_config_folder(f)) config = read_scheme_config(*folder);
  if (config.unreadable) f.warnings.push_back(*config.unreadable);
  apply_schemes_with(f, std::move(config));
}

SchemeConfig scheme_config_of(const nlohmann::json& config, const std::string& config_name) {
  if (!config.is_object()) throw Error(ErrorCode::BadFile, config_name + ": not a JSON object");
  SchemeConfig out;
  out.name = config_name;
  // transformers writes the model's dtype as torch_dtype (since 4.56 as dtype); a name it
  // does not spell as a float dtype ("auto", a number) says nothing.
  for (const char* key : {"torch_dtype", "dtype"})
    if (config.contains(key) && config[key].is_string()) {
      const std::string d = config[key].get<std::string>();
      if (d == "bfloat16" || d == "float16" || d == "float32") out.model_dtype = d;
      break;
    }
  for (const char* key : {"quantization_config", "quantization"}) {
    if (!config.contains(key)) continue;
    const nlohmann::json& q = config[key];
    if (!q.is_object())
      throw Error(ErrorCode::BadFile, config_name + ": " + key + " is " + q.type_name() + ", not an object");
    nlohmann::json quantization = q;
    // MLX's `quantization` names no method: it is MLX's affine scheme (mlx-lm writes the same
    // object as `quantization_config` too).
    const bool mlx = std::string(key) == "quantization" || config.contains("quantization");
    if (!quantization.contains("quant_method") && mlx) quantization["quant_method"] = "mlx";
    out.quantization = std::move(quantization);
    out.key = key;
    break;
  }
  return out;
}

std::optional<nlohmann::json> quantization_config_of(const nlohmann::json& config, const std::string& config_name) {
  return scheme_config_of(config, config_name).quantization;
}

void apply_schemes_with(LoadedFile& f, std::optional<nlohmann::json> config, const std::string& config_name) {
  SchemeConfig c;
  c.quantization = std::move(config);
  c.name = config_name;
  apply_schemes_with(f, std::move(c));
}

void apply_schemes_with(LoadedFile& f, SchemeConfig config, const SchemeFaultSink& sink) {
  SchemeInput in;
  in.file = f.path;
  in.config = std::move(config.quantization);
  in.config_name = config.name;
  in.config_key = config.key;
  in.model_dtype = std::move(config.model_dtype);
  for (const TensorEntry& e : f.tensors) in.by_name.emplace(e.name, &e);
  // With a sink (validate), each fault once: a config key every group reads is broken once.
  std::set<std::string> reported;
  const auto report = [&](const Error& err) {
    if (!sink) throw;
    if (!reported.insert(err.what()).second) return;
    if (const auto* se = dynamic_cast<const SchemeError*>(&err)) sink(*se);
    else sink(SchemeError(err.what(), "", ""));
  };

  std::vector<const SchemeRow*> rows;
  if (in.config) {
    const nlohmann::json& q = *in.config;
    try {
      if (!q.contains("quant_method")) in.fail_config("quant_method", "missing");
      if (!q["quant_method"].is_string())
        in.fail_config("quant_method", "is " + std::string(q["quant_method"].type_name()) + ", not a string");
    } catch (const Error& err) {
      report(err);
      return;  // no scheme is named: every tensor stays as stored
    }
    const std::string method = q["quant_method"].get<std::string>();
    for (const SchemeRow& row : scheme_table())
      if (std::find(row.quant_methods.begin(), row.quant_methods.end(), method) != row.quant_methods.end() &&
          (!row.selects || row.selects(q)))
        rows.push_back(&row);
    if (rows.empty()) {
      f.warnings.push_back(in.config_name + ": quant_method '" + method +
                           "' is not decoded by this tool: tensors are listed as stored");
      return;
    }
  } else {
    for (const SchemeRow& row : scheme_table()) rows.push_back(&row);
  }

  // Groups by the name of their first part in file order.
  std::vector<LogicalTensor> groups;
  std::set<std::string> claimed;
  std::set<std::string> failed_keys;  // key parts whose group is broken (reported): not missing
  std::unordered_map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < f.tensors.size(); ++i) position.emplace(f.tensors[i].name, i);
  for (const SchemeRow* row : rows) {
    for (const TensorEntry& e : f.tensors) {
      if (!e.name.ends_with(row->key_suffix) || claimed.count(e.name)) continue;
      // Without a config, a part in an unreadable shard marks nothing: its parts stay listed as stored.
      if (!in.config && e.details().layout_unknown) continue;
      const std::string prefix = e.name.substr(0, e.name.size() - row->key_suffix.size());
      try {
        std::optional<LogicalTensor> lt = row->build(in, prefix);
        if (!lt) continue;
        for (const std::string& p : lt->parts)
          if (claimed.count(p)) in.fail(lt->entry.name, p, row->name, "is also a part of another tensor");
        claimed.insert(lt->parts.begin(), lt->parts.end());
        groups.push_back(std::move(*lt));
      } catch (const Error& err) {
        report(err);  // with a sink: the group's parts stay listed as stored
        failed_keys.insert(e.name);
      }
    }
  }
  if (in.config)
    for (const SchemeRow* row : rows)
      if (row->orphan)
        for (const TensorEntry& e : f.tensors)
          if (!claimed.count(e.name))
            if (auto missing = row->orphan(e); missing && !failed_keys.count(*missing)) try {
                in.fail(e.name, *missing, row->name, "missing (config.json names the scheme)");
              } catch (const Error& err) {
                report(err);
              }
  if (groups.empty()) return;

  std::unordered_map<std::string, std::size_t> group_at;  // first part's name -> group
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& parts = groups[g].parts;
    const auto first = std::min_element(parts.begin(), parts.end(),
                                        [&](const auto& a, const auto& b) { return position.at(a) < position.at(b); });
    group_at.emplace(*first, g);
  }
  std::vector<TensorEntry> out;
  out.reserve(f.tensors.size());
  for (TensorEntry& e : f.tensors) {
    if (auto it = group_at.find(e.name); it != group_at.end())
      out.push_back(std::move(groups[it->second].entry));
    else if (!claimed.count(e.name))
      out.push_back(std::move(e));
  }
  f.tensors = std::move(out);
}

}  // namespace tensor_inspect
