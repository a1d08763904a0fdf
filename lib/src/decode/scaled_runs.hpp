// decode/scaled_runs.hpp — the inner loops of the packed schemes' decoders (schemes/): a run of
// codes that share one scale (and zero point), decoded and scaled into float32. Each is a plain
// scalar formula, run eight lanes at a time on AVX2 with the same float32 operations, so the bits
// never depend on the path (tests/unit/scaled_runs_test.cpp checks both against the formula).
//
//   fp8_e4m3_scaled(codes, 128, scale_inv, out);               // out[k] = e4m3(codes[k]) * scale
//   packed4_scaled(qweight + 4 * r, out_features, i, 128, zero, scale, out);   // GPTQ's codes
#pragma once

#include <cstddef>
#include <cstdint>

namespace tensor_inspect {

/// out[k] = fp8_e4m3_table()[codes[k]] * scale for k < n (DeepSeek-V3's x.to(float32) * s).
void fp8_e4m3_scaled(const std::byte* codes, std::int64_t n, float scale, float* out);

/// 4-bit fields of little-endian 32-bit words `stride` words apart: field f is bits [4 * (f % 8),
/// 4 * (f % 8) + 4) of word f / 8. out[k] = scale * float(field(first + k) - zero) for k < n
/// (GPTQ's scales * (weight - zeros) along one output's inputs).
void packed4_scaled(const std::byte* words, std::int64_t stride, std::int64_t first, std::int64_t n, std::int32_t zero,
                    float scale, float* out);

}  // namespace tensor_inspect
