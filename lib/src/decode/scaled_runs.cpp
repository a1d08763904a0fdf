// decode/scaled_runs.cpp — runs of scheme codes sharing a scale, decoded to float32 (see
// scaled_runs.hpp). The AVX2 loops compute each lane with the scalar formula's operations in
// its order (no FMA: the target has none), so both paths give the same bits.
#include "decode/scaled_runs.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include <immintrin.h>

#include "decode/cpu_features.hpp"
#include "decode/minifloat.hpp"

namespace tensor_inspect {
namespace {

void fp8_e4m3_scaled_portable(const std::byte* codes, std::int64_t n, float scale, float* out) {
  const std::array<float, 256>& lut = fp8_e4m3_table();
  for (std::int64_t k = 0; k < n; ++k) out[k] = lut[static_cast<std::uint8_t>(codes[k])] * scale;
}

// E4M3 by its bits: exponent and mantissa moved to float32's places (bits 20-26) and scaled by
// 2^(127 - 7), exact for normals and subnormals alike; the sign or'ed in; the NaN codes (0x7F,
// 0xFF) take the table's own NaNs. Then the same product as the table's loop.
__attribute__((target("avx2"))) void fp8_e4m3_scaled_avx2(const std::byte* codes, std::int64_t n, float scale,
                                                           float* out) {
  const std::array<float, 256>& lut = fp8_e4m3_table();
  const __m256 rebias = _mm256_set1_ps(0x1p120f), s = _mm256_set1_ps(scale);
  const __m256 nan_pos = _mm256_set1_ps(lut[0x7F]), nan_neg = _mm256_set1_ps(lut[0xFF]);
  const __m256i low7 = _mm256_set1_epi32(0x7F), sign_bit = _mm256_set1_epi32(0x80);
  std::int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    const __m256i c = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(codes + k)));
    const __m256i em = _mm256_and_si256(c, low7);
    const __m256 mag = _mm256_mul_ps(_mm256_castsi256_ps(_mm256_slli_epi32(em, 20)), rebias);
    const __m256 sign = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_and_si256(c, sign_bit), 24));
    __m256 v = _mm256_or_ps(mag, sign);
    const __m256 nan = _mm256_blendv_ps(nan_pos, nan_neg, sign);
    v = _mm256_blendv_ps(v, nan, _mm256_castsi256_ps(_mm256_cmpeq_epi32(em, low7)));
    _mm256_storeu_ps(out + k, _mm256_mul_ps(v, s));
  }
  fp8_e4m3_scaled_portable(codes + k, n - k, scale, out + k);
}

std::uint32_t packed_word_at(const std::byte* words, std::int64_t stride, std::int64_t w) {
  std::uint32_t v;
  std::memcpy(&v, words + 4 * w * stride, 4);
  return v;
}

void packed4_scaled_portable(const std::byte* words, std::int64_t stride, std::int64_t first, std::int64_t n,
                             std::int32_t zero, float scale, float* out) {
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int64_t f = first + k;
    const auto q = static_cast<std::int32_t>((packed_word_at(words, stride, f / 8) >> (4 * (f % 8))) & 15u);
    out[k] = scale * static_cast<float>(q - zero);
  }
}

__attribute__((target("avx2"))) void packed4_scaled_avx2(const std::byte* words, std::int64_t stride,
                                                         std::int64_t first, std::int64_t n, std::int32_t zero,
                                                         float scale, float* out) {
  const std::int64_t head = std::min(n, (8 - first % 8) % 8);  // fields before the first whole word
  packed4_scaled_portable(words, stride, first, head, zero, scale, out);
  const __m256i shifts = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28), low4 = _mm256_set1_epi32(15);
  const __m256i z = _mm256_set1_epi32(zero);
  const __m256 s = _mm256_set1_ps(scale);
  std::int64_t k = head;
  // The words lie `stride` apart (GPTQ: a row of qweight, 16 KiB for 4096 outputs), each on a
  // page of its own: fetched 8 words ahead, beyond what the hardware prefetcher follows.
  constexpr std::int64_t kAhead = 8;
  for (; k + 8 <= n; k += 8) {
    const std::int64_t wi = (first + k) / 8;
    if (k + 8 * (kAhead + 1) <= n) _mm_prefetch(reinterpret_cast<const char*>(words + 4 * (wi + kAhead) * stride), _MM_HINT_T0);
    const auto w = static_cast<int>(packed_word_at(words, stride, wi));
    const __m256i q = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(w), shifts), low4);
    _mm256_storeu_ps(out + k, _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_sub_epi32(q, z))));
  }
  packed4_scaled_portable(words, stride, first + k, n - k, zero, scale, out + k);
}

}  // namespace

void fp8_e4m3_scaled(const std::byte* codes, std::int64_t n, float scale, float* out) {
  if (cpu_has_avx2_f16c()) fp8_e4m3_scaled_avx2(codes, n, scale, out);
  else fp8_e4m3_scaled_portable(codes, n, scale, out);
}

void packed4_scaled(const std::byte* words, std::int64_t stride, std::int64_t first, std::int64_t n, std::int32_t zero,
                    float scale, float* out) {
  if (cpu_has_avx2_f16c()) packed4_scaled_avx2(words, stride, first, n, zero, scale, out);
  else packed4_scaled_portable(words, stride, first, n, zero, scale, out);
}

}  // namespace tensor_inspect
