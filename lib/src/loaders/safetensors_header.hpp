// loaders/safetensors_header.hpp — the JSON header of a safetensors file, read in one
// pass over the mapped bytes into its entries, with no JSON document built.
//
// The header is the reference implementation's HashMetadata (huggingface/safetensors,
// tensor.rs): an object of tensor name -> {"dtype": str, "shape": [uint], "data_offsets":
// [uint, uint]} (other fields ignored, as serde does) plus an optional "__metadata__"
// object of str -> str (or null). JSON whitespace may pad it before and after (writers
// align the data section); anything else after the closing '}' (NUL bytes) is refused,
// as serde_json::from_str refuses trailing characters. Nesting is three levels; values
// of unknown fields may nest up to Limits::json_depth. Duplicate keys are refused.
//
//   SafetensorsHeader h = parse_safetensors_header(text, "x.safetensors", 8);
//   for (const SafetensorsInfo& t : h.tensors) ... t.name, t.dtype, h.shape(t), t.begin, t.end
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tensor_inspect {

/// One tensor entry as the header states it (sizes not yet checked against the dtype).
/// The strings are views of the header text (which must outlive them), or of
/// SafetensorsHeader::decoded where the JSON string held escapes.
struct SafetensorsInfo {
  std::string_view name;
  std::string_view dtype;   ///< the tag: "F32", "BF16", ...
  std::size_t dims_at = 0;  ///< the shape is SafetensorsHeader::dims[dims_at, dims_at + ndim)
  std::size_t ndim = 0;
  std::uint64_t begin = 0;  ///< data_offsets, relative to the byte buffer
  std::uint64_t end = 0;
};

/// What the header holds, in header order. Nothing is allocated per tensor: the
/// entries, their dimensions and the (rare) decoded strings each live in one container.
struct SafetensorsHeader {
  std::vector<SafetensorsInfo> tensors;
  std::vector<std::int64_t> dims;  ///< every tensor's shape, one after the other
  std::vector<std::pair<std::string, std::string>> metadata;  ///< __metadata__
  std::deque<std::string> decoded;  ///< names and tags that had escapes (a deque: views stay valid)

  /// The shape of `t` (row-major, outermost first).
  std::span<const std::int64_t> shape(const SafetensorsInfo& t) const { return {dims.data() + t.dims_at, t.ndim}; }
};

/// Parses `text` (the header bytes; text[0] is file byte `base`). Throws Error(BadFile)
/// "<file>: ..." for invalid JSON or UTF-8 "(what) at byte N", a header that is not one
/// object, entries that are not {"dtype", "shape", "data_offsets"} objects with a string,
/// a list of non-negative integers and a list of two, non-string metadata, duplicate keys,
/// nesting deeper than Limits::json_depth, and trailing bytes.
SafetensorsHeader parse_safetensors_header(std::string_view text, const std::string& file, std::uint64_t base);

}  // namespace tensor_inspect
