// loaders/checkpoint_dir.cpp — a Hugging Face model folder opened as one checkpoint.
//
// Layout (transformers' save_pretrained), in the order transformers' from_pretrained
// prefers them (modeling_utils.py: SAFE_WEIGHTS_NAME and its index before WEIGHTS_NAME,
// pytorch_model.bin, and WEIGHTS_INDEX_NAME, pytorch_model.bin.index.json):
//   1. one `*.safetensors.index.json` (sharded): opened by safetensors_index.cpp, which
//      reads the shards it names from the same folder;
//   2. or one or more `*.safetensors` files (unsharded, or adapters), listed file by file
//      (names sorted), each in data order;
//   3. or one `*.bin.index.json` (sharded torch.save files): the same index reader, which
//      opens each shard as what its first bytes say (index_shard.cpp);
//   4. or the folder's torch.save `.bin` files (pytorch_model.bin, adapter_model.bin):
//      those whose first bytes are PyTorch's (zip or legacy), and any pytorch_model*.bin
//      (so that a damaged one is refused, not skipped), file by file as 2.
// A folder holding `.metadata` is a torch.distributed.checkpoint (loaders/dcp.cpp), whatever
// else it holds: its .metadata is opened, which names the .distcp files beside it.
// Other files (config.json, tokenizer files, training_args.bin: a pickle of no tensor
// under a name of no weights) are ignored; a folder holding both safetensors and .bin
// weights reads the safetensors, and says so at -v. Two index files of one kind, or a
// tensor name held by two files, are ambiguous and refused.
// A remote folder (loaders/formats.hpp: is_remote_folder): `http(s)://HOST/PATH/` (a URL
// ending in '/') and `hf://ORG/REPO[@REV]` (no file). A server lists no folder, so the files
// it is opened by are asked for by name, in the order transformers' from_pretrained tries
// them (modeling_utils.py: SAFE_WEIGHTS_INDEX_NAME, SAFE_WEIGHTS_NAME, WEIGHTS_INDEX_NAME,
// WEIGHTS_NAME), the same preference as above: the first that exists opens, through its
// own URL (an index's shards relative to it); an answer other than 404 ends the search with
// its error. None: one line naming what was tried.
#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "loaders/formats.hpp"
#include "log/log.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/remote.hpp"
#include "tensor_inspect/validate.hpp"

namespace tensor_inspect {

namespace {

/// A .bin of the folder that holds torch.save weights: named so (pytorch_model*.bin), or
/// starting as a torch.save file does.
bool checkpoint_bin_is_weights(const std::filesystem::path& path, const std::string& name) {
  if (name.starts_with("pytorch_model")) return true;
  try {
    const std::shared_ptr<const MappedFile> file = MappedFile::open(path.string());
    const std::size_t n = std::min<std::size_t>(file->size(), 64);
    return sniff_pytorch(file->bytes().first(n)) && name != "training_args.bin";
  } catch (const Error&) {
    return false;  // unreadable and not named as weights: not the checkpoint's
  }
}

/// The one index of a kind, or "" when there is none; two are ambiguous.
std::string checkpoint_one_index(const std::string& path, const std::vector<std::string>& indexes, const char* kind) {
  if (indexes.size() > 1)
    throw Error(ErrorCode::BadFile, path + ": folder holds " + std::to_string(indexes.size()) + " " + kind +
                                        " indexes ('" + indexes[0] + "', '" + indexes[1] + "'): name the one to open");
  return indexes.empty() ? std::string() : indexes[0];
}

/// Unsharded files opened one by one and listed as one checkpoint, file by file.
LoadedFile checkpoint_files(const std::string& path, const std::vector<std::string>& files, const char* format,
                            const std::function<LoadedFile(std::shared_ptr<const MappedFile>)>& open_one) {
  LoadedFile out;
  std::set<std::string> seen;
  for (const std::string& name : files) {
    LoadedFile part = open_one(MappedFile::open((std::filesystem::path(path) / name).string()));
    for (TensorEntry& e : part.tensors) {
      if (!seen.insert(e.name).second)
        throw Error(ErrorCode::BadFile,
                    path + ": tensor '" + e.name + "' is held by two files (the second: '" + name + "')");
      if (files.size() > 1) e.note = e.note.empty() ? "in file " + name : "in file " + name + "; " + e.note;
      out.tensors.push_back(std::move(e));
    }
    for (MetaEntry& m : part.metadata) out.metadata.push_back(std::move(m));
    for (std::string& w : part.warnings) out.warnings.push_back(std::move(w));
    if (!out.file) out.file = part.file;
  }
  out.format = format;
  return out;
}

}  // namespace

namespace {

/// What a folder holds, by kind, names sorted.
struct CheckpointDirScan {
  std::vector<std::string> indexes, shards, bin_indexes, bins;
};

CheckpointDirScan checkpoint_dir_scan(const std::string& path) {
  namespace fs = std::filesystem;
  CheckpointDirScan d;
  std::error_code ec;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!it->is_regular_file(ec)) continue;
    if (name.ends_with(".safetensors.index.json"))
      d.indexes.push_back(name);
    else if (name.ends_with(".safetensors"))
      d.shards.push_back(name);
    else if (name.ends_with(".bin.index.json"))
      d.bin_indexes.push_back(name);
    else if (name.ends_with(".bin") && checkpoint_bin_is_weights(it->path(), name))
      d.bins.push_back(name);
  }
  if (ec) throw Error(ErrorCode::Io, path + ": cannot read the folder (" + ec.message() + ")");
  for (auto* v : {&d.indexes, &d.shards, &d.bin_indexes, &d.bins}) std::sort(v->begin(), v->end());
  return d;
}

/// The folder's torch.distributed.checkpoint `.metadata`, or "" when it has none.
std::string checkpoint_dcp_metadata(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path metadata = std::filesystem::path(path) / ".metadata";
  return std::filesystem::is_regular_file(metadata, ec) ? metadata.string() : std::string();
}

[[noreturn]] void checkpoint_dir_empty(const std::string& path) {
  throw Error(ErrorCode::BadFile, path +
                                      ": a folder opens as a checkpoint only when it holds *.safetensors files, a "
                                      "*.safetensors.index.json, a *.bin.index.json, PyTorch *.bin weights "
                                      "or a torch.distributed.checkpoint .metadata (found none)");
}

}  // namespace

std::vector<std::string> checkpoint_dir_files(const std::string& path) {
  if (const std::string dcp = checkpoint_dcp_metadata(path); !dcp.empty()) return {dcp};
  const CheckpointDirScan d = checkpoint_dir_scan(path);
  std::vector<std::string> names;
  if (!d.indexes.empty() || !d.shards.empty()) {
    names = d.indexes;
    names.insert(names.end(), d.shards.begin(), d.shards.end());
  } else {
    names = d.bin_indexes;
    names.insert(names.end(), d.bins.begin(), d.bins.end());
  }
  if (names.empty()) checkpoint_dir_empty(path);
  std::sort(names.begin(), names.end());
  std::vector<std::string> out;
  for (const std::string& n : names) out.push_back((std::filesystem::path(path) / n).string());
  return out;
}

LoadedFile open_checkpoint_dir(const std::string& path) {
  namespace fs = std::filesystem;
  if (const std::string dcp = checkpoint_dcp_metadata(path); !dcp.empty()) {
    LoadedFile out = open_dcp(MappedFile::open(dcp));
    out.path = path;
    return out;
  }
  const CheckpointDirScan d = checkpoint_dir_scan(path);
  const std::string index = checkpoint_one_index(path, d.indexes, "safetensors");
  const bool safetensors = !index.empty() || !d.shards.empty();
  LoadedFile out;
  if (safetensors && (!d.bin_indexes.empty() || !d.bins.empty())) {
    const std::string& other = d.bin_indexes.empty() ? d.bins[0] : d.bin_indexes[0];
    const std::size_t more = d.bin_indexes.size() + d.bins.size() - 1;
    lib_log().info(
        "{}: the folder holds safetensors and PyTorch .bin weights ('{}'{}): reading the safetensors, as "
        "transformers' from_pretrained does",
        path, other, more ? " and " + std::to_string(more) + " more" : std::string());
  }
  if (!index.empty()) {
    out = open_safetensors_index(MappedFile::open((fs::path(path) / index).string()));
  } else if (!d.shards.empty()) {
    out = checkpoint_files(path, d.shards, "safetensors", open_safetensors);
  } else if (const std::string bin_index = checkpoint_one_index(path, d.bin_indexes, ".bin"); !bin_index.empty()) {
    out = open_safetensors_index(MappedFile::open((fs::path(path) / bin_index).string()));
  } else if (!d.bins.empty()) {
    out = checkpoint_files(path, d.bins, "pytorch", open_pytorch);
  } else {
    checkpoint_dir_empty(path);
  }
  out.path = path;
  return out;
}

namespace {

constexpr const char* kRemoteFolderFiles[] = {"model.safetensors.index.json", "model.safetensors",
                                              "pytorch_model.bin.index.json", "pytorch_model.bin"};

/// `input` without its query string (a signed URL's credentials live there).
std::string_view remote_folder_path(std::string_view input) { return input.substr(0, input.find_first_of("?#")); }

}  // namespace

bool is_remote_folder(std::string_view input) {
  if (!is_url(input)) return false;
  const std::string_view path = remote_folder_path(input);
  if (path.size() > 5 && (path[0] == 'h' || path[0] == 'H') && (path[1] == 'f' || path[1] == 'F') && path[2] == ':') {
    // hf://ORG/REPO[@REV][/]: no third part.
    std::string_view rest = path.substr(5);
    if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
    const std::size_t slash = rest.find('/');
    return slash != std::string_view::npos && slash > 0 && slash + 1 < rest.size() &&
           rest.find('/', slash + 1) == std::string_view::npos;
  }
  const std::size_t host = path.find("://");
  return host != std::string_view::npos && path.find('/', host + 3) != std::string_view::npos && path.back() == '/';
}

LoadedFile open_remote_folder(const std::string& input, bool listing) {
  const std::string_view path = remote_folder_path(input);
  const std::string query = input.substr(path.size());
  const std::string base = std::string(path) + (path.back() == '/' ? "" : "/");
  std::string tried;
  for (const char* name : kRemoteFolderFiles) {
    const std::string url = base + name + query;
    try {
      LoadedFile out = listing ? open_listing(url) : open_file(url);
      lib_log().info("{}: opened as a folder through '{}'", display_url(input), name);
      out.path = input;
      return out;
    } catch (const Error& e) {
      // NOTE: the HTTP status is in the message only; 404 is "not there", anything else
      // (401 for a gated repo, a refused connection) is the answer to report.
      if (std::string_view(e.what()).find("HTTP status 404") == std::string_view::npos) throw;
      tried += (tried.empty() ? "" : ", ") + std::string(name);
    }
  }
  throw Error(ErrorCode::Io, display_url(input) + ": no checkpoint in the folder: tried " + tried +
                                 " (each answered 404); name the file to open");
}

}  // namespace tensor_inspect
