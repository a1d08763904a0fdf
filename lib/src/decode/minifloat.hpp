// decode/minifloat.hpp — the small float formats of the OCP Microscaling (MX) spec v1.0 and
// NVIDIA's FP4 checkpoints, decoded to float32: E8M0 (a power-of-two scale), FP4 E2M1,
// FP6 E2M3 and E3M2, and a 256-entry table for fp8 E4M3 built from dtype.cpp's conversion.
//
//   float s = e8m0_to_float(0x7F);                         // 1.0f (2^(127-127))
//   float v = fp4_e2m1_to_float(0x7);                      // 6.0f
//   decode_fp4_range(bytes, first, out);                   // safetensors F4: low nibble first
//
// Each scalar function is the reference the block loops are tested against; the loops read
// a table, never a function per element.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace tensor_inspect {

/// E8M0 (OCP MX v1.0 §5.4.1, torch.float8_e8m0fnu): 2^(e - 127); 0xFF is NaN; no sign, no zero.
float e8m0_to_float(std::uint8_t bits);
/// FP4 E2M1 (OCP MX v1.0 §5.3.3): sign, 2 exponent bits (bias 1), 1 mantissa bit; the low
/// 4 bits of `nibble` are read. Values 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives.
float fp4_e2m1_to_float(std::uint8_t nibble);
/// FP6 E2M3 (OCP MX v1.0 §5.3.2): sign, 2 exponent bits (bias 1), 3 mantissa bits; the low 6 bits.
float fp6_e2m3_to_float(std::uint8_t code);
/// FP6 E3M2 (OCP MX v1.0 §5.3.2): sign, 3 exponent bits (bias 3), 2 mantissa bits; the low 6 bits.
float fp6_e3m2_to_float(std::uint8_t code);

/// The 16 FP4 E2M1 values by code, for block loops.
const std::array<float, 16>& fp4_e2m1_table();
/// The 256 fp8 E4M3 (e4m3fn: no inf, 0x7F/0xFF NaN) values by code, from dtype.cpp's fp8_to_double.
const std::array<float, 256>& fp8_e4m3_table();
/// The 256 E8M0 values by code.
const std::array<float, 256>& e8m0_table();

/// Elements [first, first + out.size()) of E8M0 bytes `src` (one element per byte).
void decode_e8m0_range(std::span<const std::byte> src, std::int64_t first, std::span<float> out);
/// Elements [first, first + out.size()) of packed FP4 E2M1 `src`, two per byte, element 2k
/// in the low nibble of byte k and 2k+1 in the high nibble (torch.float4_e2m1fn_x2, as
/// safetensors' F4 and transformers' convert_moe_packed_tensors read them).
void decode_fp4_range(std::span<const std::byte> src, std::int64_t first, std::span<float> out);

}  // namespace tensor_inspect
