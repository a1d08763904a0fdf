// loaders/index_shard.cpp — one shard of a sharded checkpoint, opened by what it is: a
// model.safetensors.index.json names safetensors files, a pytorch_model.bin.index.json
// (transformers' WEIGHTS_INDEX_NAME, the same JSON) torch.save files. The first bytes
// decide (sniff_pytorch: a zip with data.pkl, or the legacy magic number; sniff_safetensors),
// then the extension, so a damaged shard is refused by its own format's reader.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include "loaders/formats.hpp"

namespace tensor_inspect {

namespace {

bool index_shard_named_pytorch(const std::string& name) {
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* ext : {".bin", ".pt", ".pth", ".ckpt"})
    if (lower.ends_with(ext)) return true;
  return false;
}

}  // namespace

std::string index_shard_name_fault(std::string_view shard) {
  if (shard.empty()) return "is empty";
  if (shard.front() == '/' || shard.front() == '\\') return "is an absolute path";
  if (shard.find('\0') != std::string_view::npos || shard.find('\\') != std::string_view::npos)
    return "holds a NUL or backslash";
  for (std::size_t start = 0; start <= shard.size();) {
    const std::size_t slash = std::min(shard.find('/', start), shard.size());
    if (slash - start == 2 && shard.substr(start, 2) == "..") return "leaves the index's directory";
    start = slash + 1;
  }
  return {};
}

bool index_shard_is_pytorch(const std::string& name, std::span<const std::byte> head) {
  if (sniff_pytorch(head)) return true;
  if (sniff_safetensors(head)) return false;
  return index_shard_named_pytorch(name);
}

LoadedFile open_index_shard(const std::string& path) {
  std::shared_ptr<const MappedFile> file = MappedFile::open(path);
  const std::size_t n = std::min<std::size_t>(file->size(), 64);
  file->fetch(0, n);
  if (index_shard_is_pytorch(path, file->bytes().first(n))) return open_pytorch(std::move(file));
  return open_safetensors(std::move(file));
}

}  // namespace tensor_inspect
