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
// shard that cannot be read (missing, or not a safetensors file) is a warning: its tensors are listed (dtype and shape
// unknown) and refuse to load, naming the index, the tensor and the shard.
// The same JSON indexes torch.save shards (pytorch_model.bin.index.json): each shard is
// opened as what it is (index_shard.cpp), and such an index lists as format "pytorch-index".
#include <algorithm>
#include <deque>
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "loaders/formats.hpp"
#include "loaders/json_cursor.hpp"
#include "loaders/json_document.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

namespace {

[[noreturn]] void fail(const std::string& file, const std::string& what) {
  throw Error(ErrorCode::BadFile, file + ": " + what);
}

/// Refuses shard names that could reach outside the index's directory (index_shard_name_fault).
void check_shard_name(const std::string& index, std::string_view tensor, std::string_view shard) {
  const std::string fault = index_shard_name_fault(shard);
  if (fault.empty()) return;
  const std::string named = shard.empty() ? "shard name" : "shard name '" + std::string(shard) + "'";
  fail(index, "tensor '" + std::string(tensor) + "': " + named + " " + fault);
}

/// What the index says: its weight map in file order (views of the text, or of
/// `decoded` for names with escapes) and where its "metadata" value is.
struct IndexJson {
  std::vector<std::pair<std::string_view, std::string_view>> weight_map;  ///< tensor, shard
  std::deque<std::string> decoded;                                        ///< a deque: views stay valid
  bool has_weight_map = false;
  std::size_t metadata_begin = 0, metadata_end = 0;  ///< the metadata value's text; empty when absent
};

/// The index in one pass over its text (strict JSON through JsonCursor): the weight map
/// is read into views, "metadata" is only delimited (JsonDocument reads it, as
/// small as it is), other fields are skipped. No node is made per tensor.
class IndexReader : JsonCursor {
 public:
  IndexReader(std::string_view text, const std::string& file) : JsonCursor(text, file, 0), name_(file) {}

  IndexJson run() {
    ws();
    if (peek() != '{' || p_ >= t_.size()) {
      skip_value(0);  // a syntax error says so; valid JSON of another kind is not an index
      fail("index is not a JSON object");
    }
    ++p_;
    ws();
    std::unordered_set<std::string_view> keys;
    std::deque<std::string> key_text;
    if (peek() == '}') {
      ++p_;
    } else {
      for (;;) {
        std::string scratch;
        std::string_view key = string(scratch);
        if (key.data() == scratch.data()) key = key_text.emplace_back(std::move(scratch));
        if (!keys.insert(key).second) fail("key '" + std::string(key) + "' appears twice in the index");
        expect(':');
        if (key == "weight_map") {
          weight_map();
        } else if (key == "metadata") {
          out_.metadata_begin = p_;
          skip_value(1);
          out_.metadata_end = p_;
        } else {
          skip_value(1);
        }
        if (end_of_member()) break;
      }
    }
    ws();
    if (p_ < t_.size()) syntax("trailing characters after the closing '}'", p_);
    return std::move(out_);
  }

 private:
  std::string_view keep(std::string_view v, std::string& scratch) {
    if (v.data() >= t_.data() && v.data() <= t_.data() + t_.size()) return v;
    return out_.decoded.emplace_back(std::move(scratch));
  }

  void weight_map() {
    if (peek() != '{') {
      skip_value(1);
      return;  // not an object: "index has no weight_map object"
    }
    out_.has_weight_map = true;
    ++p_;
    ws();
    if (peek() == '}') {
      ++p_;
      return;
    }
    std::unordered_set<std::string_view> seen;
    for (;;) {
      std::string tensor_scratch, shard_scratch;
      const std::string_view tensor = keep(string(tensor_scratch), tensor_scratch);
      if (!seen.insert(tensor).second)
        fail("key '" + std::string(tensor) + "' appears twice in header object 'weight_map'");
      expect(':');
      if (peek() != '"') fail("tensor '" + std::string(tensor) + "': shard name is not a string");
      const std::string_view shard = keep(string(shard_scratch), shard_scratch);
      check_shard_name(name_, tensor, shard);
      out_.weight_map.emplace_back(tensor, shard);
      if (end_of_member()) return;
    }
  }

  const std::string& name_;
  IndexJson out_;
};

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
    throw limit_error("index_bytes",
                      name + ": index is " + std::to_string(file->size()) + " bytes, over the limit of " +
                          std::to_string(limits().index_bytes) + limit_hint("index_bytes"),
                      name);
  file->fetch(0, file->size());
  const std::string_view text(reinterpret_cast<const char*>(file->bytes().data()), file->size());
  IndexJson index = IndexReader(text, name).run();
  if (!index.has_weight_map) fail(name, "index has no \"weight_map\" object");

  LoadedFile out;
  out.path = name;
  out.format = "safetensors-index";
  out.file = file;
  if (index.metadata_end > index.metadata_begin) {
    const std::size_t at = index.metadata_begin;
    const nlohmann::json meta = JsonDocument(text.substr(at, index.metadata_end - at), name, at).read(1, "metadata");
    if (!meta.is_object() && !meta.is_null()) fail(name, "\"metadata\" is not an object");
    if (meta.is_object())
      for (auto it = meta.begin(); it != meta.end(); ++it)
        out.metadata.push_back(
            MetaEntry{it.key(), it.value().type_name(), nlohmann::ordered_json::parse(it.value().dump())});
  }

  // Shards in sorted order, each with the tensors the index maps to it in index order
  // (a stable sort of the weight map by shard name).
  std::vector<std::pair<std::string_view, std::string_view>>& weight_map = index.weight_map;
  std::unordered_map<std::string_view, std::string_view> shard_of;
  shard_of.reserve(weight_map.size());
  for (const auto& [tensor, shard] : weight_map) shard_of.emplace(tensor, shard);
  std::stable_sort(weight_map.begin(), weight_map.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  out.tensors.reserve(weight_map.size());

  // Shards are opened beside the index as it was opened (a URL with its credentials);
  // messages name them as name() shows the index.
  const std::filesystem::path dir =
      std::filesystem::path(file->location().empty() ? name : file->location()).parent_path();
  std::size_t pytorch_shards = 0, shards = 0;
  for (std::size_t first = 0; first < weight_map.size();) {
    const std::string_view shard_view = weight_map[first].second;
    std::size_t last = first;
    while (last < weight_map.size() && weight_map[last].second == shard_view) ++last;
    const std::string shard(shard_view);
    const std::size_t mapped = last - first;
    const std::string shard_path = (dir / shard).string();
    ++shards;
    // A shard that is missing or cannot be parsed: its tensors are listed and marked; loading
    // one names the index, the tensor and the shard. The other shards' tensors still load.
    const auto unreadable = [&](const Error& e, std::string_view mark) {
      const std::string why = e.what();
      pytorch_shards += index_shard_is_pytorch(shard, {});  // by its name: it could not be read
      // The warning names one tensor too: what a user greps the index or the hub's file list for.
      out.warnings.push_back(name + ": shard '" + shard + "' of " + std::to_string(mapped) + " tensor" +
                             (mapped == 1 ? "" : "s") + " cannot be read (" + why + "); it should hold '" +
                             std::string(weight_map[first].first) + "'" +
                             (mapped > 1 ? " and " + std::to_string(mapped - 1) + " more" : std::string()));
      for (std::size_t i = first; i < last; ++i) {
        TensorEntry entry;
        entry.name = std::string(weight_map[i].first);
        entry.stored_type = "-";
        entry.note = std::string(mark) + shard;
        entry.details_for_write().layout_unknown = true;
        entry.details_for_write().loader = [index_name = name, tensor = entry.name, shard, why]() -> Tensor {
          throw Error(ErrorCode::Io,
                      index_name + ": tensor '" + tensor + "' is in shard '" + shard + "', which cannot be read (" +
                          why + ")",
                      {index_name, tensor, std::nullopt, ""});
        };
        out.tensors.push_back(std::move(entry));
      }
      first = last;
    };
    LoadedFile part;
    try {
      part = open_index_shard(shard_path);
    } catch (const Error& e) {
      if (e.code() == ErrorCode::Io) {
        unreadable(e, "in missing shard ");
        continue;
      }
      if (e.code() == ErrorCode::BadFile || e.code() == ErrorCode::LimitExceeded) {
        unreadable(e, "in unreadable shard ");
        continue;
      }
      throw;
    }
    for (const TensorEntry& e : part.tensors) {
      auto it = shard_of.find(e.name);
      if (it == shard_of.end())
        fail(name, "shard '" + shard + "' holds tensor '" + e.name + "', which the index does not list");
      if (it->second != shard_view)
        fail(name, "shard '" + shard + "' holds tensor '" + e.name + "', which the index maps to '" +
                       std::string(it->second) + "'");
    }
    // Every tensor the shard holds is mapped to it, and a shard's names are unique: it
    // holds all its mapped tensors exactly when the counts agree.
    if (part.tensors.size() != mapped) {
      std::unordered_set<std::string_view> held;
      for (const TensorEntry& e : part.tensors) held.insert(e.name);
      for (std::size_t i = first; i < last; ++i)
        if (!held.count(weight_map[i].first))
          fail(name, "tensor '" + std::string(weight_map[i].first) + "' is mapped to shard '" + shard +
                         "', which does not hold it");
    }
    pytorch_shards += part.format == "pytorch";  // by its first bytes
    for (std::string& w : part.warnings) out.warnings.push_back(std::move(w));
    const std::string note = "in shard " + shard;
    for (TensorEntry& e : part.tensors) {
      e.note = part.format == "pytorch" && !e.note.empty() ? note + "; " + e.note : note;  // a torch view's strides
      out.tensors.push_back(std::move(e));
    }
    first = last;
  }
  if (shards > 0 && pytorch_shards == shards) out.format = "pytorch-index";
  return out;
}

}  // namespace tensor_inspect
