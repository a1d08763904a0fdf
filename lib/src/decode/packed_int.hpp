// decode/packed_int.hpp — unsigned fields packed into little-endian 32-bit words, as GPTQ,
// AWQ and compressed-tensors pack their 2/4/8-bit codes: field k of a word is bits
// [k*bits, (k+1)*bits).
//
//   std::uint32_t q = packed_field(words, 7, 4, 3);   // 4-bit field 3 of word 7
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tensor_inspect {

/// Field `field` (of `bits` bits) of 32-bit little-endian word `word` of `words`.
inline std::uint32_t packed_field(const std::byte* words, std::int64_t word, int bits, std::int64_t field) {
  std::uint32_t w;
  std::memcpy(&w, words + 4 * word, 4);
  return (w >> (static_cast<std::uint32_t>(bits) * static_cast<std::uint32_t>(field))) & ((1u << bits) - 1u);
}

}  // namespace tensor_inspect
