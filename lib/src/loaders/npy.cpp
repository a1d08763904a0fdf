// loaders/npy.cpp — NumPy's .npy format (NEP 1; numpy/lib/format.py).
//
// Byte layout:
//   1. magic, 6 bytes: "\x93NUMPY"
//   2. version, 2 bytes: major, minor; 1.0, 2.0 or 3.0
//   3. header length, little-endian: u16 in 1.0, u32 in 2.0 and 3.0
//   4. header, that many bytes: a Python dict literal with exactly the keys 'descr',
//      'fortran_order' and 'shape', e.g. {'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }
//      latin-1 in 1.0 and 2.0, UTF-8 in 3.0; padded with spaces and ended by '\n' so the
//      data starts aligned (64 bytes since numpy 1.16, 16 in older writers)
//   5. data: prod(shape) * itemsize bytes in the descr's byte order, row-major, or
//      column-major when fortran_order is True. Bytes after them are ignored, as numpy does.
//
// The header is parsed by npy_header.cpp (the parser validate uses too) through py_literal.cpp,
// a strict reader of Python literals (str, int, bool, None, tuple, list, dict), never evaluated. Structured descrs (a
// list of fields) parse and are then refused, as are dtypes tinygrad has no counterpart for (complex, strings, ...).
#include <algorithm>
#include <bit>
#include <cctype>
#include <cstring>
#include <vector>

#include "loaders/byte_reader.hpp"
#include "loaders/formats.hpp"
#include "loaders/npy_header.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

namespace {

constexpr unsigned char kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/// A dtype name numpy.dtype() accepts besides the descr strings ("<f4").
struct NumpyName {
  std::string_view name;
  DType dtype;
};
constexpr NumpyName kNumpyNames[] = {
    {"bool", DType::Bool},        {"bool_", DType::Bool},         {"int8", DType::Int8},
    {"byte", DType::Int8},        {"uint8", DType::UInt8},        {"ubyte", DType::UInt8},
    {"int16", DType::Int16},      {"short", DType::Int16},        {"uint16", DType::UInt16},
    {"ushort", DType::UInt16},    {"int32", DType::Int32},        {"intc", DType::Int32},
    {"uint32", DType::UInt32},    {"uintc", DType::UInt32},       {"int64", DType::Int64},
    {"int", DType::Int64},        {"int_", DType::Int64},         {"long", DType::Int64},
    {"longlong", DType::Int64},   {"intp", DType::Int64},         {"l", DType::Int64},
    {"p", DType::Int64},          {"uint64", DType::UInt64},      {"uint", DType::UInt64},
    {"ulong", DType::UInt64},     {"ulonglong", DType::UInt64},   {"uintp", DType::UInt64},
    {"L", DType::UInt64},         {"P", DType::UInt64},           {"float16", DType::Float16},
    {"half", DType::Float16},     {"float32", DType::Float32},    {"single", DType::Float32},
    {"float64", DType::Float64},  {"double", DType::Float64},     {"float", DType::Float64},
    {"float_", DType::Float64},
};

/// A numpy descr string split into byte order and dtype.
struct Descr {
  DType dtype;
  bool big_endian;
};

// Kinds numpy writes that tinygrad has no dtype for, by the descr's type character.
std::string unsupported_kind(char c, std::string_view size) {
  switch (c) {
    case 'c': return "complex";
    case 'O': return "object";
    case 'S': case 'a': return "bytes string";
    case 'U': return "unicode string";
    case 'V': return "void";
    case 'M': return "datetime64";
    case 'm': return "timedelta64";
    case 'f': return size == "16" || size == "12" ? "long double" : "";
    default: return "";
  }
}

}  // namespace

std::optional<std::string> npy_unsupported_descr(std::string_view s) {
  for (const NumpyName& n : kNumpyNames)
    if (s == n.name || (s.size() == 2 && n.name.size() == 1 && std::strchr("<>=|!", s[0]) && s[1] == n.name[0]))
      return std::nullopt;
  if (s == "longdouble" || s == "float128" || s == "g") return "long double dtype";
  if (s == "object" || s == "str" || s == "bytes" || s == "complex") return "dtype";
  if (!s.empty() && std::strchr("<>=|!", s[0]) != nullptr) s.remove_prefix(1);
  if (s.empty()) return std::nullopt;
  const std::string_view size = s.substr(1);
  const std::string kind = unsupported_kind(s[0], size.substr(0, size.find('[')));  // datetime units: "M8[ns]"
  if (kind.empty()) return std::nullopt;
  return kind + " dtype";
}

namespace {

/// Parses a descr like "<f8", "|b1", ">i2" (kind + itemsize, as dtype.str writes them) or a
/// one-character code ("<f", "?"), after numpy's dtype(). Throws Error(Unsupported) for
/// complex, object, string, void and datetime dtypes, Error(BadFile) for unknown ones.
Descr parse_descr(const PyValue& v, const std::string& name) {
  std::string_view s = v.str;
  const auto at = " at byte " + std::to_string(v.at);
  bool big = std::endian::native == std::endian::big;
  // np.load passes a str descr to numpy.dtype(), which also takes dtype names ('float32',
  // 'int') and the C type codes with no struct format here ('l', 'p'); names take no
  // byte-order prefix. Sizes are numpy's on LP64 Linux (np.dtype('int').str == '<i8').
  for (const NumpyName& n : kNumpyNames)
    if (s == n.name || (s.size() == 2 && n.name.size() == 1 && std::strchr("<>=|!", s[0]) && s[1] == n.name[0])) {
      if (s.size() == 2) big = s[0] == '>' || s[0] == '!' || (s[0] != '<' && big);
      return {n.dtype, big && dtype_info(n.dtype).itemsize > 1};
    }
  if (const std::optional<std::string> kind = npy_unsupported_descr(s))
    throw Error(ErrorCode::Unsupported, name + ": " + *kind + " " + py_str_repr(v.str) + " is not supported" + at);
  if (!s.empty() && std::strchr("<>=|!", s[0]) != nullptr) {
    if (s[0] == '<') big = false;
    if (s[0] == '>' || s[0] == '!') big = true;
    s.remove_prefix(1);
  }
  for (std::size_t i = 0; i < kDTypeCount; ++i) {
    const DTypeInfo& info = dtype_info(static_cast<DType>(i));
    if (is_weak(info.dtype)) continue;
    const bool by_kind = !info.numpy_kind.empty() && s == info.numpy_kind;
    const bool by_char = s.size() == 1 && info.fmt != 0 && s[0] == info.fmt && !info.numpy_kind.empty();
    if (by_kind || by_char) return {info.dtype, big && info.itemsize > 1};
  }
  throw Error(ErrorCode::BadFile, name + ": header: 'descr' " + py_str_repr(v.str) + " is not a numpy dtype" + at);
}


}  // namespace

bool sniff_npy(std::span<const std::byte> head) {
  return head.size() >= sizeof kMagic && std::memcmp(head.data(), kMagic, sizeof kMagic) == 0;
}

namespace {

// open_npy; without `check_data`, over a header alone (npy_stream_length); with
// `keep_unsupported`, a dtype it cannot show makes an entry without one (open_npy_member).
LoadedFile read_npy(std::shared_ptr<const MappedFile> file, bool check_data, bool keep_unsupported = false) {
  const std::string& name = file->name();
  // 1-4: magic, version, header length, the header dict (loaders/npy_header.cpp).
  const NpyFaults stop(name);
  const NpyPrefix prefix = read_npy_prefix(file->bytes(), 0, stop);
  const std::uint64_t data_at = prefix.data_pos;
  const NpyHeader header = read_npy_dict(file->bytes(), 0, prefix, stop);
  const PyValue& dict = header.dict;
  const PyValue& descr = *header.find("descr");
  const PyValue& shape_value = *header.find("shape");
  const Shape& shape = header.shape;
  auto bad = [&](const std::string& what, std::uint64_t at) -> Error {
    return Error(ErrorCode::BadFile, name + ": header: " + what + " at byte " + std::to_string(at));
  };
  LoadedFile loaded;
  loaded.path = name;
  loaded.format = "npy";
  loaded.file = file;
  for (std::size_t i = 0; i < dict.items.size(); i += 2)
    loaded.metadata.push_back({dict.items[i].str, py_type_name(dict.items[i + 1]), py_to_json(dict.items[i + 1])});
  Descr d{};
  try {
    if (descr.kind == PyValue::Kind::List)
      throw Error(ErrorCode::Unsupported, name + ": structured dtype " + py_repr(descr) + " is not supported at byte " +
                                              std::to_string(descr.at));
    if (descr.kind != PyValue::Kind::Str)
      throw Error(ErrorCode::Unsupported, name + ": dtype " + py_repr(descr) + " is not supported at byte " +
                                              std::to_string(descr.at));
    d = parse_descr(descr, name);
  } catch (const Error& err) {
    if (!keep_unsupported || err.code() != ErrorCode::Unsupported) throw;
    // Listed with its stored type and no dtype, as GGUF and safetensors list theirs; the
    // data is the rest of the file (an object array's is a pickle, of no fixed size).
    TensorEntry entry;
    entry.stored_type = descr.kind == PyValue::Kind::Str ? descr.str : py_repr(descr);
    entry.shape = shape;
    entry.offset = data_at;
    entry.nbytes = file->size() - data_at;
    entry.details_for_write().loader = [why = std::string(err.what())]() -> Tensor {
      throw Error(ErrorCode::Unsupported, why);
    };
    loaded.tensors.push_back(std::move(entry));
    return loaded;
  }
  const std::uint64_t itemsize = dtype_info(d.dtype).itemsize;

  // 5: the data. Zero dimensions do not excuse the others from the overflow check: the
  // strides of (0, 2**62, 2**62) overflow all the same.
  std::uint64_t numel = 1, span = itemsize;
  for (std::int64_t dim : shape) {
    const auto u = static_cast<std::uint64_t>(dim);
    numel *= u;  // cannot overflow: bounded by span below
    if (u > 1 && span > static_cast<std::uint64_t>(INT64_MAX) / u)
      throw bad("shape " + py_repr(shape_value) + " of " + descr.str + " is too large: its byte size overflows",
                shape_value.at);
    if (u > 1) span *= u;
  }
  const std::uint64_t nbytes = numel * itemsize;
  const std::uint64_t data_len = file->size() - data_at;
  if (check_data && data_len < nbytes)
    throw Error(ErrorCode::BadFile, name + ": data at byte " + std::to_string(data_at) + " is " +
                                        std::to_string(data_len) + " bytes, shape " + py_repr(shape_value) + " of " +
                                        descr.str + " needs " + std::to_string(nbytes));

  const bool swap = d.big_endian != (std::endian::native == std::endian::big);
  const bool column_major = header.fortran_order && shape.size() > 1;
  Shape stored_shape(shape.rbegin(), shape.rend());
  if (!column_major) stored_shape = shape;

  TensorEntry entry;
  entry.name = "";
  entry.stored_type = descr.str;
  entry.dtype = d.dtype;
  entry.shape = shape;
  entry.details_for_write().stored_shape = stored_shape;
  entry.offset = data_at;
  entry.nbytes = nbytes;
  if (swap)
    entry.note = d.big_endian ? "big-endian, converted to native order" : "little-endian, converted to native order";
  if (column_major) entry.note += (entry.note.empty() ? "" : "; ") + std::string("Fortran order, converted to C order");
  const DType dtype = d.dtype;
  entry.details_for_write().loader = [file, data_at, nbytes, dtype, stored_shape, swap, column_major]() {
    Tensor t = tensor_from_stored(Buffer::disk(file, data_at, nbytes), dtype, stored_shape, swap);
    if (column_major) {
      std::vector<std::int64_t> order(stored_shape.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int64_t>(order.size() - 1 - i);
      t = t.permute(order);
    }
    return t;
  };

  loaded.tensors.push_back(std::move(entry));
  return loaded;
}

}  // namespace

LoadedFile open_npy(std::shared_ptr<const MappedFile> file) { return read_npy(std::move(file), true); }
LoadedFile open_npy_member(std::shared_ptr<const MappedFile> file) { return read_npy(std::move(file), true, true); }

std::uint64_t npy_header_end(std::span<const std::byte> head) {
  if (head.size() < 12) return 0;
  const auto byte = [&](std::size_t i) { return static_cast<std::uint64_t>(head[i]); };
  return byte(6) == 1 ? 10 + (byte(8) | byte(9) << 8) : 12 + (byte(8) | byte(9) << 8 | byte(10) << 16 | byte(11) << 24);
}

std::optional<std::uint64_t> npy_stream_length(std::span<const std::byte> so_far, const std::string& name) {
  if (so_far.size() < 12) return std::nullopt;
  const std::uint64_t header_end = npy_header_end(so_far);
  const bool v1 = static_cast<std::uint8_t>(so_far[6]) == 1;
  if (header_end - (v1 ? 10 : 12) > limits().npy_header_bytes) return so_far.size();  // the loader names the cap
  if (so_far.size() < header_end) return std::nullopt;
  try {
    const std::span<const std::byte> header = so_far.first(static_cast<std::size_t>(header_end));
    const LoadedFile f =
        read_npy(MappedFile::from_bytes(std::vector<std::byte>(header.begin(), header.end()), name), false);
    return f.tensors.at(0).offset + f.tensors.at(0).nbytes;
  } catch (const Error&) {
    return so_far.size();  // a header the loader refuses: it says why, over the same bytes
  }
}

}  // namespace tensor_inspect
