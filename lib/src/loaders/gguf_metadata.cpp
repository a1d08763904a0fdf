// loaders/gguf_metadata.cpp — GGUF metadata values (see gguf_metadata.hpp).
#include "loaders/gguf_metadata.hpp"

#include <cstring>
#include <limits>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"
#include "loaders/utf8.hpp"

namespace tensor_inspect {

namespace {

constexpr int kMaxArrayDepth = 4;

enum GgufType : std::uint32_t {
  U8 = 0, I8 = 1, U16 = 2, I16 = 3, U32 = 4, I32 = 5, F32 = 6, BOOL = 7, STRING = 8, ARRAY = 9,
  U64 = 10, I64 = 11, F64 = 12,
};
constexpr std::string_view kTypeNames[] = {"uint8", "int8",  "uint16", "int16",  "uint32", "int32", "float32",
                                           "bool",  "string", "array", "uint64", "int64",  "float64"};
constexpr std::uint64_t kTypeMinSize[] = {1, 1, 2, 2, 4, 4, 4, 1, 8, 12, 8, 8, 8};

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

std::string gguf_read_name(ByteReader& r, std::string_view field, std::uint64_t cap, std::string_view limit) {
  std::string s = gguf_read_string(r, field, cap, limit);
  if (const std::size_t bad = utf8_invalid_at(s); bad != std::string::npos) {
    static const char hex[] = "0123456789abcdef";
    const auto c = static_cast<unsigned char>(s[bad]);
    r.fail_at(std::string(field) + " '" + gguf_utf8_or_escaped(s) + "' is not UTF-8 as GGUF requires (byte 0x" + hex[c >> 4] + hex[c & 0xF] + ")",
              r.offset() - s.size() + bad);
  }
  return s;
}

std::string gguf_read_string(ByteReader& r, std::string_view field, std::uint64_t cap, std::string_view limit) {
  const std::uint64_t n = r.u64le(std::string(field) + " length");
  return r.string(n, field, cap, limit);
}

std::string gguf_type_name(std::uint32_t type) {
  return type < std::size(kTypeNames) ? std::string(kTypeNames[type]) : "type " + std::to_string(type);
}

namespace {

nlohmann::ordered_json read_value(ByteReader& r, std::uint32_t type, const std::string& key, int depth,
                                  std::string& type_out, std::uint64_t& elements_left);

nlohmann::ordered_json read_array(ByteReader& r, const std::string& key, int depth, std::string& type_out,
                                  std::uint64_t& elements_left) {
  const std::uint64_t at = r.offset();
  if (depth >= kMaxArrayDepth)
    r.fail("metadata '" + key + "': arrays nested deeper than " + std::to_string(kMaxArrayDepth));
  const std::uint32_t elem = r.u32le("array element type");
  if (elem > F64) r.fail_at("metadata '" + key + "': unknown array element type " + std::to_string(elem), at);
  const std::uint64_t count = r.u64le("array count");
  if (count > r.remaining() / kTypeMinSize[elem])
    r.fail_at("metadata '" + key + "': array of " + std::to_string(count) + " " + gguf_type_name(elem) +
                  (count == 1 ? " element" : " elements") + " does not fit in the " + std::to_string(r.remaining()) + " bytes left",
              at);
  if (count > elements_left)
    r.fail_at("metadata '" + key + "': array of " + std::to_string(count) + (count == 1 ? " element" : " elements") +
                  " goes over the limit of " + std::to_string(limits().gguf_array_elements) + " array elements in all metadata" +
                  limit_hint("gguf_array_elements"),
              at);
  elements_left -= count;
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  arr.get_ref<nlohmann::ordered_json::array_t&>().reserve(static_cast<std::size_t>(count));
  std::string inner = gguf_type_name(elem);
  for (std::uint64_t i = 0; i < count; ++i) arr.push_back(read_value(r, elem, key, depth + 1, inner, elements_left));
  type_out = "array[" + inner + "]";
  return arr;
}

nlohmann::ordered_json read_value(ByteReader& r, std::uint32_t type, const std::string& key, int depth,
                                  std::string& type_out, std::uint64_t& elements_left) {
  type_out = gguf_type_name(type);
  switch (type) {
    case U8: return r.u8("uint8 value");
    case I8: return static_cast<std::int8_t>(r.u8("int8 value"));
    case U16: return r.u16le("uint16 value");
    case I16: return static_cast<std::int16_t>(r.u16le("int16 value"));
    case U32: return r.u32le("uint32 value");
    case I32: return static_cast<std::int32_t>(r.u32le("int32 value"));
    case U64: return r.u64le("uint64 value");
    case I64: return static_cast<std::int64_t>(r.u64le("int64 value"));
    case F32: {
      const std::uint32_t bits = r.u32le("float32 value");
      float v = 0;
      std::memcpy(&v, &bits, 4);
      return static_cast<double>(v);
    }
    case F64: {
      const std::uint64_t bits = r.u64le("float64 value");
      double v = 0;
      std::memcpy(&v, &bits, 8);
      return v;
    }
    case BOOL: return r.u8("bool value") != 0;
    case STRING: return gguf_utf8_or_escaped(gguf_read_string(r, "string value", std::numeric_limits<std::uint64_t>::max()));
    case ARRAY: return read_array(r, key, depth, type_out, elements_left);
    default: break;
  }
  r.fail_at("metadata '" + key + "': unknown value type " + std::to_string(type), r.offset() - 4);
}

}  // namespace

nlohmann::ordered_json gguf_read_value(ByteReader& r, std::uint32_t type, const std::string& key, std::string& type_out,
                                       std::uint64_t& elements_left) {
  return read_value(r, type, key, 0, type_out, elements_left);
}

}  // namespace tensor_inspect
