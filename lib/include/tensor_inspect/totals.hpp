// tensor_inspect/totals.hpp — what a listing ends with: the tensor count, the parameter count and the
// bytes stored, in all and by stored type, from the header alone (no tensor data read).
//
//   Totals t = totals_of(file.tensors);
//   out.write(totals_text(t) + "\n");   // "7,000 parameters, 28.00 kB: float32 28.00 kB (3 tensors)"
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

/// The tensors of one stored type.
struct TypeTotal {
  std::string type;  ///< the dtype name ("bfloat16"), or the stored type of a quantized or undecodable tensor ("Q4_K")
  std::uint64_t tensors = 0;
  std::uint64_t parameters = 0;  ///< elements (a quantized tensor: its logical elements)
  std::uint64_t nbytes = 0;      ///< bytes as stored in the file
};

/// Totals of a file's tensors. Tensors whose layout is unknown (a shard that cannot be read)
/// count in `tensors` and `unknown` only.
struct Totals {
  std::uint64_t tensors = 0, parameters = 0, nbytes = 0, unknown = 0;
  std::vector<TypeTotal> by_type;  ///< most bytes first, then by type name
};

/// The stored type a tensor counts under: its dtype's name, or where the stored bytes are not
/// that dtype's elements (a GGUF block-quantized tensor, a safetensors F8_E8M0/F4, a quantization
/// scheme's logical tensor, one whose values cannot be decoded) the stored type the listing shows.
std::string_view stored_type_of(const TensorEntry& e);
/// Sums the entries' header facts.
Totals totals_of(const std::vector<TensorEntry>& entries);
/// totals_of the file's tensors, its entries or the rows of a header read in place.
Totals totals_of(const LoadedFile& file);
/// Bytes for people, in decimal units: "60 B", "4.94 kB", "16.06 GB".
std::string human_bytes(std::uint64_t n);
/// An integer with thousands separators: "8,030,261,248".
std::string grouped(std::uint64_t n);
/// One line, no newline: "N parameters, BYTES: TYPE BYTES (K tensors), ..." (and the
/// tensors of unknown size, if any).
std::string totals_text(const Totals& t);
/// {"tensors", "parameters", "nbytes", "unknown", "by_type": [{"type", "tensors", "parameters", "nbytes"}]}.
nlohmann::ordered_json totals_json(const Totals& t);

}  // namespace tensor_inspect
