// loaders/pytorch_objects.cpp — a torch.save object's leaves as tensors and metadata (see
// pytorch_objects.hpp), for the zip and the legacy layouts alike.
//
// A tensor is torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride,
// requires_grad, backward_hooks[, metadata]), offsets and strides in elements; its storage
// is a persistent id ('storage', torch.<Type>Storage, key, location, numel), to which the
// legacy layout adds a sixth item, view_metadata: None, or (view_key, offset, size) when
// the tensor's storage was a slice of the root storage `key` (torch/serialization.py,
// _legacy_load's persistent_load: the slice starts `offset` elements into the root).
#include "loaders/pytorch_objects.hpp"

#include "loaders/byte_reader.hpp"
#include "loaders/pytorch_allowlist.hpp"
#include "loaders/pytorch_flatten.hpp"
#include "loaders/pytorch_storage.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

namespace {

using Kind = PickleValue::Kind;

constexpr std::size_t kTorchMaxDims = 64;

struct StorageType {
  std::string_view name;
  DType dtype;
};
// torch/storage.py: the typed storages a state_dict uses, by their global name.
constexpr StorageType kStorageTypes[] = {
    {"torch.FloatStorage", DType::Float32},     {"torch.HalfStorage", DType::Float16},
    {"torch.BFloat16Storage", DType::BFloat16}, {"torch.DoubleStorage", DType::Float64},
    {"torch.LongStorage", DType::Int64},        {"torch.IntStorage", DType::Int32},
    {"torch.ShortStorage", DType::Int16},       {"torch.CharStorage", DType::Int8},
    {"torch.ByteStorage", DType::UInt8},        {"torch.BoolStorage", DType::Bool},
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

// torch's dtypes by the name their pickle gives (str(dtype) without "torch."): the
// _rebuild_tensor_v3 argument of the dtypes PyTorch 2.x saves over an UntypedStorage
// (torch/storage.py, _new_dtypes: float8, uint16/32/64, ...) and DCP's TensorProperties.
constexpr TorchDType kTorchDTypes[] = {
    {"float32", DType::Float32, 4},       {"float64", DType::Float64, 8},       {"float16", DType::Float16, 2},
    {"bfloat16", DType::BFloat16, 2},     {"int8", DType::Int8, 1},             {"int16", DType::Int16, 2},
    {"int32", DType::Int32, 4},           {"int64", DType::Int64, 8},           {"uint8", DType::UInt8, 1},
    {"uint16", DType::UInt16, 2},         {"uint32", DType::UInt32, 4},         {"uint64", DType::UInt64, 8},
    {"bool", DType::Bool, 1},             {"float8_e4m3fn", DType::FP8E4M3, 1}, {"float8_e5m2", DType::FP8E5M2, 1},
    {"complex32", std::nullopt, 4},       {"complex64", std::nullopt, 8},       {"complex128", std::nullopt, 16},
    {"float8_e4m3fnuz", std::nullopt, 1}, {"float8_e5m2fnuz", std::nullopt, 1}, {"float8_e8m0fnu", std::nullopt, 1},
    {"qint8", std::nullopt, 1},           {"quint8", std::nullopt, 1},          {"qint32", std::nullopt, 4},
};

bool is_untyped_storage(std::string_view type) {
  return type == "torch.UntypedStorage" || type == "torch.storage.UntypedStorage";
}

class TorchObjectReader {
 public:
  TorchObjectReader(const std::string& pickle_name, const TorchStorages& storages, LoadedFile& out)
      : pickle_name_(pickle_name), s_(storages), out_(out) {}

  void read(const Pickled& pickled) {
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
        add_meta_or_unread(leaf.name, *leaf.value);
    }
  }

 private:
  [[noreturn]] void fail(const std::string& what, const PickleValue& at) const {
    throw Error(ErrorCode::BadFile, pickle_name_ + ": " + what + " at byte " + std::to_string(at.at));
  }

  /// A value torch.load makes a tensor of, through a rebuild function whose layout this tool
  /// does not read (torch/_utils.py: sparse, quantized, nested, meta and device tensors), is
  /// kept as metadata, with a warning: a listing must not look complete without it.
  void add_meta_or_unread(const std::string& key, const PickleValue& v) {
    static constexpr std::pair<std::string_view, std::string_view> kUnread[] = {
        {"torch._utils._rebuild_sparse_tensor", "a sparse tensor"},
        {"torch._utils._rebuild_sparse_csr_tensor", "a sparse CSR tensor"},
        {"torch._utils._rebuild_qtensor", "a quantized tensor (qint8, quint8, qint32 with its scales)"},
        {"torch._utils._rebuild_nested_tensor", "a nested tensor"},
        {"torch._utils._rebuild_meta_tensor_no_storage", "a meta tensor (no storage: shape and dtype only)"},
        {"torch._utils._rebuild_wrapper_subclass", "a tensor subclass without a storage of its own"},
        {"torch._utils._rebuild_device_tensor_from_numpy", "a device tensor saved as a NumPy array"},
        {"torch._utils._rebuild_xla_tensor", "an XLA tensor"},
        {"torch._utils._rebuild_mlc_tensor", "an MLC tensor"},
        {"torch._utils._rebuild_from_type", "a tensor subclass"},
        {"torch._utils._rebuild_from_type_v2", "a tensor subclass"},
    };
    if (v.kind == Kind::Object)
      for (const auto& [fn, what] : kUnread)
        if (v.text == fn)
          out_.warnings.push_back(pickle_name_ + ": '" + key + "' is " + std::string(what) + " (" + v.text +
                                  "), which this tool does not read: listed as metadata, not as a tensor");
    add_meta(key, v);
  }

  void add_meta(const std::string& key, const PickleValue& v) {
    nlohmann::ordered_json value;
    switch (v.kind) {
      case Kind::None:
        value = nullptr;
        break;
      case Kind::Bool:
        value = v.boolean;
        break;
      case Kind::Int:
        value = v.integer;
        break;
      case Kind::Float:
        value = v.number;
        break;
      case Kind::Str:
        value = v.text;
        break;
      case Kind::BigInt:
        value = "<int of " + std::to_string(v.text.size()) + " bytes>";
        break;
      case Kind::Bytes:
        value = "<" + std::to_string(v.text.size()) + " bytes>";
        break;
      default:
        value = "<" + pickle_type_name(v) + " object>";
        break;
    }
    out_.metadata.push_back({key, pickle_type_name(v), std::move(value)});
  }

  std::int64_t int_arg(const PickleValue& v, const std::string& tensor, const char* what) const {
    if (v.kind != Kind::Int)
      fail("tensor '" + tensor + "': " + what + " is a " + pickle_type_name(v) + ", not an int", v);
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

  /// The legacy layout's view_metadata (view_key, offset, size): the elements of the root
  /// storage the tensor's storage is, as [first, end); the whole root when None or absent.
  std::pair<std::uint64_t, std::uint64_t> storage_slice(const PickleValue& pid, std::uint64_t root_numel,
                                                        const std::string& name) const {
    if (pid.items.size() < 6 || pid.items[5]->kind == Kind::None) return {0, root_numel};
    const PickleValue& view = *pid.items[5];
    if (view.kind != Kind::Tuple || view.items.size() != 3)
      fail("tensor '" + name + "': storage view is a " + pickle_type_name(view) + ", not (key, offset, size)", view);
    const std::int64_t first = int_arg(*view.items[1], name, "storage view offset");
    const std::int64_t size = int_arg(*view.items[2], name, "storage view size");
    if (first < 0 || size < 0 || static_cast<std::uint64_t>(first) > root_numel ||
        static_cast<std::uint64_t>(size) > root_numel - static_cast<std::uint64_t>(first))
      fail("tensor '" + name + "': storage view of " + std::to_string(size) + " elements at " + std::to_string(first) +
               " lies outside its storage of " + std::to_string(root_numel),
           view);
    return {static_cast<std::uint64_t>(first), static_cast<std::uint64_t>(first + size)};
  }

  /// Reads the storage persistent id and the view arguments, and checks that every
  /// element the view reaches lies inside the storage and the storage inside its bytes.
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
    t.itemsize = torch_storage_itemsize(type.text);
    const std::int64_t numel = int_arg(*pid.items[4], name, "storage numel");
    if (numel < 0)
      fail("tensor '" + name + "': storage numel " + std::to_string(numel) + " is negative", *pid.items[4]);
    t.storage_numel = static_cast<std::uint64_t>(numel);
    if (call.text == "torch._utils._rebuild_tensor_v3") {
      // _rebuild_tensor_v3(storage, offset, size, stride, requires_grad, hooks, dtype[, metadata]):
      // the dtype is an argument, the storage untyped and its numel in bytes (torch/_utils.py,
      // torch/serialization.py's persistent_id).
      if (call.items.size() < 7) fail("tensor '" + name + "': " + call.text + " needs 7 arguments", call);
      const PickleValue& dt = *call.items[6];
      const TorchDType* d = dt.kind == Kind::Global ? torch_dtype_of_global(dt.text) : nullptr;
      if (!d) fail("tensor '" + name + "': dtype is a " + pickle_type_name(dt) + ", not one of torch's", dt);
      if (!is_untyped_storage(type.text) && t.itemsize != d->itemsize)
        fail("tensor '" + name + "': storage " + type.text + " does not hold " + std::string(d->name), type);
      t.storage_type = dt.text;
      t.dtype = d->dtype;
      if (is_untyped_storage(type.text)) {
        if (t.storage_numel % d->itemsize != 0)
          fail("tensor '" + name + "': untyped storage of " + std::to_string(numel) + " bytes is no whole number of " +
                   std::string(d->name),
               *pid.items[4]);
        t.storage_numel /= d->itemsize;
      }
      t.itemsize = d->itemsize;
    }
    const auto [slice_first, slice_end] = storage_slice(pid, t.storage_numel, name);
    t.offset = int_arg(*call.items[1], name, "storage offset");
    if (t.offset < 0)
      fail("tensor '" + name + "': storage offset " + std::to_string(t.offset) + " is negative", *call.items[1]);
    t.size = int_tuple(*call.items[2], name, "size");
    t.stride = int_tuple(*call.items[3], name, "stride");
    if (t.size.size() != t.stride.size())
      fail("tensor '" + name + "': size " + shape_repr(t.size) + " and stride " + shape_repr(t.stride) +
               " differ in length",
           call);

    const std::optional<ZipMember> member = s_.find(key.text);
    if (!member) fail("tensor '" + name + "': storage '" + key.text + "' has " + s_.missing(key.text), key);
    t.member = *member;
    if (t.itemsize == 0) return t;  // an unknown storage type: listed, refused at load

    // The highest element the view reaches, with overflow checks.
    const std::string& fname = pickle_name_;
    std::uint64_t numel_view = 1;
    std::uint64_t reach = static_cast<std::uint64_t>(t.offset);
    if (slice_first > static_cast<std::uint64_t>(INT64_MAX) - reach)
      fail("tensor '" + name + "': extent overflows", call);
    for (std::size_t d = 0; d < t.size.size(); ++d) {
      const auto n = static_cast<std::uint64_t>(t.size[d]);
      numel_view = checked_mul(numel_view, n, fname, "tensor '" + name + "' size");
      if (n > 0) {
        const std::uint64_t step =
            checked_mul(n - 1, static_cast<std::uint64_t>(t.stride[d]), fname, "tensor '" + name + "' extent");
        if (step > static_cast<std::uint64_t>(INT64_MAX) - reach - slice_first)
          fail("tensor '" + name + "': extent overflows", call);
        reach += step;
      }
    }
    const std::uint64_t itemsize = t.itemsize;
    const std::uint64_t storage_bytes =
        checked_mul(t.storage_numel, itemsize, fname, "storage '" + key.text + "' size");
    const std::string element =
        t.dtype ? std::string(dtype_info(*t.dtype).name) : type.text.substr(type.text.rfind('.') + 1);
    const std::uint64_t slice_numel = slice_end - slice_first;
    if (numel_view > 0 && reach >= slice_numel)
      fail("tensor '" + name + "': offset " + std::to_string(t.offset) + ", size " + shape_repr(t.size) +
               " and stride " + shape_repr(t.stride) + " reach element " + std::to_string(reach) + " of a storage of " +
               std::to_string(slice_numel),
           call);
    if (storage_bytes > t.member.size)
      fail("tensor '" + name + "': storage '" + key.text + "' of " + std::to_string(t.storage_numel) + " " + element +
               " needs " + std::to_string(storage_bytes) + " bytes, " +
               (s_.zip ? "member '" + t.member.name + "' holds " : "the file holds ") + std::to_string(t.member.size),
           key);
    t.offset += static_cast<std::int64_t>(slice_first);  // from the root storage's first element
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
    entry.offset = t.member.data_offset + static_cast<std::uint64_t>(t.offset) * entry_itemsize;
    entry.nbytes = static_cast<std::uint64_t>(prod(t.size)) * entry_itemsize;
    const bool contiguous = is_c_contiguous(t.size, t.stride) || prod(t.size) == 0;
    const std::optional<std::vector<std::size_t>> layout = permuted_layout(t.size, t.stride);
    if (!contiguous)
      entry.note =
          "strides " + shape_repr(t.stride) + (layout ? ", a view over the storage" : ", gathered into C order");
    if (s_.big_endian)
      entry.note += std::string(entry.note.empty() ? "" : "; ") + "big-endian, converted to native order";
    if (!t.member.stored) entry.note += std::string(entry.note.empty() ? "" : "; ") + zip_compressed_note(t.member);

    const bool swap = s_.big_endian && entry_itemsize > 1;
    entry.details_for_write().loader = torch_tensor_loader(s_.file, s_.zip, t, name, swap);
    // Values not shown, bytes still compared (diff), where they lie as the tensor's C order:
    // a contiguous view of uncompressed bytes, in the byte order diff's other side has too.
    if (!t.dtype && entry_itemsize && t.member.stored && contiguous && !s_.big_endian)
      entry.details_for_write().blocks_file = s_.file;
    out_.tensors.push_back(std::move(entry));
  }

  const std::string& pickle_name_;
  const TorchStorages& s_;
  LoadedFile& out_;
};

}  // namespace

const TorchDType* torch_dtype_of_global(std::string_view global) {
  if (!global.starts_with("torch.")) return nullptr;
  global.remove_prefix(6);
  for (const TorchDType& d : kTorchDTypes)
    if (d.name == global) return &d;
  return nullptr;
}

std::uint64_t torch_storage_itemsize(std::string_view type) {
  for (const StorageType& st : kStorageTypes)
    if (st.name == type) return dtype_info(st.dtype).itemsize;
  for (const OpaqueStorageType& st : kOpaqueStorageTypes)
    if (st.name == type) return st.itemsize;
  return 0;
}

void torch_add_object(const Pickled& pickled, const std::string& pickle_name, const TorchStorages& storages,
                      LoadedFile& out) {
  TorchObjectReader(pickle_name, storages, out).read(pickled);
}

}  // namespace tensor_inspect
