// validate/gguf.cpp — every rule of GGUF (ggml docs/gguf.md, and what ggml's gguf.cpp
// refuses), layout as in loaders/gguf.cpp:
//   1. magic "GGUF"; version 2 or 3 (1 had 32-bit counts);
//   2. metadata: keys non-empty, UTF-8 and unique, value types 0..12, bools 0 or 1, arrays of a
//      valid type; `general.alignment` a uint32 power of two;
//   3. tensor infos: names UTF-8, unique (byte for byte) and at most 63 bytes (GGML_MAX_NAME), at most 4 dims, a
//      known ggml type, the first dim a multiple of the type's block, the offset a
//      multiple of the alignment, the data inside the file and no two tensors overlapping;
//   4. nothing after the last tensor's data but its padding to the alignment (a warning).
// A fault that leaves the rest unreadable (a truncated key) ends the check there.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "decode/ggml_types.hpp"
#include "loaders/byte_reader.hpp"
#include "loaders/utf8.hpp"
#include "validate/findings.hpp"

namespace tensor_inspect::validate {
namespace {

enum : std::uint32_t { U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 };
constexpr std::uint64_t kMaxString = std::uint64_t{1} << 30;
constexpr std::uint64_t kMaxCount = std::uint64_t{1} << 32;

std::uint64_t fixed_size(std::uint32_t type) {
  switch (type) {
    case U8: case I8: case BOOL: return 1;
    case U16: case I16: return 2;
    case U32: case I32: case F32: return 4;
    case U64: case I64: case F64: return 8;
    default: return 0;
  }
}

std::string read_string(ByteReader& r, std::string_view field) {
  const std::uint64_t n = r.u64le(field);
  return r.string(n, field, kMaxString);
}

// A name (key or tensor) at `at` (its u64 length) that is not UTF-8 is a finding at the bad byte.
void check_utf8(const std::string& name, const std::string& place, std::uint64_t at, Findings& f) {
  if (const std::size_t bad = utf8_invalid_at(name); bad != std::string::npos)
    f.error("utf8", place, at + 8 + bad, "the name is not UTF-8 (byte " + std::to_string(bad) + " of it); GGUF strings are UTF-8");
}

struct Tensor {
  std::string name;
  std::uint64_t offset, nbytes, info_at;
};

// Reads one value of `type`, recording bad bools and bad array types. Returns the u32
// value for U32 (general.alignment) when asked.
void read_value(ByteReader& r, std::uint32_t type, const std::string& key, Findings& f, int depth,
                std::optional<std::uint64_t>* u32_out) {
  const std::string place = "key '" + key + "'";
  if (type == STRING) {
    (void)read_string(r, "string value");
  } else if (type == ARRAY) {
    const std::uint64_t at = r.offset();
    const std::uint32_t elem = r.u32le("array type");
    const std::uint64_t count = r.u64le("array count");
    if (elem > F64) {
      f.error("value_type", place, at, "array element type " + std::to_string(elem) + " is not a GGUF type (0..12)");
      throw Error(ErrorCode::BadFile, "cannot read past an array of an unknown type");
    }
    if (depth >= 4) throw Error(ErrorCode::BadFile, place + ": arrays nested deeper than 4");
    if (count > kMaxCount) throw Error(ErrorCode::BadFile, place + ": array count " + std::to_string(count) + " is implausible");
    if (const std::uint64_t sz = fixed_size(elem); sz && elem != BOOL) {
      r.skip(checked_mul(sz, count, r.name(), "array size"), "array values");
    } else {
      for (std::uint64_t i = 0; i < count; ++i) read_value(r, elem, key, f, depth + 1, nullptr);
    }
  } else if (type == BOOL) {
    const std::uint64_t at = r.offset();
    const std::uint8_t b = r.u8("bool value");
    if (b > 1) f.error("bool", place, at, "bool value " + std::to_string(b) + " is neither 0 nor 1");
  } else if (type == U32 && u32_out) {
    *u32_out = r.u32le("uint32 value");
  } else {
    r.skip(fixed_size(type), "value");
  }
}

}  // namespace

void check_gguf(std::span<const std::byte> bytes, Findings& f) {
  ByteReader r(bytes, "GGUF");
  const auto magic = r.bytes(4, "magic");
  if (std::memcmp(magic.data(), "GGUF", 4) != 0) {
    f.error("magic", "header", 0, "the file does not start with \"GGUF\"");
    return;
  }
  const std::uint32_t version = r.u32le("version");
  // gguf.md: a big-endian file (llama.cpp's --bigendian) writes every field so, the version
  // too; it is valid GGUF that the loader does not read, and its fields read little-endian
  // would be nonsense: say so once, as the loader does.
  const std::uint32_t swapped = (version >> 24) | ((version >> 8) & 0xFF00u) | ((version << 8) & 0xFF0000u) | (version << 24);
  if (swapped == 2 || swapped == 3) {
    f.warning("unsupported", "header", 4, "big-endian GGUF is not supported (version " + std::to_string(swapped) +
                                              " read big-endian): the tool cannot open this file");
    return;
  }
  if (version != 2 && version != 3) {
    f.error("version", "header", 4, "version " + std::to_string(version) + " (this tool reads GGUF versions 2 and 3)");
    if (version < 2 || version > 3) return;
  }
  const std::uint64_t tensor_count = r.u64le("tensor count");
  const std::uint64_t kv_count = r.u64le("metadata count");
  if (tensor_count > kMaxCount || kv_count > kMaxCount) {
    f.error("count", "header", 8, "tensor count " + std::to_string(tensor_count) + " or metadata count " +
                                      std::to_string(kv_count) + " is implausible");
    return;
  }
  std::map<std::string, std::uint64_t> key_at;
  std::uint64_t alignment = 32;
  for (std::uint64_t i = 0; i < kv_count; ++i) {
    const std::uint64_t at = r.offset();
    const std::string key = read_string(r, "metadata key");
    const std::string place = "key '" + key + "'";
    check_utf8(key, place, at, f);
    if (key.empty()) f.error("key_empty", "metadata " + std::to_string(i), at, "metadata key " + std::to_string(i) + " is empty");
    if (auto [it, fresh] = key_at.emplace(key, at); !fresh)
      f.error("duplicate_key", place, at, place + " appears again (first at byte " + std::to_string(it->second) + ")");
    const std::uint64_t type_at = r.offset();
    const std::uint32_t type = r.u32le("value type");
    if (type > F64) {
      f.error("value_type", place, type_at, "value type " + std::to_string(type) + " is not a GGUF type (0..12)");
      return;  // the value's length is unknown: nothing after it can be read
    }
    std::optional<std::uint64_t> u32;
    read_value(r, type, key, f, 0, key == "general.alignment" ? &u32 : nullptr);
    if (key == "general.alignment") {
      if (type != U32) f.error("alignment", place, type_at, "general.alignment has type " + std::to_string(type) + ", not uint32 (4)");
      else if (*u32 == 0 || (*u32 & (*u32 - 1)) != 0)
        f.error("alignment", place, type_at + 4, "general.alignment " + std::to_string(*u32) + " is not a power of two");
      else alignment = *u32;
    }
  }
  std::vector<Tensor> tensors;
  std::map<std::string, std::uint64_t> name_at;
  for (std::uint64_t i = 0; i < tensor_count; ++i) {
    const std::uint64_t at = r.offset();
    const std::string name = read_string(r, "tensor name");
    const std::string place = "tensor '" + name + "'";
    check_utf8(name, place, at, f);
    if (auto [it, fresh] = name_at.emplace(name, at); !fresh)
      f.error("duplicate_tensor", place, at, place + " appears again (first at byte " + std::to_string(it->second) + ")");
    if (name.size() >= 64) f.error("name_length", place, at, "the name is " + std::to_string(name.size()) + " bytes; GGML_MAX_NAME allows 63");
    const std::uint64_t dims_at = r.offset();
    const std::uint32_t n_dims = r.u32le("n_dims");
    if (n_dims > 4) {
      f.error("n_dims", place, dims_at, "n_dims " + std::to_string(n_dims) + " exceeds 4 (GGML_MAX_DIMS)");
      return;  // the dims cannot be skipped safely
    }
    std::vector<std::uint64_t> dims(n_dims);
    std::uint64_t numel = 1;
    bool overflow = false;
    for (auto& d : dims) {
      d = r.u64le("dim");
      if (d != 0 && numel > (std::uint64_t{1} << 62) / d) overflow = true;
      else numel *= d;
    }
    if (overflow) f.error("dims", place, dims_at + 4, "the dims overflow 2^62 elements");
    const std::uint64_t type_at = r.offset();
    const std::uint32_t type = r.u32le("tensor type");
    const std::uint64_t off_at = r.offset();
    const std::uint64_t offset = r.u64le("tensor offset");
    const GgmlType* t = ggml_type_from_id(type);
    if (!t) {
      f.error("tensor_type", place, type_at, ggml_unknown_type_reason(type));
    } else if (!t->dtype && !t->dequantizable) {  // the loader refuses it as unsupported
      f.warning("unsupported", place, type_at, "ggml type " + std::string(t->name) + " (" + std::to_string(type) +
                                                   ") is one this tool cannot dequantize: the tool cannot open this tensor");
    }
    if (t && (dims.empty() ? 1 : dims[0]) % t->block_elems != 0) {
      f.error("blocks", place, dims_at + 4, "the first dim " + std::to_string(dims.empty() ? 1 : dims[0]) + " is not a multiple of " +
                                                std::string(t->name) + "'s block of " + std::to_string(t->block_elems));
    }
    if (offset % alignment != 0)
      f.error("offset_alignment", place, off_at, "offset " + std::to_string(offset) + " is not a multiple of the alignment " +
                                                     std::to_string(alignment));
    if (t && !overflow)
      tensors.push_back({name, offset, numel / t->block_elems * t->block_bytes, at});
  }
  const std::uint64_t data_start = (r.offset() + alignment - 1) / alignment * alignment;
  if (tensor_count == 0) {
    if (bytes.size() > data_start)
      f.warning("trailing", "data", data_start, std::to_string(bytes.size() - data_start) +
                                                    " bytes after the header's padding, in a file of no tensor");
    return;
  }
  if (data_start > bytes.size()) {
    f.error("bounds", "data", data_start, "the data section would start at byte " + std::to_string(data_start) +
                                              ", past the end of the file (" + std::to_string(bytes.size()) + " bytes)");
    return;
  }
  const std::uint64_t data_len = bytes.size() - data_start;
  std::sort(tensors.begin(), tensors.end(), [](const Tensor& a, const Tensor& b) { return a.offset < b.offset; });
  std::uint64_t covered = 0;
  std::string covered_by;
  for (const Tensor& x : tensors) {
    const std::string place = "tensor '" + x.name + "'";
    if (x.offset > data_len || x.nbytes > data_len - x.offset)
      f.error("bounds", place, data_start + x.offset,
              "data [" + std::to_string(x.offset) + ", " + std::to_string(x.offset + x.nbytes) +
                  ") runs past the end of the data section (" + std::to_string(data_len) + " bytes)");
    if (x.offset < covered && x.nbytes != 0)
      f.error("overlap", place, data_start + x.offset,
              "data at offset " + std::to_string(x.offset) + " overlaps tensor '" + covered_by + "' (up to " + std::to_string(covered) + ")");
    if (x.offset + x.nbytes > covered) {
      covered = x.offset + x.nbytes;
      covered_by = x.name;
    }
  }
  // gguf-py pads every tensor's data, the last one's too, to the alignment; ggml's reader
  // stops there. More is nobody's: a warning, as readers ignore it (npy.trailing too).
  const std::uint64_t padded_end = covered + (alignment - covered % alignment) % alignment;
  if (tensors.size() == tensor_count && padded_end < data_len)
    f.warning("trailing", "data", data_start + padded_end,
              std::to_string(data_len - padded_end) + " bytes after the last tensor's data (" +
                  (covered_by.empty() ? std::string("none holds a byte") : "tensor '" + covered_by + "', up to " + std::to_string(covered)) +
                  ", padded to the alignment " + std::to_string(alignment) + ") belong to no tensor");
}

}  // namespace tensor_inspect::validate
