// decode/scaled_runs.hpp — the inner loops of the packed schemes' decoders (schemes/): a run of
// codes that share one scale (and zero point), decoded and scaled into float32. Each is a plain
// scalar formula, run eight lanes at a time on AVX2 with the same float32 operations, so the bits
// never depend on the path (tests/unit/scaled_runs_test.cpp checks both against the formula).
//
//   fp8_e4m3_scaled(codes, 128, scale_inv, out);               // out[k] = e4m3(codes[k]) * scale
//   packed4_scaled(qweight + 4 * r, out_features, i, 128, zero, scale, out);   // GPTQ's codes
//   packed_scaled(strip_row, 4, i, 128, zero, scale, out);                     // the same, contiguous
//   packed_grouped(strip_row, 4, i, n, g_idx, row_scales, row_zeros, out);    // act-order
//   field_scaled(strip_row, 12, 4, 128, zero, scale, out);                     // AWQ: one field a word
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

/// Fields of `bits` (2, 4 or 8) bits packed in contiguous little-endian 32-bit words (any alignment): field f
/// is bits [bits * (f % p), bits * (f % p + 1)) of word f / p, p = 32 / bits. out[k] = scale *
/// float(field(first + k) - zero) for k < n (GPTQ's scales * (weight - zeros) along one output's
/// inputs, from a strip of its qweight).
void packed_scaled(const std::byte* words, int bits, std::int64_t first, std::int64_t n, std::int32_t zero,
                   float scale, float* out);

/// The same fields, each with its own group: out[k] = scale_of[g] * float(field(f) - zero_of[g]),
/// f = first + k, g = group_of[f] (GPTQ with act-order: scales[g_idx] * (weight - zeros[g_idx])).
void packed_grouped(const std::byte* words, int bits, std::int64_t first, std::int64_t n,
                    const std::int32_t* group_of, const float* scale_of, const std::int32_t* zero_of, float* out);

/// packed_grouped where the inputs of a group come in runs (GPTQ without act-order): run_end_of[f]
/// is where the run of field f's group ends (the next field of another group). Gives the same
/// bits, each run's scale and zero read once.
void packed_runs(const std::byte* words, int bits, std::int64_t first, std::int64_t n,
                 const std::int32_t* group_of, const std::int64_t* run_end_of, const float* scale_of,
                 const std::int32_t* zero_of, float* out);

/// The same fields, affine: out[k] = scale * float(field(first + k)) + bias, a product then a sum
/// (MLX's scales * w + biases along one output's inputs).
void packed_affine(const std::byte* words, int bits, std::int64_t first, std::int64_t n, float scale, float bias,
                   float* out);

/// 4-bit codes two a byte, value k the low nibble of byte k / 2 when k is even (`high_first`:
/// the high nibble): out[k] = lut[code(first + k)] * scale for k < n (FP4 E2M1 or NF4 codes
/// through their 16-entry table, NVFP4's and bitsandbytes' table[code] * scale).
void nibbles_lut_scaled(const std::byte* bytes, bool high_first, std::int64_t first, std::int64_t n,
                        const float* lut, float scale, float* out);

/// One field a word: out[k] = scale * float(((words[k] >> shift) & (2^bits - 1)) - zero) for
/// k < n (AWQ's (iweight - izeros) * scales along one output's inputs, from a strip of its
/// qweight; IEEE products commute, so the order of the factors does not change the bits).
void field_scaled(const std::byte* words, int shift, int bits, std::int64_t n, std::int32_t zero, float scale,
                  float* out);

}  // namespace tensor_inspect
