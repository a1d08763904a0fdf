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
    if (k + 8 * (kAhead + 1) <= n)
      _mm_prefetch(reinterpret_cast<const char*>(words + 4 * (wi + kAhead) * stride), _MM_HINT_T0);
    const auto w = static_cast<int>(packed_word_at(words, stride, wi));
    const __m256i q = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(w), shifts), low4);
    _mm256_storeu_ps(out + k, _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_sub_epi32(q, z))));
  }
  packed4_scaled_portable(words, stride, first + k, n - k, zero, scale, out + k);
}

std::uint32_t run_word(const std::byte* words, std::int64_t k) {
  std::uint32_t v;
  std::memcpy(&v, words + 4 * k, 4);
  return v;
}

std::int32_t strip_field(const std::byte* words, int bits, std::int64_t f) {
  const std::int64_t per = 32 / bits;
  const auto shift = static_cast<std::uint32_t>(bits) * static_cast<std::uint32_t>(f % per);
  return static_cast<std::int32_t>((run_word(words, f / per) >> shift) & ((1u << bits) - 1u));
}

void packed_scaled_portable(const std::byte* words, int bits, std::int64_t first, std::int64_t n,
                            std::int32_t zero, float scale, float* out) {
  for (std::int64_t k = 0; k < n; ++k) out[k] = scale * static_cast<float>(strip_field(words, bits, first + k) - zero);
}

void packed_grouped_portable(const std::byte* words, int bits, std::int64_t first, std::int64_t n,
                             const std::int32_t* group_of, const float* scale_of, const std::int32_t* zero_of,
                             float* out) {
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int64_t f = first + k;
    const std::int32_t g = group_of[f];
    out[k] = scale_of[g] * static_cast<float>(strip_field(words, bits, f) - zero_of[g]);
  }
}

void field_scaled_portable(const std::byte* words, int shift, int bits, std::int64_t n, std::int32_t zero,
                           float scale, float* out) {
  const std::uint32_t mask = (1u << bits) - 1u;
  for (std::int64_t k = 0; k < n; ++k)
    out[k] = scale * static_cast<float>(static_cast<std::int32_t>((run_word(words, k) >> shift) & mask) - zero);
}

// Fields f .. f + 7 (f a multiple of 8) as eight int32 lanes: for 8 bits two words, each
// spread over four lanes; for 4 bits one word; for 2 bits half of one.
__attribute__((target("avx2"))) inline __m256i strip_fields8(const std::byte* words, int bits, std::int64_t f) {
  if (bits == 8) {
    const __m256i pair = _mm256_castsi128_si256(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(words + 4 * (f / 4))));
    const __m256i spread = _mm256_permutevar8x32_epi32(pair, _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1));
    return _mm256_and_si256(_mm256_srlv_epi32(spread, _mm256_setr_epi32(0, 8, 16, 24, 0, 8, 16, 24)),
                            _mm256_set1_epi32(255));
  }
  if (bits == 4)
    return _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(static_cast<int>(run_word(words, f / 8))),
                                              _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28)),
                            _mm256_set1_epi32(15));
  const __m256i shifts = _mm256_add_epi32(_mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14),
                                          _mm256_set1_epi32(static_cast<int>(f % 16) * 2));
  return _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(static_cast<int>(run_word(words, f / 16))), shifts),
                          _mm256_set1_epi32(3));
}

__attribute__((target("avx2"))) void packed_scaled_avx2(const std::byte* words, int bits, std::int64_t first,
                                                        std::int64_t n, std::int32_t zero, float scale, float* out) {
  const std::int64_t head = std::min(n, (8 - first % 8) % 8);
  packed_scaled_portable(words, bits, first, head, zero, scale, out);
  const __m256i z = _mm256_set1_epi32(zero);
  const __m256 s = _mm256_set1_ps(scale);
  std::int64_t k = head;
  for (; k + 8 <= n; k += 8) {
    const __m256i q = strip_fields8(words, bits, first + k);
    _mm256_storeu_ps(out + k, _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_sub_epi32(q, z))));
  }
  packed_scaled_portable(words, bits, first + k, n - k, zero, scale, out + k);
}

__attribute__((target("avx2"))) void packed_grouped_avx2(const std::byte* words, int bits, std::int64_t first,
                                                         std::int64_t n, const std::int32_t* group_of,
                                                         const float* scale_of, const std::int32_t* zero_of,
                                                         float* out) {
  const std::int64_t head = std::min(n, (8 - first % 8) % 8);
  packed_grouped_portable(words, bits, first, head, group_of, scale_of, zero_of, out);
  std::int64_t k = head;
  for (; k + 8 <= n; k += 8) {
    const std::int64_t f = first + k;
    const __m256i g = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(group_of + f));
    const __m256 s = _mm256_i32gather_ps(scale_of, g, 4);
    const __m256i z = _mm256_i32gather_epi32(zero_of, g, 4);
    const __m256i q = strip_fields8(words, bits, f);
    _mm256_storeu_ps(out + k, _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_sub_epi32(q, z))));
  }
  packed_grouped_portable(words, bits, first + k, n - k, group_of, scale_of, zero_of, out + k);
}

// Word k in all eight lanes.
__attribute__((target("avx2"))) inline __m256i word_lanes(const std::byte* words, std::int64_t k) {
  return _mm256_set1_epi32(static_cast<int>(run_word(words, k)));
}

// Whole words of 4-bit fields: out[8 * k + f] from field f of words[k], k < nwords.
__attribute__((target("avx2"))) inline void packed4_words_avx2(const std::byte* words, std::int64_t nwords,
                                                               __m256i z, __m256 s, float* out) {
  const __m256i shifts = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28), low4 = _mm256_set1_epi32(15);
  std::int64_t k = 0;
  for (; k + 2 <= nwords; k += 2, out += 16) {
    const __m256i q0 = _mm256_and_si256(_mm256_srlv_epi32(word_lanes(words, k), shifts), low4);
    const __m256i q1 = _mm256_and_si256(_mm256_srlv_epi32(word_lanes(words, k + 1), shifts), low4);
    _mm256_storeu_ps(out, _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_sub_epi32(q0, z))));
    _mm256_storeu_ps(out + 8, _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_sub_epi32(q1, z))));
  }
  if (k < nwords) {
    const __m256i q0 = _mm256_and_si256(_mm256_srlv_epi32(word_lanes(words, k), shifts), low4);
    _mm256_storeu_ps(out, _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_sub_epi32(q0, z))));
  }
}

__attribute__((target("avx2"))) void packed_runs_avx2(const std::byte* words, int bits, std::int64_t first,
                                                      std::int64_t n, const std::int32_t* group_of,
                                                      const std::int64_t* run_end_of, const float* scale_of,
                                                      const std::int32_t* zero_of, float* out) {
  const std::int64_t last = first + n;
  for (std::int64_t f = first; f < last;) {
    const std::int32_t g = group_of[f];
    const std::int64_t end = std::min(last, run_end_of[f]);
    if (bits != 4) {
      packed_scaled_avx2(words, bits, f, end - f, zero_of[g], scale_of[g], out + (f - first));
      f = end;
      continue;
    }
    // The run's fields before its first whole word and after its last, one by one.
    const std::int64_t a = std::min(end, (f + 7) / 8 * 8), b = std::max(a, end / 8 * 8);
    packed_scaled_portable(words, 4, f, a - f, zero_of[g], scale_of[g], out + (f - first));
    packed4_words_avx2(words + 4 * (a / 8), (b - a) / 8, _mm256_set1_epi32(zero_of[g]), _mm256_set1_ps(scale_of[g]),
                       out + (a - first));
    packed_scaled_portable(words, 4, b, end - b, zero_of[g], scale_of[g], out + (b - first));
    f = end;
  }
}

void packed_affine_portable(const std::byte* words, int bits, std::int64_t first, std::int64_t n, float scale,
                            float bias, float* out) {
  for (std::int64_t k = 0; k < n; ++k) out[k] = scale * static_cast<float>(strip_field(words, bits, first + k)) + bias;
}

__attribute__((target("avx2"))) void packed_affine_avx2(const std::byte* words, int bits, std::int64_t first,
                                                        std::int64_t n, float scale, float bias, float* out) {
  const std::int64_t head = std::min(n, (8 - first % 8) % 8);
  packed_affine_portable(words, bits, first, head, scale, bias, out);
  const __m256 s = _mm256_set1_ps(scale), b = _mm256_set1_ps(bias);
  std::int64_t k = head;
  for (; k + 8 <= n; k += 8) {  // a product then a sum, as the scalar formula (no fused multiply-add)
    const __m256 q = _mm256_cvtepi32_ps(strip_fields8(words, bits, first + k));
    _mm256_storeu_ps(out + k, _mm256_add_ps(_mm256_mul_ps(s, q), b));
  }
  packed_affine_portable(words, bits, first + k, n - k, scale, bias, out + k);
}

void nibbles_lut_scaled_portable(const std::byte* bytes, bool high_first, std::int64_t first, std::int64_t n,
                                 const float* lut, float scale, float* out) {
  for (std::int64_t k = first; k < first + n; ++k) {
    const auto byte = static_cast<std::uint8_t>(bytes[k / 2]);
    *out++ = lut[((k & 1) != 0) != high_first ? byte >> 4 : byte & 0x0F] * scale;
  }
}

// Eight codes (four bytes, one little-endian word) at a time: each lane shifts its nibble
// down, looks it up in the table's two halves (vpermps takes the low three bits) and picks
// the half by bit 3; then the same product as the scalar loop.
__attribute__((target("avx2"))) void nibbles_lut_scaled_avx2(const std::byte* bytes, bool high_first,
                                                             std::int64_t first, std::int64_t n, const float* lut,
                                                             float scale, float* out) {
  const std::int64_t head = std::min(n, (8 - first % 8) % 8);
  nibbles_lut_scaled_portable(bytes, high_first, first, head, lut, scale, out);
  const __m256i shifts = high_first ? _mm256_setr_epi32(4, 0, 12, 8, 20, 16, 28, 24)
                                    : _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
  const __m256i to_top = _mm256_sub_epi32(_mm256_set1_epi32(28), shifts);  // bit 3 of the nibble to bit 31
  const __m256 lo = _mm256_loadu_ps(lut), hi = _mm256_loadu_ps(lut + 8), s = _mm256_set1_ps(scale);
  std::int64_t k = head;
  for (; k + 8 <= n; k += 8) {
    const __m256i w = word_lanes(bytes, (first + k) / 8);
    const __m256i idx = _mm256_srlv_epi32(w, shifts);
    const __m256 pick = _mm256_castsi256_ps(_mm256_sllv_epi32(w, to_top));
    const __m256 v = _mm256_blendv_ps(_mm256_permutevar8x32_ps(lo, idx), _mm256_permutevar8x32_ps(hi, idx), pick);
    _mm256_storeu_ps(out + k, _mm256_mul_ps(v, s));
  }
  nibbles_lut_scaled_portable(bytes, high_first, first + k, n - k, lut, scale, out + k);
}

__attribute__((target("avx2"))) void field_scaled_avx2(const std::byte* words, int shift, int bits,
                                                       std::int64_t n, std::int32_t zero, float scale, float* out) {
  const __m256i mask = _mm256_set1_epi32(static_cast<int>((1u << bits) - 1u)), z = _mm256_set1_epi32(zero);
  const __m128i count = _mm_cvtsi32_si128(shift);
  const __m256 s = _mm256_set1_ps(scale);
  std::int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + 4 * k));
    const __m256i q = _mm256_and_si256(_mm256_srl_epi32(w, count), mask);
    _mm256_storeu_ps(out + k, _mm256_mul_ps(s, _mm256_cvtepi32_ps(_mm256_sub_epi32(q, z))));
  }
  field_scaled_portable(words + 4 * k, shift, bits, n - k, zero, scale, out + k);
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

void packed_scaled(const std::byte* words, int bits, std::int64_t first, std::int64_t n, std::int32_t zero,
                   float scale, float* out) {
  if (cpu_has_avx2_f16c()) packed_scaled_avx2(words, bits, first, n, zero, scale, out);
  else packed_scaled_portable(words, bits, first, n, zero, scale, out);
}

void packed_grouped(const std::byte* words, int bits, std::int64_t first, std::int64_t n,
                    const std::int32_t* group_of, const float* scale_of, const std::int32_t* zero_of, float* out) {
  if (cpu_has_avx2_f16c()) packed_grouped_avx2(words, bits, first, n, group_of, scale_of, zero_of, out);
  else packed_grouped_portable(words, bits, first, n, group_of, scale_of, zero_of, out);
}

void packed_runs(const std::byte* words, int bits, std::int64_t first, std::int64_t n,
                 const std::int32_t* group_of, const std::int64_t* run_end_of, const float* scale_of,
                 const std::int32_t* zero_of, float* out) {
  if (cpu_has_avx2_f16c()) {
    packed_runs_avx2(words, bits, first, n, group_of, run_end_of, scale_of, zero_of, out);
    return;
  }
  for (std::int64_t f = first; f < first + n;) {
    const std::int32_t g = group_of[f];
    const std::int64_t end = std::min(first + n, run_end_of[f]);
    packed_scaled_portable(words, bits, f, end - f, zero_of[g], scale_of[g], out + (f - first));
    f = end;
  }
}

void packed_affine(const std::byte* words, int bits, std::int64_t first, std::int64_t n, float scale, float bias,
                   float* out) {
  if (cpu_has_avx2_f16c()) packed_affine_avx2(words, bits, first, n, scale, bias, out);
  else packed_affine_portable(words, bits, first, n, scale, bias, out);
}

void nibbles_lut_scaled(const std::byte* bytes, bool high_first, std::int64_t first, std::int64_t n,
                        const float* lut, float scale, float* out) {
  if (cpu_has_avx2_f16c()) nibbles_lut_scaled_avx2(bytes, high_first, first, n, lut, scale, out);
  else nibbles_lut_scaled_portable(bytes, high_first, first, n, lut, scale, out);
}

void field_scaled(const std::byte* words, int shift, int bits, std::int64_t n, std::int32_t zero, float scale,
                  float* out) {
  if (cpu_has_avx2_f16c()) field_scaled_avx2(words, shift, bits, n, zero, scale, out);
  else field_scaled_portable(words, shift, bits, n, zero, scale, out);
}

}  // namespace tensor_inspect
