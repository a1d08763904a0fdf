// decode/half.hpp — the scalar conversions of the 16- and 8-bit float encodings to float32,
// inline for the block loops of every reader: IEEE float16 (exact, branch-free), bfloat16
// (a shift) and fp8 (a 256-entry table). The double-returning forms of the public API
// (float16_to_double, fp8_to_double, ...) are in decode/half.cpp.
//
//   float f = half_to_float(0x3c00);                 // 1.0f
//   float g = fp8_table(DType::FP8E4M3)[0x7e];       // 448.0f
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "tensor_inspect/dtype.hpp"

namespace tensor_inspect {

/// IEEE half to float, exact: the exponent and mantissa shifted into float position and
/// scaled by 2^112 (which also normalizes subnormals); inf and nan keep their payload.
inline float half_to_float(std::uint16_t h) {
  const std::uint32_t bits16 = h, em = bits16 & 0x7fffu;
  std::uint32_t bits = std::bit_cast<std::uint32_t>(std::bit_cast<float>(em << 13) * 0x1p112f);
  bits = em >= 0x7c00u ? (0x7f800000u | (em & 0x3ffu) << 13) : bits;
  return std::bit_cast<float>(bits | (bits16 & 0x8000u) << 16);
}

/// bfloat16 is the top half of a float32: widening is a shift.
inline float bfloat16_to_float(std::uint16_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }

/// A little-endian IEEE half at `p` (any alignment), as float.
inline float half_at(const std::uint8_t* p) {
  return half_to_float(static_cast<std::uint16_t>(p[0] | (p[1] << 8)));
}

/// Every fp8 code of `dtype` (FP8E4M3 or FP8E5M2) as float, indexed by the byte.
const std::array<float, 256>& fp8_table(DType dtype);

}  // namespace tensor_inspect
