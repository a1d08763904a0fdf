// loaders/pytorch.cpp — torch.save files (torch/serialization.py, _save and _load with
// the zip format that is the default since PyTorch 1.6).
//
// Byte layout:
//   1. a zip archive (see zip_archive.cpp), members STORED and 64-byte aligned:
//   2. "<archive>/data.pkl": a pickle (protocol 2) of the saved object; each storage is a
//      persistent id ('storage', torch.<Type>Storage, key, location, numel) and each tensor
//      torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
//      backward_hooks[, metadata]), offsets and strides in elements;
//   3. "<archive>/data/<key>": the storage's numel * itemsize bytes;
//   4. "<archive>/byteorder": "little" or "big" (absent before PyTorch 1.10: little);
//   5. "<archive>/version", "<archive>/.data/serialization_id": not needed here.
// The legacy format (before 1.6) starts with a pickled magic number instead of "PK" and
// is refused. The pickle is run by pickle.cpp, which imports and calls nothing.
//
// Nested dicts, lists and tuples are flattened to unique dotted names
// ("model.layer.0.weight", see pytorch_flatten.cpp); values that are not tensors become
// metadata, objects by their global name. Globals outside torch.load(weights_only=True)'s
// allow-list (pytorch_allowlist.cpp) are warnings of the file.
#include <algorithm>
#include <cstring>
#include <optional>
#include <set>

#include "loaders/byte_reader.hpp"
#include "loaders/formats.hpp"
#include "loaders/pickle.hpp"
#include "loaders/pytorch_allowlist.hpp"
#include "loaders/pytorch_flatten.hpp"
#include "loaders/pytorch_storage.hpp"
#include "loaders/zip_archive.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

namespace {

using Kind = PickleValue::Kind;

constexpr std::size_t kTorchMaxDims = 64;

// LONG1 of 10 bytes holding 0x1950a86a20f9469cfc6c, as the legacy format pickles it first.
constexpr unsigned char kLegacyMagic[] = {0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46,
                                          0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19};

struct StorageType {
  std::string_view name;
  DType dtype;
};
// torch/storage.py: the typed storages a state_dict uses, by their global name.
constexpr StorageType kStorageTypes[] = {
    {"torch.FloatStorage", DType::Float32},  {"torch.HalfStorage", DType::Float16},
    {"torch.BFloat16Storage", DType::BFloat16}, {"torch.DoubleStorage", DType::Float64},
    {"torch.LongStorage", DType::Int64},     {"torch.IntStorage", DType::Int32},
    {"torch.ShortStorage", DType::Int16},    {"torch.CharStorage", DType::Int8},
    {"torch.ByteStorage", DType::UInt8},     {"torch.BoolStorage", DType::Bool},
};
// The other typed storages of torch/storage.py, which tinygrad has no dtype for, with
// their bytes per element: their tensors are listed with their bytes, and diff compares
// those bytes where they lie in the file as they are; their values are not shown.
struct OpaqueStorageType {
  std::string_view name;
  std::uint64_t itemsize;
};
constexpr OpaqueStorageType kOpaqueStorageTypes[] = {
    {"torch.ComplexFloatStorage", 8}, {"torch.ComplexDoubleStorage", 16}, {"torch.QInt8Storage", 1},
    {"torch.QUInt8Storage", 1},       {"torch.QInt32Storage", 4},         {"torch.QUInt4x2Storage", 1},
    {"torch.QUInt2x4Storage", 1},
};

class PytorchReader {
 public:
  explicit PytorchReader(std::shared_ptr<const MappedFile> file)
      : file_(std::move(file)), zip_(std::make_shared<ZipArchive>(file_)) {}

  LoadedFile read() {
    const ZipMember* pkl = nullptr;
    for (const ZipMember& m : zip_->members())
      if (m.name.ends_with("/data.pkl") && std::count(m.name.begin(), m.name.end(), '/') == 1) {
        pkl = &m;
        break;
      }
    if (!pkl)
      throw Error(ErrorCode::BadFile, file_->name() + ": no '<archive>/data.pkl' member: not a torch.save archive");
    prefix_ = pkl->name.substr(0, pkl->name.size() - std::string_view("data.pkl").size());
    read_byteorder();

    pickle_name_ = file_->name() + ": " + pkl->name;
    std::vector<std::byte> owned;
    std::span<const std::byte> bytes;
    if (pkl->stored) {
      file_->fetch(pkl->data_offset, pkl->size);  // one request for a remote file, not one per read
      bytes = file_->bytes().subspan(static_cast<std::size_t>(pkl->data_offset), static_cast<std::size_t>(pkl->size));
    } else {
      // A pickle is read whole, inflated as its bytes arrive; the pickle caps bound
      // what it may build.
      if (pkl->size > limits().pickle_bytes)
        throw Error(ErrorCode::Unsupported, pickle_name_ + ": compressed pickle of " + std::to_string(pkl->size) +
                                                " bytes is over the limit of " + std::to_string(limits().pickle_bytes) +
                                                limit_hint("pickle_bytes"));
      owned = zip_->read_all(*pkl);
      bytes = owned;
    }
    const Pickled pickled = read_pickle(bytes, pickle_name_);

    out_.path = file_->name();
    out_.format = "pytorch";
    out_.file = file_;
    for (const PickleGlobal& g : pickled.globals)
      if (!torch_allows_global(g.name))
        out_.warnings.push_back(pickle_name_ + ": global '" + g.name + "' at byte " + std::to_string(g.at) +
                                " is outside torch.load(weights_only=True)'s allow-list: torch.load without it "
                                "would import and may call it");
    for (const PickleLeaf& leaf : flatten_pickle(pickled.root, pickle_name_)) {
      if (!leaf.same_as.empty())
        out_.metadata.push_back({leaf.name, "reference", "<same object as '" + leaf.same_as + "'>"});
      else if (is_torch_tensor(*leaf.value))
        add_tensor(leaf.name, *leaf.value);
      else
        add_meta(leaf.name, *leaf.value);
    }
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail(const std::string& what, const PickleValue& at) const {
    throw Error(ErrorCode::BadFile, pickle_name_ + ": " + what + " at byte " + std::to_string(at.at));
  }

  void read_byteorder() {
    const ZipMember* m = zip_->find(prefix_ + "byteorder");
    if (!m) return;
    const std::vector<std::byte> text = zip_->read_prefix(*m, 16);
    const std::string order(reinterpret_cast<const char*>(text.data()), text.size());
    if (order == "big") big_endian_ = true;
    else if (order != "little")
      throw Error(ErrorCode::BadFile, file_->name() + ": member '" + m->name + "' at byte " +
                                          std::to_string(m->data_offset) + " says '" + order +
                                          "', expected 'little' or 'big'");
  }

  void add_meta(const std::string& key, const PickleValue& v) {
    nlohmann::ordered_json value;
    switch (v.kind) {
      case Kind::None: value = nullptr; break;
      case Kind::Bool: value = v.boolean; break;
      case Kind::Int: value = v.integer; break;
      case Kind::Float: value = v.number; break;
      case Kind::Str: value = v.text; break;
      case Kind::BigInt: value = "<int of " + std::to_string(v.text.size()) + " bytes>"; break;
      case Kind::Bytes: value = "<" + std::to_string(v.text.size()) + " bytes>"; break;
      default: value = "<" + pickle_type_name(v) + " object>"; break;
    }
    out_.metadata.push_back({key, pickle_type_name(v), std::move(value)});
  }

  std::int64_t int_arg(const PickleValue& v, const std::string& tensor, const char* what) const {
    if (v.kind != Kind::Int) fail("tensor '" + tensor + "': " + what + " is a " + pickle_type_name(v) + ", not an int", v);
    return v.integer;
  }

  std::vector<std::int64_t> int_tuple(const PickleValue& v, const std::string& tensor, const char* what) const {
    if (v.kind != Kind::Tuple && v.kind != Kind::List)
      fail("tensor '" + tensor + "': " + what + " is a " + pickle_type_name(v) + ", not a tuple", v);
    if (v.items.size() > kTorchMaxDims)
      fail("tensor '" + tensor + "': " + what + " has " + std::to_string(v.items.size()) + " dimensions, over " +
               std::to_string(kTorchMaxDims),
           v);
    std::vector<std::int64_t> out;
    for (const PickleRef& d : v.items) {
      const std::int64_t x = int_arg(*d, tensor, what);
      if (x < 0) fail("tensor '" + tensor + "': " + what + " has a negative value " + std::to_string(x), *d);
      out.push_back(x);
    }
    return out;
  }

  /// Reads the storage persistent id and the view arguments, and checks that every
  /// element the view reaches lies inside the storage and the storage inside its member.
  TorchTensorRef tensor_ref(const std::string& name, const PickleValue& call) const {
    if (call.items.size() < 4) fail("tensor '" + name + "': " + call.text + " needs 4 arguments", call);
    const PickleValue& pid = *call.items[0];
    if (pid.kind != Kind::PersistentId || pid.items.size() < 5 || pid.items[0]->kind != Kind::Str ||
        pid.items[0]->text != "storage")
      fail("tensor '" + name + "': storage is not a ('storage', type, key, location, numel) persistent id", pid);
    const PickleValue& type = *pid.items[1];
    const PickleValue& key = *pid.items[2];
    if (type.kind != Kind::Global) fail("tensor '" + name + "': storage type is a " + pickle_type_name(type), type);
    if (key.kind != Kind::Str) fail("tensor '" + name + "': storage key is a " + pickle_type_name(key), key);

    TorchTensorRef t;
    t.storage_type = type.text;
    for (const StorageType& st : kStorageTypes)
      if (st.name == type.text) t.dtype = st.dtype;
    if (t.dtype) t.itemsize = dtype_info(*t.dtype).itemsize;
    for (const OpaqueStorageType& st : kOpaqueStorageTypes)
      if (st.name == type.text) t.itemsize = st.itemsize;
    const std::int64_t numel = int_arg(*pid.items[4], name, "storage numel");
    if (numel < 0) fail("tensor '" + name + "': storage numel " + std::to_string(numel) + " is negative", *pid.items[4]);
    t.storage_numel = static_cast<std::uint64_t>(numel);
    t.offset = int_arg(*call.items[1], name, "storage offset");
    if (t.offset < 0) fail("tensor '" + name + "': storage offset " + std::to_string(t.offset) + " is negative", *call.items[1]);
    t.size = int_tuple(*call.items[2], name, "size");
    t.stride = int_tuple(*call.items[3], name, "stride");
    if (t.size.size() != t.stride.size())
      fail("tensor '" + name + "': size " + shape_repr(t.size) + " and stride " + shape_repr(t.stride) +
               " differ in length",
           call);

    const std::string member_name = prefix_ + "data/" + key.text;
    t.member = zip_->find(member_name);
    if (!t.member)
      fail("tensor '" + name + "': storage '" + key.text + "' has no member '" + member_name + "' in the archive", key);
    if (t.itemsize == 0) return t;  // an unknown storage type: listed, refused at load

    // The highest element the view reaches, with overflow checks.
    const std::string& fname = pickle_name_;
    std::uint64_t numel_view = 1;
    std::uint64_t reach = static_cast<std::uint64_t>(t.offset);
    for (std::size_t d = 0; d < t.size.size(); ++d) {
      const auto n = static_cast<std::uint64_t>(t.size[d]);
      numel_view = checked_mul(numel_view, n, fname, "tensor '" + name + "' size");
      if (n > 0) {
        const std::uint64_t step = checked_mul(n - 1, static_cast<std::uint64_t>(t.stride[d]), fname,
                                               "tensor '" + name + "' extent");
        if (step > static_cast<std::uint64_t>(INT64_MAX) - reach)
          fail("tensor '" + name + "': extent overflows", call);
        reach += step;
      }
    }
    const std::uint64_t itemsize = t.itemsize;
    const std::uint64_t storage_bytes = checked_mul(t.storage_numel, itemsize, fname, "storage '" + key.text + "' size");
    const std::string element = t.dtype ? std::string(dtype_info(*t.dtype).name) : type.text.substr(type.text.rfind('.') + 1);
    if (numel_view > 0 && reach >= t.storage_numel)
      fail("tensor '" + name + "': offset " + std::to_string(t.offset) + ", size " + shape_repr(t.size) +
               " and stride " + shape_repr(t.stride) + " reach element " + std::to_string(reach) +
               " of a storage of " + std::to_string(t.storage_numel),
           call);
    if (storage_bytes > t.member->size)
      fail("tensor '" + name + "': storage '" + key.text + "' of " + std::to_string(t.storage_numel) + " " +
               element + " needs " + std::to_string(storage_bytes) + " bytes, member '" +
               member_name + "' holds " + std::to_string(t.member->size),
           key);
    return t;
  }

  void add_tensor(const std::string& name, const PickleValue& call) {
    const TorchTensorRef t = tensor_ref(name, call);
    TensorEntry entry;
    entry.name = name;
    entry.stored_type = t.storage_type.substr(t.storage_type.rfind('.') + 1);
    entry.dtype = t.dtype;
    entry.shape = t.size;
    entry.details_for_write().stored_shape = t.size;
    const std::uint64_t entry_itemsize = t.itemsize;
    entry.offset = t.member->data_offset + static_cast<std::uint64_t>(t.offset) * entry_itemsize;
    entry.nbytes = static_cast<std::uint64_t>(prod(t.size)) * entry_itemsize;
    const bool contiguous = is_c_contiguous(t.size, t.stride) || prod(t.size) == 0;
    const std::optional<std::vector<std::size_t>> layout = permuted_layout(t.size, t.stride);
    if (!contiguous)
      entry.note = "strides " + shape_repr(t.stride) + (layout ? ", a view over the storage" : ", gathered into C order");
    if (big_endian_) entry.note += std::string(entry.note.empty() ? "" : "; ") + "big-endian, converted to native order";
    if (!t.member->stored) entry.note += std::string(entry.note.empty() ? "" : "; ") + zip_compressed_note(*t.member);

    const bool swap = big_endian_ && entry_itemsize > 1;
    entry.details_for_write().loader = torch_tensor_loader(zip_, t, name, swap);
    // Values not shown, bytes still compared (diff), where they lie as the tensor's C order:
    // a contiguous view of a STORED member, in the byte order diff's other side has too.
    if (!t.dtype && entry_itemsize && t.member->stored && contiguous && !big_endian_) entry.details_for_write().blocks_file = file_;
    out_.tensors.push_back(std::move(entry));
  }

  std::shared_ptr<const MappedFile> file_;
  std::shared_ptr<ZipArchive> zip_;
  std::string prefix_;
  std::string pickle_name_;
  bool big_endian_ = false;
  LoadedFile out_;
};

}  // namespace

bool sniff_pytorch(std::span<const std::byte> head) {
  if (head.size() >= sizeof kLegacyMagic && std::memcmp(head.data(), kLegacyMagic, sizeof kLegacyMagic) == 0)
    return true;
  bool truncated = false;
  const std::string first = zip_first_name(head, &truncated);
  if (first.empty()) return false;
  if (truncated) return first.find('/') != std::string::npos;
  return first.ends_with("/data.pkl");
}

LoadedFile open_pytorch(std::shared_ptr<const MappedFile> file) {
  const auto bytes = file->bytes();
  if (bytes.size() >= sizeof kLegacyMagic && std::memcmp(bytes.data(), kLegacyMagic, sizeof kLegacyMagic) == 0)
    throw Error(ErrorCode::Unsupported, file->name() +
                                            ": legacy PyTorch format (before 1.6, pickle magic number "
                                            "0x1950a86a20f9469cfc6c at byte 2) is not supported; re-save it with "
                                            "torch.save in a current PyTorch");
  return PytorchReader(std::move(file)).read();
}

}  // namespace tensor_inspect
