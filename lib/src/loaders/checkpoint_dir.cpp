// loaders/checkpoint_dir.cpp — a Hugging Face model folder opened as one checkpoint.
//
// Layout (transformers' save_pretrained):
//   1. either one `*.safetensors.index.json` (sharded): opened by safetensors_index.cpp,
//      which reads the shards it names from the same folder;
//   2. or one or more `*.safetensors` files (unsharded, or adapters): each opened by
//      safetensors.cpp, listed file by file (names sorted), each in data order.
// Other files (config.json, tokenizer files, *.bin) are ignored. Two index files, or a
// tensor name held by two files, are ambiguous and refused.
#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "loaders/formats.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

LoadedFile open_checkpoint_dir(const std::string& path) {
  namespace fs = std::filesystem;
  std::vector<std::string> indexes, shards;
  std::error_code ec;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!it->is_regular_file(ec)) continue;
    if (name.ends_with(".safetensors.index.json")) indexes.push_back(name);
    else if (name.ends_with(".safetensors")) shards.push_back(name);
  }
  if (ec) throw Error(ErrorCode::Io, path + ": cannot read the folder (" + ec.message() + ")");
  std::sort(indexes.begin(), indexes.end());
  std::sort(shards.begin(), shards.end());
  if (indexes.size() > 1)
    throw Error(ErrorCode::BadFile, path + ": folder holds " + std::to_string(indexes.size()) + " safetensors indexes ('" +
                                        indexes[0] + "', '" + indexes[1] + "'): name the one to open");
  LoadedFile out;
  if (indexes.size() == 1) {
    out = open_safetensors_index(MappedFile::open((fs::path(path) / indexes[0]).string()));
  } else if (shards.empty()) {
    throw Error(ErrorCode::BadFile, path + ": a folder opens as a checkpoint only when it holds *.safetensors files or a "
                                           "*.safetensors.index.json (found neither)");
  } else {
    std::set<std::string> seen;
    for (const std::string& shard : shards) {
      LoadedFile part = open_safetensors(MappedFile::open((fs::path(path) / shard).string()));
      for (TensorEntry& e : part.tensors) {
        if (!seen.insert(e.name).second)
          throw Error(ErrorCode::BadFile, path + ": tensor '" + e.name + "' is held by two files (the second: '" + shard + "')");
        if (shards.size() > 1) e.note = "in file " + shard;
        out.tensors.push_back(std::move(e));
      }
      for (MetaEntry& m : part.metadata) out.metadata.push_back(std::move(m));
      if (!out.file) out.file = part.file;
    }
    out.format = "safetensors";
  }
  out.path = path;
  return out;
}

}  // namespace tensor_inspect
