// loaders/pytorch_allowlist.cpp — torch.load(weights_only=True)'s default allow-list (see
// pytorch_allowlist.hpp), as _get_allowed_globals builds it in PyTorch 2.x. The one list:
// the loader's warnings and validate's pickle.global findings both ask it.
#include "loaders/pytorch_allowlist.hpp"

#include <algorithm>
#include <string>

namespace tensor_inspect {

namespace {

constexpr std::string_view kExact[] = {
    "collections.OrderedDict",
    "collections.Counter",
    "torch.nn.parameter.Parameter",
    "torch.serialization._get_layout",
    "torch.Size",
    "torch.Tensor",
    "torch.device",
    "_codecs.encode",
    "builtins.bytearray",
    "builtins.set",
    "builtins.complex",
    "torch._tensor._rebuild_from_type_v2",
    // _tensor_rebuild_functions()
    "torch._utils._rebuild_parameter",
    "torch._utils._rebuild_parameter_with_state",
    "torch._utils._rebuild_qtensor",
    "torch._utils._rebuild_tensor",
    "torch._utils._rebuild_tensor_v2",
    "torch._utils._rebuild_tensor_v3",
    "torch._utils._rebuild_sparse_tensor",
    "torch._utils._rebuild_meta_tensor_no_storage",
    "torch._utils._rebuild_nested_tensor",
    "torch._utils._rebuild_wrapper_subclass",
    "torch._utils._rebuild_device_tensor_from_numpy",
    "torch._utils._rebuild_device_tensor_from_cpu_tensor",
    // storage classes kept as they are
    "torch.storage.TypedStorage",
    "torch.storage.UntypedStorage",
    "torch.UntypedStorage",
    // quantization schemes
    "torch.per_tensor_affine",
    "torch.per_tensor_symmetric",
    "torch.per_channel_affine",
    "torch.per_channel_symmetric",
    "torch.per_channel_affine_float_qparams",
};

// str(dtype) of torch's dtypes: "torch.float32", ...
constexpr std::string_view kDTypes[] = {
    "float32", "float64", "float16", "bfloat16", "complex32", "complex64", "complex128", "uint8", "int8", "int16",
    "int32", "int64", "bool", "qint8", "quint8", "qint32", "quint4x2", "quint2x4", "float8_e4m3fn", "float8_e5m2",
    "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn_x2", "uint16", "uint32", "uint64",
    "bits1x8", "bits2x4", "bits4x2", "bits8", "bits16", "uint1", "uint2", "uint3", "uint4", "uint5", "uint6",
    "uint7", "int1", "int2", "int3", "int4", "int5", "int6", "int7",
};

// The element types of torch's legacy tensor and storage classes: torch.FloatTensor,
// torch.cuda.HalfStorage, torch.QInt8Storage, ...
constexpr std::string_view kClassTypes[] = {
    "Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool", "ComplexFloat",
    "ComplexDouble", "QInt8", "QUInt8", "QInt32", "QUInt4x2", "QUInt2x4", "",
};

template <std::size_t N>
bool contains(const std::string_view (&table)[N], std::string_view s) {
  return std::find(std::begin(table), std::end(table), s) != std::end(table);
}

bool is_class(std::string_view name, std::string_view suffix) {
  if (name.size() < suffix.size() || name.substr(name.size() - suffix.size()) != suffix) return false;
  name.remove_suffix(suffix.size());
  return contains(kClassTypes, name);
}

}  // namespace

bool torch_allows_global(std::string_view name) {
  // Protocol-2 pickles name Python 2's module; torch.load maps it (pickle's IMPORT_MAPPING).
  if (name.substr(0, 12) == "__builtin__.") return torch_allows_global("builtins." + std::string(name.substr(12)));
  if (contains(kExact, name)) return true;
  std::string_view rest;
  if (name.substr(0, 11) == "torch.cuda.") rest = name.substr(11);
  else if (name.substr(0, 6) == "torch.") rest = name.substr(6);
  else return false;
  if (rest.find('.') != std::string_view::npos) return false;
  if (name.substr(0, 11) != "torch.cuda." && contains(kDTypes, rest)) return true;
  return (!rest.empty() && is_class(rest, "Storage") && rest != "Storage") ||
         (is_class(rest, "Tensor") && rest != "Tensor");
}

}  // namespace tensor_inspect
