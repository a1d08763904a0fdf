// loaders/gguf_metadata.hpp — GGUF metadata values (ggml docs/gguf.md, "Standardized
// key-value pairs"): typed scalars, length-prefixed strings and arrays, read through a
// ByteReader into JSON for the metadata listing.
//
//   std::uint64_t left = limits().gguf_array_elements;
//   std::string type;
//   nlohmann::ordered_json v = gguf_read_value(r, r.u32le("type"), key, type, left);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "loaders/byte_reader.hpp"

namespace tensor_inspect {

/// The value type id of a uint32 (general.alignment must have it).
constexpr std::uint32_t kGgufUint32 = 4;

/// Python's bytes.decode("utf-8", "backslashreplace"): valid UTF-8 is kept, each byte of
/// an invalid sequence becomes "\xNN", so the string is always valid JSON text.
std::string gguf_utf8_or_escaped(std::string_view s);
/// A GGUF string: u64 length, then that many bytes; Error(BadFile) past `cap` bytes,
/// naming the Limits field `limit` when given.
std::string gguf_read_string(ByteReader& r, std::string_view field, std::uint64_t cap, std::string_view limit = {});
/// A GGUF string that names something (a metadata key, a tensor): as gguf_read_string,
/// and Error(BadFile) at the first byte that is not UTF-8 (gguf.md: "UTF-8 encoded").
/// Names are kept as their bytes and never escaped, so two distinct names stay distinct
/// and a name reads the same in a listing, in --name and in a diff.
std::string gguf_read_name(ByteReader& r, std::string_view field, std::uint64_t cap, std::string_view limit = {});
/// The gguf.md name of a value type ("uint32", "array"), or "type N" for unknown ids.
std::string gguf_type_name(std::uint32_t type);
/// Reads one value of `type` for metadata `key`; sets `type_out` ("uint32",
/// "array[string]") and takes array elements from `elements_left` (start it at
/// Limits::gguf_array_elements: each element costs a JSON value in memory). Throws Error(BadFile)
/// naming the key and byte for an unknown type, arrays nested too deep, or counts that
/// cannot fit in the bytes left or go over the element budget.
nlohmann::ordered_json gguf_read_value(ByteReader& r, std::uint32_t type, const std::string& key, std::string& type_out,
                                       std::uint64_t& elements_left);

}  // namespace tensor_inspect
