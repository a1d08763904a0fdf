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
//   for (std::size_t i = 0; ...) h.tensors[i].name, .stored_type, .shape; h.data_offsets[i]
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

/// What the header holds, in header order. Each tensor is read straight into the entry the
/// loader hands out: its name, its dtype tag as stored_type ("F32", "BF16") and its shape
/// as the header states them (sizes not yet checked against the dtype); the other fields
/// are left for the loader. Nothing else is kept per tensor but its data_offsets.
struct SafetensorsHeader {
  std::vector<TensorEntry> tensors;
  /// data_offsets [begin, end) of tensors[i], bytes relative to the byte buffer, unchecked.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> data_offsets;
  std::vector<std::pair<std::string, std::string>> metadata;  ///< __metadata__
};

/// Parses `text` (the header bytes; text[0] is file byte `base`). Throws Error(BadFile)
/// "<file>: ..." for invalid JSON or UTF-8 "(what) at byte N", a header that is not one
/// object, entries that are not {"dtype", "shape", "data_offsets"} objects with a string,
/// a list of non-negative integers and a list of two, non-string metadata, duplicate keys,
/// nesting deeper than Limits::json_depth, and trailing bytes.
SafetensorsHeader parse_safetensors_header(std::string_view text, const std::string& file, std::uint64_t base);

}  // namespace tensor_inspect
