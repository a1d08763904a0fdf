// loaders/gguf_header.cpp — the one GGUF header parser (see gguf_header.hpp).
#include "loaders/gguf_header.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string_view>
#include <unordered_map>

#include "loaders/byte_reader.hpp"
#include "loaders/gguf_metadata.hpp"
#include "loaders/utf8.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

namespace {

constexpr std::uint32_t kGgmlMaxDims = 4;                     // GGML_MAX_DIMS
constexpr std::uint64_t kMinTensorInfoBytes = 8 + 4 + 4 + 8;  // empty name, n_dims 0, type, offset
constexpr std::uint64_t kMinKeyValueBytes = 8 + 4 + 1;        // empty key, type, a u8 value
constexpr std::uint64_t kInt64Max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
// validate reads names up to this length; loading caps them at Limits::gguf_key_bytes.
constexpr std::uint64_t kValidateNameBytes = std::uint64_t{1} << 30;

/// "is not UTF-8" for a name read at file byte `at` (its u64 length), when it is not.
template <typename Place>
void check_utf8(std::string_view name, std::string_view field, std::uint64_t at, const GgufFaults& fault,
                const Place& place) {
  const std::size_t bad = utf8_invalid_at(name);
  if (bad == std::string::npos) return;
  static const char hex[] = "0123456789abcdef";
  const auto c = static_cast<unsigned char>(name[bad]);
  fault({"utf8", place(), at + 8 + bad,
         std::string(field) + " '" + gguf_utf8_or_escaped(name) + "' is not UTF-8 as GGUF requires (byte 0x" +
             hex[c >> 4] + hex[c & 0xF] + ")",
         false});
}

/// Reads the key/values into `h`; false when a fault leaves the rest unreadable.
bool read_metadata(ByteReader& r, std::span<const std::byte> bytes, const GgufFaults& fault, GgufHeader& h) {
  const bool loading = !fault.collecting();
  const std::uint64_t cap = loading ? limits().gguf_key_bytes : kValidateNameBytes;
  const std::string_view limit = loading ? "gguf_key_bytes" : "";
  std::uint64_t elements_left = loading ? limits().gguf_array_elements : std::numeric_limits<std::uint64_t>::max();
  // Keys are views of the file's bytes: nothing is copied to find a duplicate.
  std::unordered_map<std::string_view, std::uint64_t> key_at;
  key_at.reserve(static_cast<std::size_t>(h.kv_count));
  h.kvs.reserve(static_cast<std::size_t>(h.kv_count));
  for (std::uint64_t i = 0; i < h.kv_count; ++i) {
    GgufKeyValue kv;
    kv.at = r.offset();
    kv.key = gguf_read_string(r, "metadata key", cap, limit);
    // Spelled only for a fault: the walk of a good header builds no message.
    auto shown = [&kv] { return gguf_utf8_or_escaped(kv.key); };
    auto place = [&shown] { return "key '" + shown() + "'"; };
    check_utf8(kv.key, "metadata key", kv.at, fault, place);
    const std::string_view view(reinterpret_cast<const char*>(bytes.data()) + kv.at + 8, kv.key.size());
    if (auto [it, fresh] = key_at.emplace(view, kv.at); !fresh)
      fault({"duplicate_key", place(), kv.at,
             "duplicate metadata key '" + shown() + "' (first at byte " + std::to_string(it->second) + ")", false});
    kv.type = r.u32le("metadata value type");
    kv.value_at = r.offset();
    if (kv.type > kGgufFloat64) {
      fault({"value_type", place(), kv.value_at - 4,
             "unknown value type " + std::to_string(kv.type), false, "metadata '" + shown() + "'"});
      return false;  // the value's length is unknown: nothing after it can be read
    }
    if (kv.type == kGgufArray && r.remaining() >= 4) {  // an unknown element type is value_type, as above
      const std::span<const std::byte> field = r.unread().first(4);
      fetch_bytes(field);
      std::uint32_t elem = 0;
      for (int b = 3; b >= 0; --b) elem = (elem << 8) | static_cast<std::uint32_t>(field[static_cast<std::size_t>(b)]);
      if (elem > kGgufFloat64) {
        fault({"value_type", place(), kv.value_at,
               "unknown array element type " + std::to_string(elem), false, "metadata '" + shown() + "'"});
        return false;
      }
    }
    const GgufWalk w = gguf_walk_value(r, kv.type, kv.key, elements_left);
    kv.type_name = w.type;
    kv.count = w.count;
    kv.element = w.element;
    if (kv.type != kGgufArray) {
      ByteReader v(bytes, fault.name());
      v.seek(kv.value_at, "metadata value");
      kv.value = gguf_decode_value(v, kv.type);
    }
    if (kv.key == "general.alignment") {
      if (kv.type != kGgufUint32) {
        fault({"alignment", place(), kv.value_at - 4, "general.alignment is " + kv.type_name + ", not uint32", false});
      } else {
        const auto a = kv.value.get<std::uint64_t>();
        if (a == 0 || (a & (a - 1)) != 0)
          fault({"alignment", place(), kv.value_at, "general.alignment " + std::to_string(a) + " is not a power of two",
                 false});
        else
          h.alignment = a;
      }
    }
    h.kvs.push_back(std::move(kv));
  }
  return true;
}

/// Reads one tensor info; false when a fault leaves the rest unreadable.
bool read_tensor_info(ByteReader& r, const GgufFaults& fault, GgufTensorInfo& t) {
  const bool loading = !fault.collecting();
  const std::uint64_t info_at = r.offset();
  // gguf_read_string's checks and messages, the name left in the file's bytes (no copy).
  const std::uint64_t cap = loading ? limits().gguf_key_bytes : kValidateNameBytes;
  const std::uint64_t length = r.u64le("tensor name length");
  if (length > cap)
    r.fail("tensor name length " + std::to_string(length) + " exceeds the limit of " + std::to_string(cap) +
               (loading ? limit_hint("gguf_key_bytes") : std::string()),
           loading ? "gguf_key_bytes" : "");
  const std::span<const std::byte> name = r.bytes(length, "tensor name");
  t.name_at = name.data();
  const std::string_view name_view(reinterpret_cast<const char*>(name.data()), name.size());
  auto place = [&name_view] { return "tensor '" + gguf_utf8_or_escaped(name_view) + "'"; };  // only for a fault
  check_utf8(name_view, "tensor name", info_at, fault, place);
  const std::uint64_t dims_at = info_at + 8 + name.size();
  const std::uint32_t n_dims = r.u32le("n_dims");
  if (n_dims > kGgmlMaxDims) {
    fault({"n_dims", place(), dims_at,
           "n_dims " + std::to_string(n_dims) + " exceeds GGML_MAX_DIMS (" + std::to_string(kGgmlMaxDims) + ")",
           false, place()});
    return false;  // the dims cannot be skipped safely
  }
  // span: the product of the dimensions over 1. A zero dimension does not excuse the others
  // from the overflow check (as in the .npy loader): the strides of (0, 2**62, 2**62) overflow
  // all the same. ggml's gguf.cpp skips its check for zero elements; we refuse such a shape.
  std::uint64_t numel = 1, span = 1;
  bool dims_ok = true;
  std::uint64_t row = 1;  // the first (innermost) dimension, as dim(0) gives it
  for (std::uint32_t i = 0; i < n_dims; ++i) {
    const std::uint64_t d = r.u64le("dimension");
    if (dims_ok && d > kInt64Max) {
      fault({"dims", place(), r.offset() - 8, "dimension " + std::to_string(d) + " is too large", false, place()});
      dims_ok = false;
    } else if (dims_ok && d > 1 && span > kInt64Max / d) {
      fault({"dims", place(), r.offset() - 8, "element count overflows", false, place()});
      dims_ok = false;
    }
    if (dims_ok) numel *= d, span *= d > 1 ? d : 1;  // numel <= span: no overflow
    if (i == 0) row = std::min(d, kInt64Max);
  }
  const std::uint64_t type_at = r.offset();
  const std::uint32_t type_id = r.u32le("tensor type");
  const GgmlType* const type = ggml_type_from_id(type_id);
  if (!type) {
    fault({"tensor_type", place(), type_at, ggml_unknown_type_reason(type_id), false, place()});
  } else if (row % type->block_elems != 0) {
    fault({"blocks", place(), type_at,
           "row of " + std::to_string(row) + " elements is not a multiple of the " + std::string(type->name) +
               " block size " + std::to_string(type->block_elems),
           false, place()});
  } else if (dims_ok) {
    // The row is whole blocks, so numel is too. Checked: a hostile numel would wrap.
    const std::uint64_t blocks = numel / type->block_elems;
    if (blocks > kInt64Max / type->block_bytes) {
      fault({"dims", place(), dims_at + 4, "byte size overflows", false, place()});
    } else {
      t.size = blocks * type->block_bytes;
    }
  }
  static_cast<void>(r.u64le("tensor offset"));  // read again by offset()
  return true;
}

/// Tensor names unique byte for byte: each repeat is a fault at its info, in file order.
/// One open-addressing table of indices into `tensors`, probed with views of the file's
/// bytes: no node per name, and no sort (sorting 2,000 names that share their "blk.N."
/// prefixes took a quarter of a listing's instructions: 2.6 of 10.2 million, callgrind).
void check_unique_names(const std::vector<GgufTensorInfo>& tensors, const std::byte* base, const GgufFaults& fault) {
  const auto name_of = [&](std::size_t i) { return tensors[i].name(); };
  constexpr std::uint32_t kEmpty = std::numeric_limits<std::uint32_t>::max();
  if (tensors.size() >= kEmpty / 2) {  // unreachable in memory (48 bytes an info), but never a wrong index
    fault({"structure", "header", 8, "over " + std::to_string(kEmpty / 2) + " tensors", false});
    return;
  }
  std::size_t capacity = 16;
  while (capacity < 2 * tensors.size()) capacity *= 2;  // at most half full: short probe runs
  std::vector<std::uint32_t> slots(capacity, kEmpty);
  std::vector<std::pair<std::size_t, std::size_t>> repeats;  // (index, index of the name's first), in file order
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const std::string_view name = name_of(i);
    for (std::size_t s = std::hash<std::string_view>{}(name) & (capacity - 1);; s = (s + 1) & (capacity - 1)) {
      if (slots[s] == kEmpty) {
        slots[s] = static_cast<std::uint32_t>(i);
        break;
      }
      if (name_of(slots[s]) == name) {
        repeats.emplace_back(i, slots[s]);
        break;
      }
    }
  }
  for (const auto& [k, first] : repeats) {
    const std::string shown = gguf_utf8_or_escaped(tensors[k].name());
    fault({"duplicate_tensor", "tensor '" + shown + "'", tensors[k].info_at(base),
           "duplicate tensor name '" + shown + "' (first at byte " + std::to_string(tensors[first].info_at(base)) + ")",
           false});
  }
}

/// Each sized tensor's data against the file: aligned, inside, and no two overlapping.
void check_data(GgufHeader& h, std::span<const std::byte> bytes, const GgufFaults& fault) {
  const std::uint64_t size = bytes.size();
  std::vector<const GgufTensorInfo*> inside;
  bool in_order = true;  // the offsets of `inside` do not decrease
  for (const GgufTensorInfo& t : h.tensors) {
    auto place = [&t] { return "tensor '" + gguf_utf8_or_escaped(t.name()) + "'"; };  // only for a fault
    const std::uint64_t offset = t.offset(), nbytes = t.nbytes();
    if (offset % h.alignment != 0)
      fault({"offset_alignment", place(), t.info_at(bytes.data()),
             "data offset " + std::to_string(offset) + " is not a multiple of the alignment " +
                 std::to_string(h.alignment),
             false, place()});
    if (!t.sized()) continue;
    if (h.data_start > size || offset > size - h.data_start || nbytes > size - h.data_start - offset) {
      const bool addable = offset <= std::numeric_limits<std::uint64_t>::max() - h.data_start;
      fault({"bounds", place(), t.info_at(bytes.data()),
             "data [" +
                 (addable ? std::to_string(h.data_start + offset)
                          : std::to_string(h.data_start) + " + " + std::to_string(offset)) +
                 ", +" + std::to_string(nbytes) + ") runs past the end of the file (" + std::to_string(size) +
                 " bytes)",
             false, place()});
      continue;
    }
    in_order = in_order && (inside.empty() || inside.back()->offset() <= offset);
    inside.push_back(&t);
  }
  // Writers lay the data out in the infos' order, so the sort is mostly not needed (each
  // offset() reads the info's fields again).
  if (!in_order)
    std::stable_sort(inside.begin(), inside.end(),
                     [](const GgufTensorInfo* a, const GgufTensorInfo* b) { return a->offset() < b->offset(); });
  const GgufTensorInfo* covered_by = nullptr;
  std::uint64_t covered = 0;
  for (const GgufTensorInfo* t : inside) {
    const std::uint64_t offset = t->offset(), nbytes = t->nbytes();
    if (covered_by && offset < covered) {
      const std::string place = "tensor '" + gguf_utf8_or_escaped(t->name()) + "'";
      fault({"overlap", place, t->info_at(bytes.data()),
             "data at offset " + std::to_string(offset) + " overlaps tensor '" +
                 gguf_utf8_or_escaped(covered_by->name()) + "' (" + std::to_string(covered_by->offset()) + " + " +
                 std::to_string(covered_by->nbytes()) + " bytes)",
             false, place});
    }
    if (!covered_by || offset + nbytes > covered) {
      covered = offset + nbytes;
      covered_by = t;
    }
  }
}

void parse(std::span<const std::byte> bytes, const GgufFaults& fault, GgufHeader& h) {
  ByteReader r(bytes, fault.name());
  const auto magic = r.bytes(4, "magic");
  if (std::memcmp(magic.data(), "GGUF", 4) != 0) {
    fault({"magic", "header", 0, "bad magic (expected \"GGUF\")", false});
    return;
  }
  h.version = r.u32le("version");
  const std::uint32_t v = h.version;
  const std::uint32_t swapped = (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
  // gguf.md: a big-endian file (llama.cpp's --bigendian) writes every field so, the version
  // too; valid GGUF that the tool does not read (a warning in validate).
  if (v == 1) {
    fault({"version", "header", 4,
           "GGUF version 1 is not supported (it used 32-bit counts; convert the file with a newer llama.cpp)", false},
          ErrorCode::Unsupported);
    return;
  }
  if (swapped == 2 || swapped == 3) {
    fault({"unsupported", "header", 4, "big-endian GGUF is not supported", true}, ErrorCode::Unsupported);
    return;
  }
  if (v != 2 && v != 3) {
    fault({"version", "header", 4, "GGUF version " + std::to_string(v) + " is not supported (only 2 and 3)", false},
          ErrorCode::Unsupported);
    return;
  }
  h.tensor_count = r.u64le("tensor count");
  h.kv_count = r.u64le("metadata count");
  // Counts the bytes left cannot hold: the file is cut short (or lies), validate's "structure".
  if (h.tensor_count > r.remaining() / kMinTensorInfoBytes) {
    fault({"structure", "header", 8, "tensor count " + std::to_string(h.tensor_count) + " cannot fit in the file",
           false});
    return;
  }
  if (h.kv_count > r.remaining() / kMinKeyValueBytes) {
    fault({"structure", "header", 16, "metadata count " + std::to_string(h.kv_count) + " cannot fit in the file",
           false});
    return;
  }
  if (!read_metadata(r, bytes, fault, h)) return;

  h.tensors.reserve(static_cast<std::size_t>(h.tensor_count));
  for (std::uint64_t i = 0; i < h.tensor_count; ++i) {
    GgufTensorInfo t;
    const bool more = read_tensor_info(r, fault, t);
    if (more) h.tensors.push_back(std::move(t));
    if (!more || i + 1 == h.tensor_count) check_unique_names(h.tensors, bytes.data(), fault);
    if (!more) return;
  }
  // The data section starts at the next multiple of the alignment (maybe past the end of
  // a file with no tensor data).
  h.infos_end = r.offset();
  h.data_start = (h.infos_end + h.alignment - 1) / h.alignment * h.alignment;
  h.complete = true;
  check_data(h, bytes, fault);
}

}  // namespace

GgufHeader parse_gguf_header(std::span<const std::byte> bytes, const GgufFaults& fault) {
  GgufHeader h;
  if (!fault.collecting()) {
    parse(bytes, fault, h);
    return h;
  }
  try {
    parse(bytes, fault, h);
  } catch (const Error& e) {  // a truncated field: nothing after it can be read
    h.stopped = e.what();
  }
  return h;
}

}  // namespace tensor_inspect
