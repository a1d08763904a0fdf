// loaders/gguf_metadata.cpp — GGUF metadata values (see gguf_metadata.hpp).
#include "loaders/gguf_metadata.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"
#include "loaders/utf8.hpp"
#include "buffer/mapped_read.hpp"

namespace tensor_inspect {

namespace {

constexpr int kMaxArrayDepth = 4;
constexpr std::string_view kTypeNames[] = {"uint8", "int8",  "uint16", "int16",  "uint32", "int32", "float32",
                                           "bool",  "string", "array", "uint64", "int64",  "float64"};
constexpr std::uint64_t kTypeMinSize[] = {1, 1, 2, 2, 4, 4, 4, 1, 8, 12, 8, 8, 8};
// A remote file's bytes are fetched this far ahead of a string walk (its block size).
constexpr std::uint64_t kFetchStep = 64 * 1024;

/// The size of a value of a fixed-size type; 0 for string and array.
std::uint64_t fixed_size(std::uint32_t type) {
  return type == kGgufString || type == kGgufArray || type > kGgufFloat64 ? 0 : kTypeMinSize[type];
}

std::uint64_t le64(const std::byte* p) {
  std::uint64_t v = 0;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(&v, p, 8);
  } else {
    for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<std::uint64_t>(p[i]);
  }
  return v;
}

/// Skips `count` strings in place: one bounds check per string, nothing allocated. A
/// string that does not fit is read again by gguf_read_string, whose Error names it. Past
/// its first 512 KiB, a walk of a local file reads the lengths through a window copied with
/// pread (buffer/mapped_read.hpp), not through the mapping: a Llama-3 vocabulary and its
/// merges are 8.4 MB, 2,100 pages the walk would otherwise map for the 8 bytes of each
/// string's length. Shorter walks map their pages: the window's 4 fresh stack pages and a
/// syscall a window cost about what mapping 512 KiB does (8 faults of 16 pages).
void skip_strings(ByteReader& r, std::uint64_t count) {
  const std::span<const std::byte> rest = r.unread();
  const std::uint64_t n = rest.size();
  std::uint64_t pos = 0, fetched = 0, done = 0;
  auto want = [&](std::uint64_t upto) {
    if (upto <= fetched) return;
    const std::uint64_t to = std::min(n, std::max(upto, fetched + kFetchStep));
    fetch_bytes(rest.subspan(static_cast<std::size_t>(fetched), static_cast<std::size_t>(to - fetched)));
    fetched = to;
  };
  constexpr std::uint64_t kWindow = 16 << 10;  // 16 KiB: the copy stays in the L1/L2 cache
  alignas(8) std::byte window[kWindow];
  constexpr std::uint64_t kCopiedFrom = 512 << 10;
  std::uint64_t window_at = 0, window_size = 0;
  bool copied = false, copyable = count > 1;
  for (; done < count; ++done) {
    if (n - pos < 8) break;
    if ((copied || (copyable && pos >= kCopiedFrom)) && (pos < window_at || pos + 8 > window_at + window_size)) {
      window_at = pos;
      window_size = std::min(kWindow, n - pos);
      copied = copyable = read_mapped(rest.data() + pos, std::span(window, static_cast<std::size_t>(window_size)));
    }
    if (!copied) want(pos + 8);
    const std::uint64_t len = le64(copied ? window + (pos - window_at) : rest.data() + pos);
    if (len > n - pos - 8) break;
    if (!copied) want(pos + 8 + len);
    pos += 8 + len;
  }
  r.skip(pos, "string values");
  for (; done < count; ++done) (void)gguf_read_string(r, "string value", std::numeric_limits<std::uint64_t>::max());
}

GgufWalk walk(ByteReader& r, std::uint32_t type, const std::string& key, int depth, std::uint64_t& elements_left) {
  GgufWalk w;
  w.type = gguf_type_name(type);
  if (const std::uint64_t size = fixed_size(type)) {
    r.skip(size, w.type + " value");
    return w;
  }
  if (type == kGgufString) {
    skip_strings(r, 1);
    return w;
  }
  if (type != kGgufArray)
    r.fail_at("metadata '" + key + "': unknown value type " + std::to_string(type), r.offset() - 4);
  const std::uint64_t at = r.offset();
  if (depth >= kMaxArrayDepth)
    r.fail("metadata '" + key + "': arrays nested deeper than " + std::to_string(kMaxArrayDepth));
  const std::uint32_t elem = r.u32le("array element type");
  if (elem > kGgufFloat64) r.fail_at("metadata '" + key + "': unknown array element type " + std::to_string(elem), at);
  const std::uint64_t count = r.u64le("array count");
  if (count > r.remaining() / kTypeMinSize[elem])
    r.fail_at("metadata '" + key + "': array of " + std::to_string(count) + " " + gguf_type_name(elem) +
                  (count == 1 ? " element" : " elements") + " does not fit in the " + std::to_string(r.remaining()) +
                  " bytes left",
              at);
  if (count > elements_left)
    r.fail_at("metadata '" + key + "': array of " + std::to_string(count) + (count == 1 ? " element" : " elements") +
                  " goes over the limit of " + std::to_string(limits().gguf_array_elements) +
                  " array elements in all metadata" + limit_hint("gguf_array_elements"),
              at, "gguf_array_elements");
  elements_left -= count;
  w.count = count;
  w.element = elem;
  std::string inner = gguf_type_name(elem);
  if (const std::uint64_t size = fixed_size(elem)) {
    r.skip(count * size, "array values");  // count * size fits in the bytes left (checked above)
  } else if (elem == kGgufString) {
    skip_strings(r, count);
  } else {
    for (std::uint64_t i = 0; i < count; ++i) inner = walk(r, elem, key, depth + 1, elements_left).type;
  }
  w.type = "array[" + inner + "]";
  return w;
}

/// A GGUF array in the file's bytes, decoded item by item when asked.
class GgufArray final : public MetaArray {
 public:
  GgufArray(std::shared_ptr<const MappedFile> file, std::uint64_t at, std::uint64_t count, std::uint32_t element)
      : file_(std::move(file)), at_(at), count_(count), element_(element) {}
  std::uint64_t size() const override { return count_; }
  nlohmann::ordered_json items(std::uint64_t first, std::uint64_t count) const override {
    first = std::min(first, count_);
    count = std::min(count, count_ - first);
    ByteReader r(file_->bytes(), file_->name());
    r.seek(at_ + 12, "array values");  // after the element type (u32) and count (u64)
    if (const std::uint64_t size = fixed_size(element_)) {
      r.seek(r.pos() + first * size, "array values");  // inside the walked array
    } else if (element_ == kGgufString) {
      skip_strings(r, first);
    } else {
      std::uint64_t unlimited = std::numeric_limits<std::uint64_t>::max();
      for (std::uint64_t i = 0; i < first; ++i) (void)walk(r, element_, "", 1, unlimited);
    }
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    out.get_ref<nlohmann::ordered_json::array_t&>().reserve(static_cast<std::size_t>(count));
    for (std::uint64_t i = 0; i < count; ++i) out.push_back(gguf_decode_value(r, element_));
    return out;
  }

 private:
  std::shared_ptr<const MappedFile> file_;
  std::uint64_t at_, count_;
  std::uint32_t element_;
};

}  // namespace

/// Python's bytes.decode("utf-8", "backslashreplace"): valid UTF-8 is kept, each byte of
/// an invalid sequence becomes "\xNN", so the string is always valid JSON text.
std::string gguf_utf8_or_escaped(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    if (const std::size_t len = utf8_sequence_length(s, i)) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      static const char hex[] = "0123456789abcdef";
      const auto c = static_cast<unsigned char>(s[i]);
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 0xF];
      ++i;
    }
  }
  return out;
}

std::string gguf_read_string(ByteReader& r, std::string_view field, std::uint64_t cap, std::string_view limit) {
  const std::uint64_t n = r.u64le(std::string(field) + " length");
  return r.string(n, field, cap, limit);
}

std::string gguf_type_name(std::uint32_t type) {
  return type < std::size(kTypeNames) ? std::string(kTypeNames[type]) : "type " + std::to_string(type);
}

GgufWalk gguf_walk_value(ByteReader& r, std::uint32_t type, const std::string& key, std::uint64_t& elements_left) {
  return walk(r, type, key, 0, elements_left);
}

nlohmann::ordered_json gguf_decode_value(ByteReader& r, std::uint32_t type) {
  switch (type) {
    case kGgufUint8: return r.u8("uint8 value");
    case kGgufInt8: return static_cast<std::int8_t>(r.u8("int8 value"));
    case kGgufUint16: return r.u16le("uint16 value");
    case kGgufInt16: return static_cast<std::int16_t>(r.u16le("int16 value"));
    case kGgufUint32: return r.u32le("uint32 value");
    case kGgufInt32: return static_cast<std::int32_t>(r.u32le("int32 value"));
    case kGgufUint64: return r.u64le("uint64 value");
    case kGgufInt64: return static_cast<std::int64_t>(r.u64le("int64 value"));
    case kGgufFloat32: {
      const std::uint32_t bits = r.u32le("float32 value");
      float v = 0;
      std::memcpy(&v, &bits, 4);
      return static_cast<double>(v);
    }
    case kGgufFloat64: {
      const std::uint64_t bits = r.u64le("float64 value");
      double v = 0;
      std::memcpy(&v, &bits, 8);
      return v;
    }
    case kGgufBool: return r.u8("bool value") != 0;
    case kGgufString:
      return gguf_utf8_or_escaped(gguf_read_string(r, "string value", std::numeric_limits<std::uint64_t>::max()));
    case kGgufArray: {
      const std::uint32_t elem = r.u32le("array element type");
      const std::uint64_t count = r.u64le("array count");
      nlohmann::ordered_json arr = nlohmann::ordered_json::array();
      for (std::uint64_t i = 0; i < count; ++i) arr.push_back(gguf_decode_value(r, elem));
      return arr;
    }
    default: break;
  }
  r.fail_at("unknown value type " + std::to_string(type), r.offset() - 4);
}

std::shared_ptr<const MetaArray> gguf_array(std::shared_ptr<const MappedFile> file, std::uint64_t at,
                                            std::uint64_t count, std::uint32_t element) {
  return std::make_shared<GgufArray>(std::move(file), at, count, element);
}

}  // namespace tensor_inspect
