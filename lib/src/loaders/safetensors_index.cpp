// loaders/safetensors_index.cpp — sharded safetensors checkpoints, as transformers'
// `save_pretrained(max_shard_size=...)` writes them.
//
// Layout of model.safetensors.index.json:
//   1. a JSON object {"metadata": {...}, "weight_map": {tensor name: shard file name}},
//   2. each shard a safetensors file in the index's directory (loaders/safetensors.cpp).
// The index and the shards must agree exactly: every mapped tensor is in its shard, and
// every shard tensor is mapped to that shard. Shard names are untrusted: they must stay
// inside the index's directory (no absolute paths, no ".." components).
// Tensors are listed shard by shard (shard names sorted), each shard in data order. A
// shard that cannot be read is a warning: its tensors are listed (dtype and shape
// unknown) and refuse to load, naming the index, the tensor and the shard.
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "loaders/formats.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

namespace {

[[noreturn]] void fail(const std::string& file, const std::string& what) {
  throw Error(ErrorCode::BadFile, file + ": " + what);
}

/// Refuses shard names that could reach outside the index's directory.
void check_shard_name(const std::string& index, const std::string& tensor, const std::string& shard) {
  const std::string where = "tensor '" + tensor + "': shard name '" + shard + "'";
  if (shard.empty()) fail(index, "tensor '" + tensor + "': shard name is empty");
  if (shard.front() == '/' || shard.front() == '\\') fail(index, where + " is an absolute path");
  if (shard.find('\0') != std::string::npos || shard.find('\\') != std::string::npos)
    fail(index, where + " holds a NUL or backslash");
  std::size_t start = 0;
  while (start <= shard.size()) {
    const std::size_t slash = std::min(shard.find('/', start), shard.size());
    if (shard.compare(start, slash - start, "..") == 0 && slash - start == 2)
      fail(index, where + " leaves the index's directory");
    start = slash + 1;
  }
}

}  // namespace

bool sniff_safetensors_index(std::span<const std::byte> head) {
  const std::string_view text(reinterpret_cast<const char*>(head.data()), head.size());
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] == '{' &&
         text.find("\"weight_map\"") != std::string_view::npos;
}

LoadedFile open_safetensors_index(std::shared_ptr<const MappedFile> file) {
  const std::string& name = file->name();
  if (file->size() > limits().index_bytes)
    fail(name, "index is " + std::to_string(file->size()) + " bytes, over the limit of " +
                   std::to_string(limits().index_bytes) + limit_hint("index_bytes"));
  file->fetch(0, file->size());
  const std::string_view text(reinterpret_cast<const char*>(file->bytes().data()), file->size());
  const nlohmann::json index = parse_json_header(text, name, 0);
  if (!index.is_object()) fail(name, "index is not a JSON object");
  if (!index.contains("weight_map") || !index["weight_map"].is_object())
    fail(name, "index has no \"weight_map\" object");

  LoadedFile out;
  out.path = name;
  out.format = "safetensors-index";
  out.file = file;
  if (index.contains("metadata")) {
    const auto& meta = index["metadata"];
    if (!meta.is_object() && !meta.is_null()) fail(name, "\"metadata\" is not an object");
    if (meta.is_object())
      for (auto it = meta.begin(); it != meta.end(); ++it)
        out.metadata.push_back(
            MetaEntry{it.key(), it.value().type_name(), nlohmann::ordered_json::parse(it.value().dump())});
  }

  // tensor -> shard, and the shards in sorted order.
  std::map<std::string, std::string> shard_of;
  std::map<std::string, std::vector<std::string>> mapped_to;
  const auto& weight_map = index["weight_map"];
  for (auto it = weight_map.begin(); it != weight_map.end(); ++it) {
    if (!it.value().is_string()) fail(name, "tensor '" + it.key() + "': shard name is not a string");
    const std::string shard = it.value().get<std::string>();
    check_shard_name(name, it.key(), shard);
    shard_of[it.key()] = shard;
    mapped_to[shard].push_back(it.key());
  }

  const std::filesystem::path dir = std::filesystem::path(name).parent_path();
  for (const auto& [shard, names] : mapped_to) {
    const std::string shard_path = (dir / shard).string();
    std::shared_ptr<const MappedFile> shard_file;
    try {
      shard_file = MappedFile::open(shard_path);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::Io) throw;
      // A missing shard: its tensors are listed and marked; loading one names the index,
      // the tensor and the shard. The present shards' tensors still load.
      const std::string why = e.what();
      out.warnings.push_back(name + ": shard '" + shard + "' of " + std::to_string(names.size()) + " tensor" +
                             (names.size() == 1 ? "" : "s") + " cannot be read (" + why + ")");
      for (const std::string& tensor : names) {
        TensorEntry entry;
        entry.name = tensor;
        entry.stored_type = "-";
        entry.note = "in missing shard " + shard;
        entry.loader = [index = name, tensor, shard_name = shard, why]() -> Tensor {
          throw Error(ErrorCode::Io, index + ": tensor '" + tensor + "' is in shard '" + shard_name +
                                         "', which cannot be read (" + why + ")");
        };
        out.tensors.push_back(std::move(entry));
      }
      continue;
    }
    LoadedFile part = open_safetensors(shard_file);
    std::set<std::string> held;
    for (const TensorEntry& e : part.tensors) {
      held.insert(e.name);
      auto it = shard_of.find(e.name);
      if (it == shard_of.end())
        fail(name, "shard '" + shard + "' holds tensor '" + e.name + "', which the index does not list");
      if (it->second != shard)
        fail(name, "shard '" + shard + "' holds tensor '" + e.name + "', which the index maps to '" + it->second + "'");
    }
    for (const std::string& tensor : names) {
      if (!held.count(tensor)) fail(name, "tensor '" + tensor + "' is mapped to shard '" + shard + "', which does not hold it");
    }
    for (TensorEntry& e : part.tensors) {
      e.note = "in shard " + shard;
      out.tensors.push_back(std::move(e));
    }
  }
  return out;
}

}  // namespace tensor_inspect
