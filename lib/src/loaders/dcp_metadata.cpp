// loaders/dcp_metadata.cpp — the .metadata pickle of torch.distributed.checkpoint read
// into DcpMetadata (see dcp_metadata.hpp for the classes and where PyTorch defines them).
#include "loaders/dcp_metadata.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string_view>

#include "loaders/formats.hpp"
#include "loaders/pickle.hpp"
#include "loaders/pytorch_objects.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

namespace {

using Kind = PickleValue::Kind;

constexpr std::string_view kDcpModule = "torch.distributed.checkpoint.metadata.";
constexpr std::string_view kDcpShardModule = "torch.distributed._shard.sharded_tensor.metadata.";
constexpr std::size_t kDcpMaxDims = 64;

bool is_dcp_class(std::string_view name, std::string_view cls) {
  if (name.starts_with(kDcpModule)) return name.substr(kDcpModule.size()) == cls;
  // PyTorch 2.0 to 2.3 kept TensorProperties and its encoding with ShardedTensor.
  if (name.starts_with(kDcpShardModule)) {
    const std::string_view rest = name.substr(kDcpShardModule.size());
    return rest == cls || (cls == "_MEM_FORMAT_ENCODING" && rest == "MEM_FORMAT_ENCODING");
  }
  return false;
}

struct DcpStop {};  // a fault that leaves nothing to read after it, already reported

class DcpMetadataReader {
 public:
  DcpMetadataReader(const std::string& name, const DcpFaultSink& sink) : name_(name), sink_(sink) {}

  DcpMetadata read(std::span<const std::byte> bytes) {
    if (bytes.size() > limits().dcp_metadata_bytes)
      stop("limit", "", 0, "the metadata pickle holds " + std::to_string(bytes.size()) + " bytes, over the limit of " +
                               std::to_string(limits().dcp_metadata_bytes) + limit_hint("dcp_metadata_bytes"));
    const Pickled p = read_pickle(bytes, name_);
    for (const PickleGlobal& g : p.globals)
      if (!dcp_allows_global(g.name))
        stop("class", "", g.at, "class '" + g.name + "' is not one torch.distributed.checkpoint writes: refused "
                                "(nothing is imported or run)");
    // Python 3.11+ pickles an Enum member as getattr(its class, name) (Lib/enum.py,
    // __reduce_ex__): allowed for the memory format encoding alone.
    for (const auto& v : p.arena)
      if (v->kind == Kind::Object && v->text == "builtins.getattr" &&
          (v->items.size() != 2 || v->items[0]->kind != Kind::Global ||
           !is_dcp_class(v->items[0]->text, "_MEM_FORMAT_ENCODING") || v->items[1]->kind != Kind::Str))
        stop("class", "", v->at, "builtins.getattr is called on something else than TensorProperties' memory format "
                                 "encoding: refused (nothing is imported or run)");
    const PickleValue& root = *p.root;
    if (!is_object(root, "Metadata"))
      stop("structure", "", root.at,
           "the pickle holds a " + pickle_type_name(root) + ", not a torch.distributed.checkpoint Metadata");
    const PickleValue* state = root.state;
    if (!state || state->kind != Kind::Dict) stop("structure", "Metadata", root.at, "no __dict__ state");
    const PickleValue* sdm = field(*state, "state_dict_metadata");
    if (!sdm || sdm->kind != Kind::Dict) stop("structure", "Metadata", state->at, "state_dict_metadata is not a dict");
    if (const PickleValue* v = field(*state, "version"); v && v->kind == Kind::Str) out_.version = v->text;
    if (const PickleValue* sd = field(*state, "storage_data"); sd && sd->kind == Kind::Dict) read_storage(*sd);
    else if (sd && sd->kind != Kind::None) stop("structure", "Metadata", sd->at, "storage_data is not a dict");
    for (std::size_t i = 0; i + 1 < sdm->items.size(); i += 2) {
      const PickleValue& key = *sdm->items[i];
      const PickleValue& value = *sdm->items[i + 1];
      if (key.kind != Kind::Str) {
        fault("structure", "state_dict_metadata", key.at, "a key is a " + pickle_type_name(key) + ", not a str");
        continue;
      }
      if (is_object(value, "BytesStorageMetadata")) read_bytes(key.text, value);
      else if (is_object(value, "TensorStorageMetadata")) read_tensor(key.text, value);
      else
        fault("structure", "'" + key.text + "'", value.at, "a " + pickle_type_name(value) + ", not a storage metadata");
    }
    return std::move(out_);
  }

 private:
  void fault(const std::string& rule, const std::string& place, std::uint64_t at, const std::string& message,
             bool unsupported = false) {
    if (sink_) return sink_(DcpFault{rule, place, at, message, unsupported});
    throw Error(unsupported ? ErrorCode::Unsupported : ErrorCode::BadFile,
                name_ + ": " + (place.empty() ? "" : place + ": ") + message + " at byte " + std::to_string(at));
  }
  [[noreturn]] void stop(const std::string& rule, const std::string& place, std::uint64_t at, const std::string& m) {
    fault(rule, place, at, m);
    throw DcpStop{};
  }

  static bool is_object(const PickleValue& v, std::string_view cls) {
    return v.kind == Kind::Object && is_dcp_class(v.text, cls);
  }
  static const PickleValue* field(const PickleValue& dict, std::string_view key) {
    for (std::size_t i = 0; i + 1 < dict.items.size(); i += 2)
      if (dict.items[i]->kind == Kind::Str && dict.items[i]->text == key) return dict.items[i + 1];
    return nullptr;
  }
  // A dataclass's field from its BUILD state (a dict), or nullptr.
  static const PickleValue* attr(const PickleValue& obj, std::string_view key) {
    return obj.state && obj.state->kind == Kind::Dict ? field(*obj.state, key) : nullptr;
  }

  // torch.Size(tuple): REDUCE of the global torch.Size over one tuple of ints.
  std::optional<Shape> size_of(const PickleValue* v, const std::string& place, const char* what) {
    if (!v || v->kind != Kind::Object || v->text != "torch.Size" || v->items.size() != 1 ||
        v->items[0]->kind != Kind::Tuple) {
      fault("structure", place, v ? v->at : 0, std::string(what) + " is not a torch.Size");
      return std::nullopt;
    }
    const auto& dims = v->items[0]->items;
    if (dims.size() > kDcpMaxDims) {
      fault("shape", place, v->at, std::string(what) + " has " + std::to_string(dims.size()) + " dims, over " +
                                       std::to_string(kDcpMaxDims));
      return std::nullopt;
    }
    Shape s;
    for (const PickleRef& d : dims) {
      if (d->kind != Kind::Int || d->integer < 0) {
        const std::string held = d->kind == Kind::Int ? std::to_string(d->integer) : "a " + pickle_type_name(*d);
        fault("shape", place, d->at, std::string(what) + " holds " + held + ", not a size");
        return std::nullopt;
      }
      s.push_back(d->integer);
    }
    return s;
  }

  void read_storage(const PickleValue& sd) {
    for (std::size_t i = 0; i + 1 < sd.items.size(); i += 2) {
      const PickleValue& key = *sd.items[i];
      const PickleValue& info = *sd.items[i + 1];
      const PickleValue* fqn = is_object(key, "MetadataIndex") ? attr(key, "fqn") : nullptr;
      if (!fqn || fqn->kind != Kind::Str) {
        fault("structure", "storage_data", key.at, "a key is a " + pickle_type_name(key) + ", not a MetadataIndex");
        continue;
      }
      Shape offsets;
      if (const PickleValue* off = attr(key, "offset"); off && off->kind != Kind::None) {
        const auto s = size_of(off, "storage_data '" + fqn->text + "'", "MetadataIndex.offset");
        if (!s) continue;
        offsets = *s;
      }
      const bool plain =
          info.kind == Kind::Object && info.text == "torch.distributed.checkpoint.filesystem._StorageInfo";
      const PickleValue* path = plain ? attr(info, "relative_path") : nullptr;
      const PickleValue* off = plain ? attr(info, "offset") : nullptr;
      const PickleValue* len = plain ? attr(info, "length") : nullptr;
      const std::string place = "storage_data '" + fqn->text + "'";
      if (!path || path->kind != Kind::Str || !off || off->kind != Kind::Int || !len || len->kind != Kind::Int ||
          off->integer < 0 || len->integer < 0) {
        fault("structure", place, info.at,
              "not a _StorageInfo(relative_path: str, offset: int >= 0, length: int >= 0)");
        continue;
      }
      DcpStorage s{path->text, static_cast<std::uint64_t>(off->integer), static_cast<std::uint64_t>(len->integer),
                   false, info.at};
      if (const PickleValue* t = attr(info, "transform_descriptors"); t && t->kind != Kind::None)
        s.transformed = !(t->kind == Kind::List || t->kind == Kind::Tuple) || !t->items.empty();
      if (const std::string why = index_shard_name_fault(s.relative_path); !why.empty()) {
        fault("storage_path", place, info.at, "relative_path '" + s.relative_path + "' " + why);
        continue;
      }
      storage_.emplace(std::make_pair(fqn->text, offsets), std::move(s));
    }
  }

  void read_bytes(const std::string& fqn, const PickleValue& v) {
    DcpBytes b{fqn, std::nullopt};
    if (const auto it = storage_.find({fqn, Shape{}}); it != storage_.end()) b.storage = it->second;
    else fault("storage_missing", "'" + fqn + "'", v.at, "storage_data holds no entry for this item");
    out_.bytes_entries.push_back(std::move(b));
  }

  void read_tensor(const std::string& fqn, const PickleValue& v) {
    const std::string place = "tensor '" + fqn + "'";
    DcpTensor t;
    t.fqn = fqn;
    t.at = v.at;
    const PickleValue* props = attr(v, "properties");
    const PickleValue* dtype = nullptr;
    if (props && is_object(*props, "TensorProperties") && props->state) {
      // __getstate__: (dtype, layout, requires_grad, memory format encoding, pin_memory)
      if (props->state->kind == Kind::Tuple && !props->state->items.empty()) dtype = props->state->items[0];
      else if (props->state->kind == Kind::Dict) dtype = field(*props->state, "dtype");
    }
    if (!dtype || dtype->kind != Kind::Global) return fault("structure", place, v.at, "properties hold no dtype");
    const TorchDType* d = torch_dtype_of_global(dtype->text);
    if (!d) return fault("dtype", place, dtype->at, "dtype '" + dtype->text + "' is not one of torch's");
    t.torch_dtype = std::string(d->name);
    t.dtype = d->dtype;
    t.itemsize = d->itemsize;
    const auto size = size_of(attr(v, "size"), place, "size");
    if (!size) return;
    t.size = *size;
    // Its bytes, zero dims left out, must fit in 63 bits: prod() multiplies the dims in order,
    // so a 0 after two huge dims would come too late.
    std::uint64_t numel = 1;
    const auto max = static_cast<std::uint64_t>(INT64_MAX);
    for (const std::int64_t dim : t.size)
      if (dim != 0) {
        const auto n = static_cast<std::uint64_t>(dim);
        numel = numel > max / n ? max + 1 : numel * n;
      }
    if (numel > static_cast<std::uint64_t>(INT64_MAX) / t.itemsize)
      return fault("shape", place, v.at, "size " + shape_repr(t.size) + " holds more bytes than fit in 63 bits");
    const PickleValue* chunks = attr(v, "chunks");
    if (!chunks || chunks->kind != Kind::List) return fault("structure", place, v.at, "chunks is not a list");
    chunk_count_ += chunks->items.size();
    if (chunk_count_ > limits().dcp_chunks)
      stop("limit", place, chunks->at, "more than " + std::to_string(limits().dcp_chunks) + " chunks in all" +
                                           limit_hint("dcp_chunks"));
    for (std::size_t i = 0; i < chunks->items.size(); ++i) {
      const PickleValue& c = *chunks->items[i];
      const std::string cplace = place + " chunk " + std::to_string(i);
      if (!is_object(c, "ChunkStorageMetadata")) return fault("structure", cplace, c.at, "not a ChunkStorageMetadata");
      const auto offsets = size_of(attr(c, "offsets"), cplace, "offsets");
      const auto sizes = size_of(attr(c, "sizes"), cplace, "sizes");
      if (!offsets || !sizes) return;
      if (offsets->size() != t.size.size() || sizes->size() != t.size.size())
        return fault("shape", cplace, c.at, "offsets " + shape_repr(*offsets) + " and sizes " + shape_repr(*sizes) +
                                                " do not have the " + std::to_string(t.size.size()) +
                                                " dims of the tensor's size " + shape_repr(t.size));
      DcpChunk chunk{*offsets, *sizes, std::nullopt, c.at};
      if (const auto it = storage_.find({fqn, *offsets}); it != storage_.end()) chunk.storage = it->second;
      else fault("storage_missing", cplace, c.at, "storage_data holds no entry for offsets " + shape_repr(*offsets));
      if (chunk.storage && chunk.storage->transformed)
        fault("transform", cplace, chunk.storage->at, "its storage has transform_descriptors (a DCP extension such as "
                                                      "compression), which this tool does not undo", true);
      t.chunks.push_back(std::move(chunk));
    }
    std::string rule;
    if (const std::string why = dcp_tiling_fault(t.size, t.chunks, rule); !why.empty()) fault(rule, place, v.at, why);
    out_.tensors.push_back(std::move(t));
  }

  const std::string& name_;
  const DcpFaultSink& sink_;
  DcpMetadata out_;
  std::map<std::pair<std::string, Shape>, DcpStorage> storage_;
  std::uint64_t chunk_count_ = 0;
};

}  // namespace

bool dcp_allows_global(const std::string& name) {
  static constexpr std::string_view kClasses[] = {
      "Metadata", "TensorStorageMetadata", "ChunkStorageMetadata", "BytesStorageMetadata", "TensorProperties",
      "_MEM_FORMAT_ENCODING", "MetadataIndex", "StorageMeta",
  };
  for (std::string_view c : kClasses)
    if (is_dcp_class(name, c)) return true;
  static constexpr std::string_view kOthers[] = {
      "torch.distributed.checkpoint.filesystem._StorageInfo", "torch.Size", "collections.OrderedDict",
      // an Enum member on Python 3.11+ (checked to be the memory format encoding's)
      "builtins.getattr",
      // a layout pickles as torch.serialization._get_layout("torch.strided") (torch/csrc/Layout.cpp)
      "torch.serialization._get_layout",
      // StorageMeta.checkpoint_id: the writer's pathlib.Path (Python 3.13 defines it in pathlib._local)
      "pathlib.PosixPath", "pathlib.WindowsPath", "pathlib._local.PosixPath", "pathlib._local.WindowsPath",
  };
  return std::find(std::begin(kOthers), std::end(kOthers), name) != std::end(kOthers) ||
         torch_dtype_of_global(name) != nullptr;
}

DcpMetadata parse_dcp_metadata(std::span<const std::byte> bytes, const std::string& name, const DcpFaultSink& sink) {
  DcpMetadataReader reader(name, sink);
  try {
    return reader.read(bytes);
  } catch (const DcpStop&) {
    return {};
  }
}

}  // namespace tensor_inspect
