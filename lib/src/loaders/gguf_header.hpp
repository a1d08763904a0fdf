// loaders/gguf_header.hpp — the one parser of a GGUF header (ggml docs/gguf.md, versions
// 2 and 3, little-endian), for loading and for validate, with byte offsets kept.
//
// Byte layout:
//   1. magic "GGUF" (4 bytes),
//   2. version: u32 (2 or 3; version 1 had 32-bit counts and is refused),
//   3. tensor_count: u64, then metadata_kv_count: u64,
//   4. metadata key/values: key (u64 length + bytes), value type u32, value; types
//      UINT8=0 INT8=1 UINT16=2 INT16=3 UINT32=4 INT32=5 FLOAT32=6 BOOL=7 STRING=8
//      ARRAY=9 (element type u32, count u64, elements) UINT64=10 INT64=11 FLOAT64=12,
//   5. tensor infos: name (string), n_dims u32 (<= 4, GGML_MAX_DIMS), dims u64 each
//      (innermost first), ggml type u32, offset u64 relative to the data section,
//   6. padding to `general.alignment` (u32, a power of two, default 32),
//   7. the data section; each tensor's offset is a multiple of the alignment.
//
// Two policies over the same walk: loading stops at the first fault (Error(BadFile), or
// Error(Unsupported) for what the tool does not read), validate collects every fault as
// a finding and reads on where the layout allows. Both name the same file byte for the
// same fault. Metadata arrays are walked, not decoded (gguf_metadata.hpp).
//
//   GgufFaults stop("model.gguf");                          // loading: throws
//   GgufHeader h = parse_gguf_header(file->bytes(), stop, file);
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "decode/ggml_types.hpp"
#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

/// One fault of a GGUF header, as validate records it.
struct GgufFault {
  std::string rule;     ///< validate's rule name without "gguf.": "duplicate_key", "bounds"
  std::string place;    ///< "header", "key 'k'", "tensor 't'", "data"
  std::uint64_t at;     ///< file byte
  std::string message;  ///< what is wrong, without the file name, subject and byte
  bool warning;         ///< valid GGUF the tool cannot read (big-endian)
  std::string subject = {};  ///< what loading names before the message: "tensor 't'", "metadata 'k'"
};

/// The policy: the first fault throws (loading), or every fault goes to a sink (validate).
class GgufFaults {
 public:
  /// Loading: a fault throws Error(BadFile) (or `code`) "<name>: [<subject>: ]<message> at byte <at>".
  explicit GgufFaults(std::string name) : name_(std::move(name)) {}
  /// Validate: every fault goes to `sink`; the tool's own caps (Limits) do not apply.
  GgufFaults(std::string name, std::function<void(const GgufFault&)> sink)
      : name_(std::move(name)), sink_(std::move(sink)) {}
  bool collecting() const { return static_cast<bool>(sink_); }
  const std::string& name() const { return name_; }
  /// Reports a fault; returns only when collecting.
  void operator()(const GgufFault& f, ErrorCode code = ErrorCode::BadFile) const {
    if (sink_) return sink_(f);
    throw Error(code, name_ + ": " + (f.subject.empty() ? "" : f.subject + ": ") + f.message + " at byte " +
                          std::to_string(f.at));
  }

 private:
  std::string name_;
  std::function<void(const GgufFault&)> sink_;
};

/// One metadata key/value as read.
struct GgufKeyValue {
  std::string key;
  std::uint64_t at = 0;        ///< file byte of the key's length
  std::uint32_t type = 0;      ///< value type id
  std::uint64_t value_at = 0;  ///< file byte of the value
  std::string type_name;       ///< "uint32", "array[string]"
  nlohmann::ordered_json value;  ///< scalars and strings; null for an array
  std::uint64_t count = 0;     ///< items, for an array
  std::uint32_t element = 0;   ///< element type id, for an array
};

/// One tensor info as read, before its data is checked: 16 bytes, nothing on the heap. A
/// header of 2,000 tensors is 32 KB of these, 8 fresh pages a listing touches (48 bytes
/// each took 24, 96 bytes 47): every field but the byte size is read again from the parsed
/// bytes when asked (the name's length, n_dims, the dims, the type id and the offset lie
/// side by side after the name), which the caller keeps while it uses the header. File
/// bytes (`info_at` and the later fields') are counted from `base`, the first byte of the
/// span the parser read.
struct GgufTensorInfo {
  const std::byte* name_at = nullptr;  ///< the name's first byte in the parsed span
  /// The data's byte size; kUnsized when the type is unknown, a row is not whole blocks or
  /// the dims or the byte size overflow (each a fault the parser reported).
  std::uint64_t size = kUnsized;
  static constexpr std::uint64_t kUnsized = ~std::uint64_t{0};

  /// Type known, dims and byte size in range: nbytes() holds.
  bool sized() const { return size != kUnsized; }
  /// The data's byte size (0 when not sized()).
  std::uint64_t nbytes() const { return sized() ? size : 0; }
  std::uint64_t name_size() const { return le(name_at - 8, 8); }
  /// The name's bytes, as stored.
  std::string_view name() const { return {reinterpret_cast<const char*>(name_at), name_size()}; }
  /// <= 4 (GGML_MAX_DIMS: the parser keeps no info of more).
  std::uint32_t n_dims() const { return static_cast<std::uint32_t>(le(name_at + name_size(), 4)); }
  /// Dimension `k` < n_dims, innermost first, as stored (above 2**63 - 1: that, which the
  /// parser reported as a fault).
  std::int64_t dim(std::size_t k) const {
    const std::uint64_t d = le(name_at + name_size() + 4 + 8 * k, 8);
    return static_cast<std::int64_t>(d > kMaxDim ? kMaxDim : d);
  }
  /// The ggml type id, as stored.
  std::uint32_t type_id() const { return static_cast<std::uint32_t>(le(type_field(), 4)); }
  /// The ggml type of type_id(); nullptr for an id ggml does not define.
  const GgmlType* type() const { return ggml_type_from_id(type_id()); }
  /// The data's offset, relative to the data section.
  std::uint64_t offset() const { return le(type_field() + 4, 8); }
  /// File bytes of the info (its name's length) and of its later fields.
  std::uint64_t info_at(const std::byte* base) const { return static_cast<std::uint64_t>(name_at - base) - 8; }
  std::uint64_t dims_at(const std::byte* base) const { return info_at(base) + 8 + name_size(); }
  std::uint64_t type_at(const std::byte* base) const { return static_cast<std::uint64_t>(type_field() - base); }
  /// The dims as stored, innermost first.
  Shape stored() const {
    Shape s(n_dims());
    for (std::size_t k = 0; k < s.size(); ++k) s[k] = dim(k);
    return s;
  }

 private:
  static constexpr std::uint64_t kMaxDim = 0x7FFFFFFFFFFFFFFFull;
  const std::byte* type_field() const {
    const std::uint64_t n = name_size();
    return name_at + n + 4 + 8 * le(name_at + n, 4);
  }
  /// The little-endian unsigned integer of `n` (4 or 8) bytes at `p` (GGUF's byte order).
  static std::uint64_t le(const std::byte* p, int n) {
    if constexpr (std::endian::native == std::endian::little) {
      std::uint64_t v = 0;
      std::memcpy(&v, p, static_cast<std::size_t>(n));
      return v;
    } else {
      std::uint64_t v = 0;
      for (int i = n - 1; i >= 0; --i) v = (v << 8) | std::to_integer<std::uint64_t>(p[i]);
      return v;
    }
  }
};

/// What the parser read. `complete` is false when a collecting parse stopped early at a
/// fault that leaves the rest unreadable (then the later fields are partial).
struct GgufHeader {
  std::uint32_t version = 0;
  std::uint64_t tensor_count = 0, kv_count = 0;
  std::vector<GgufKeyValue> kvs;
  std::vector<GgufTensorInfo> tensors;
  std::uint64_t alignment = 32;  ///< GGUF_DEFAULT_ALIGNMENT unless general.alignment says
  std::uint64_t infos_end = 0;   ///< file byte after the last tensor info
  std::uint64_t data_start = 0;  ///< infos_end rounded up to the alignment
  bool complete = false;
  std::string stopped;  ///< collecting: the Error that ended the walk early (a truncated field), else ""
};

/// Parses a GGUF header from `bytes` (a whole file), reporting faults to `faults`:
/// structure, metadata values (walked, not decoded: arrays stay in the file), tensor
/// infos, byte sizes through checked arithmetic, then each tensor's data against the file
/// (alignment, bounds, overlap). A truncated field throws Error(BadFile) when loading;
/// collecting, it ends the walk and is kept in `stopped`.
GgufHeader parse_gguf_header(std::span<const std::byte> bytes, const GgufFaults& faults);

}  // namespace tensor_inspect
