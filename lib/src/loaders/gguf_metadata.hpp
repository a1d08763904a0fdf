// loaders/gguf_metadata.hpp — GGUF metadata values (ggml docs/gguf.md, "Standardized
// key-value pairs"): typed scalars, length-prefixed strings and arrays.
//
// The header parser walks each value once, checking it and allocating nothing per array
// element (a 128k-token vocabulary is 128k strings); scalars and strings are decoded to
// JSON there, arrays stay in the file as a MetaArray (gguf_array) decoded when asked.
//
//   std::uint64_t left = limits().gguf_array_elements;
//   const std::uint64_t at = r.offset();
//   GgufWalk w = gguf_walk_value(r, type, key, left);        // r now past the value
//   auto items = gguf_array(file, at, w.count, type)->items(0, 3);
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "loaders/byte_reader.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

/// gguf.md's value type ids (`enum gguf_metadata_value_type`).
enum GgufValueType : std::uint32_t {
  kGgufUint8 = 0, kGgufInt8 = 1, kGgufUint16 = 2, kGgufInt16 = 3, kGgufUint32 = 4, kGgufInt32 = 5,
  kGgufFloat32 = 6, kGgufBool = 7, kGgufString = 8, kGgufArray = 9, kGgufUint64 = 10, kGgufInt64 = 11,
  kGgufFloat64 = 12,
};

/// Python's bytes.decode("utf-8", "backslashreplace"): valid UTF-8 is kept, each byte of
/// an invalid sequence becomes "\xNN", so the string is always valid JSON text.
std::string gguf_utf8_or_escaped(std::string_view s);
/// A GGUF string: u64 length, then that many bytes; Error(BadFile) past `cap` bytes,
/// naming the Limits field `limit` when given.
std::string gguf_read_string(ByteReader& r, std::string_view field, std::uint64_t cap, std::string_view limit = {});
/// The gguf.md name of a value type ("uint32", "array"), or "type N" for unknown ids.
std::string gguf_type_name(std::uint32_t type);

/// What walking one value found.
struct GgufWalk {
  std::string type;              ///< "uint32", "array[string]", "array[array[int32]]"
  std::uint64_t count = 0;       ///< items, for an array
  std::uint32_t element = 0;     ///< element type id, for an array
};

/// Walks one value of `type` for metadata `key` without decoding it, leaving `r` after it.
/// Array elements are taken from `elements_left` (start it at Limits::gguf_array_elements,
/// or at UINT64_MAX for no cap). Throws Error(BadFile) naming the key and byte for an
/// unknown type, arrays nested too deep, counts that cannot fit in the bytes left or go
/// over the budget, and a truncated value.
GgufWalk gguf_walk_value(ByteReader& r, std::uint32_t type, const std::string& key, std::uint64_t& elements_left);

/// Decodes one value of `type` that gguf_walk_value accepted (numbers as JSON numbers,
/// strings through gguf_utf8_or_escaped, arrays as JSON arrays).
nlohmann::ordered_json gguf_decode_value(ByteReader& r, std::uint32_t type);

/// The array whose element type field is at file byte `at` of `file`, walked before
/// (`count` items of type `element`), as a MetaArray decoding items on request.
std::shared_ptr<const MetaArray> gguf_array(std::shared_ptr<const MappedFile> file, std::uint64_t at,
                                            std::uint64_t count, std::uint32_t element);

}  // namespace tensor_inspect
