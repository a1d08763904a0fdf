// hash/hash_inputs.cpp — hash's inputs as one list of named tensors, and a manifest read from
// its file (hash_check.hpp).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/hash_check.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/remote.hpp"

namespace tensor_inspect {

HashInputs open_hash_inputs(const std::vector<std::string>& inputs) {
  if (std::count(inputs.begin(), inputs.end(), "-") > 1)
    throw Error(ErrorCode::Usage, "hash: standard input (-) can be given once");
  HashInputs in;
  std::map<std::string, std::string> seen;  // tensor name -> the input holding it
  for (const std::string& arg : inputs) {
    LoadedFile f = open_file(arg);
    const std::string label = arg == "-" ? "<stdin>" : input_name(arg);
    for (const TensorEntry& e : f.tensors) {
      const std::string name = e.name.empty() ? label : e.name;
      const auto [it, fresh] = seen.emplace(name, label);
      if (!fresh)
        throw Error(ErrorCode::Usage, "hash: tensor '" + name + "' is in " + it->second + " and in " + label +
                                          ": a tensor name can be given once among the inputs");
      if (const std::optional<std::string> why = unhashable_reason(e))
        throw Error(ErrorCode::Unsupported,
                    label + ": tensor '" + name + "' (" + e.stored_type + ") cannot be hashed: " + *why,
                    ErrorPlace{label, name, std::nullopt, ""});
      in.entries.push_back(e);
      in.names.push_back(name);
    }
    in.labels.push_back(label);
    in.files.push_back(std::move(f));
  }
  return in;
}

Manifest read_manifest(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (!ec && size > limits().manifest_bytes)
    throw limit_error("manifest_bytes", path + ": manifest of " + std::to_string(size) + " bytes is larger than " +
                                            std::to_string(limits().manifest_bytes) + limit_hint("manifest_bytes"),
                      path);
  std::ifstream f(path, std::ios::binary);
  if (!f || std::filesystem::is_directory(path, ec)) throw Error(ErrorCode::Io, path + ": cannot read the manifest");
  std::ostringstream text;
  text << f.rdbuf();
  if (f.bad()) throw Error(ErrorCode::Io, path + ": cannot read the manifest");
  return parse_manifest(text.str(), path);
}

}  // namespace tensor_inspect
