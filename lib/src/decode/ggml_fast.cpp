// decode/ggml_fast.cpp — AVX2 loops over many blocks for the ggml types big checkpoints use
// most (Q4_K, IQ4_NL, IQ4_XS, MXFP4): each value is the same float32 expression as in the
// reference decoder of its type (ggml_legacy.cpp, ggml_kquants.cpp, ggml_iquants.cpp: ggml's
// dequantize_row_*), eight lanes at a time, so the bits are the same (an int code converts to
// float exactly; one IEEE multiply or subtract per step, no FMA: the target has none). The
// reference decoders stay the oracle: tests/unit/ggml_fast_test.cpp compares the two on
// random blocks with inf and NaN scales. The 16-entry tables are looked up with pshufb.
#include "decode/ggml_fast.hpp"

#include <immintrin.h>

#include "decode/cpu_features.hpp"
#include "decode/ggml_blocks.hpp"
#include "decode/ggml_tables.hpp"
#include "decode/half.hpp"

namespace tensor_inspect {
namespace {

using u8 = std::uint8_t;

#define TI_GGML_FAST_TARGET __attribute__((target("avx2,f16c")))

// 16 int8 values (the lookups of 16 nibbles) as two vectors of 8 floats, each times `d`,
// stored at y[0..15].
TI_GGML_FAST_TARGET inline void store_scaled_i8x16(__m128i v, __m256 d, float* y) {
  const __m256 lo = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v));
  const __m256 hi = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(v, 8)));
  _mm256_storeu_ps(y, _mm256_mul_ps(lo, d));
  _mm256_storeu_ps(y + 8, _mm256_mul_ps(hi, d));
}

// The low and the high nibbles of 16 bytes.
TI_GGML_FAST_TARGET inline void nibbles16(const u8* q, __m128i& lo, __m128i& hi) {
  const __m128i m4 = _mm_set1_epi8(0x0F);
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q));
  lo = _mm_and_si128(v, m4);
  hi = _mm_and_si128(_mm_srli_epi16(v, 4), m4);
}

// A block of 32 codes as Q4_0 lays them out (qs[16]: low nibbles elements 0-15, high
// 16-31), each the table value times d: IQ4_NL's d * f(kvalues[q]) and MXFP4's f(kvalues[q])
// * d (the same product).
TI_GGML_FAST_TARGET inline void table32(const u8* qs, __m128i table, float d, float* y) {
  __m128i lo, hi;
  nibbles16(qs, lo, hi);
  const __m256 dv = _mm256_set1_ps(d);
  store_scaled_i8x16(_mm_shuffle_epi8(table, lo), dv, y);
  store_scaled_i8x16(_mm_shuffle_epi8(table, hi), dv, y + 16);
}

/// ggml_e8m0_to_fp32_half, as ggml_legacy.cpp's.
float e8m0_half_fast(u8 x) {
  const std::uint32_t bits = x < 2 ? 0x00200000u << x : static_cast<std::uint32_t>(x - 1) << 23;
  float f;
  __builtin_memcpy(&f, &bits, 4);
  return f;
}

TI_GGML_FAST_TARGET void iq4_nl_blocks(const u8* b, std::size_t blocks, float* y) {
  const __m128i table = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ggml_tables::kIq4nlValues));
  for (std::size_t k = 0; k < blocks; ++k, b += 18, y += 32) table32(b + 2, table, half_at(b), y);
}

TI_GGML_FAST_TARGET void mxfp4_blocks(const u8* b, std::size_t blocks, float* y) {
  const __m128i table = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ggml_tables::kFp4Values));
  for (std::size_t k = 0; k < blocks; ++k, b += 17, y += 32) table32(b + 1, table, e8m0_half_fast(b[0]), y);
}

// IQ4_XS (136 B): d half | scales_h u16 | scales_l[4] | qs[128]; sub-block ib of 32 has the
// 6-bit scale ls (low 4 bits from scales_l, high 2 from scales_h) and d * (ls - 32).
TI_GGML_FAST_TARGET void iq4_xs_blocks(const u8* b, std::size_t blocks, float* y) {
  const __m128i table = _mm_loadu_si128(reinterpret_cast<const __m128i*>(ggml_tables::kIq4nlValues));
  for (std::size_t k = 0; k < blocks; ++k, b += 136) {
    const float d = half_at(b);
    const unsigned scales_h = static_cast<unsigned>(b[2] | (b[3] << 8));
    for (int ib = 0; ib < 8; ++ib, y += 32) {
      const int ls = ((b[4 + ib / 2] >> (4 * (ib % 2))) & 0xf) | static_cast<int>(((scales_h >> (2 * ib)) & 3) << 4);
      table32(b + 8 + 16 * ib, table, d * static_cast<float>(ls - 32), y);
    }
  }
}

// 32 bytes of Q4_K codes: low nibbles d1 * q - m1 into y[0..31], high d2 * q - m2 into y[32..63].
TI_GGML_FAST_TARGET inline void q4_k_pair(const u8* q, float d1, float m1, float d2, float m2, float* y) {
  const __m256i m4 = _mm256_set1_epi8(0x0F);
  const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q));
  const __m256i lo = _mm256_and_si256(v, m4), hi = _mm256_and_si256(_mm256_srli_epi16(v, 4), m4);
  const __m256 vd1 = _mm256_set1_ps(d1), vm1 = _mm256_set1_ps(m1), vd2 = _mm256_set1_ps(d2), vm2 = _mm256_set1_ps(m2);
  alignas(32) u8 lanes[64];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), lo);
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes + 32), hi);
  for (int g = 0; g < 8; ++g) {  // 8 codes a step: 0-3 the low nibbles, 4-7 the high
    const __m128i c = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(lanes + 8 * g));
    const __m256 f = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(c));
    const __m256 r = g < 4 ? _mm256_sub_ps(_mm256_mul_ps(vd1, f), vm1) : _mm256_sub_ps(_mm256_mul_ps(vd2, f), vm2);
    _mm256_storeu_ps(y + 8 * g, r);
  }
}

TI_GGML_FAST_TARGET void q4_k_blocks(const u8* b, std::size_t blocks, float* y) {
  for (std::size_t k = 0; k < blocks; ++k, b += 144) {
    const float d = half_at(b), dmin = half_at(b + 2);
    const u8* scales = b + 4;
    const u8* q = b + 16;
    for (int is = 0; is < 8; is += 2, q += 32, y += 64) {
      int sc = 0, m = 0;
      ggml_blocks::scale_min_k4(is, scales, sc, m);
      const float d1 = d * static_cast<float>(sc), m1 = dmin * static_cast<float>(m);
      ggml_blocks::scale_min_k4(is + 1, scales, sc, m);
      const float d2 = d * static_cast<float>(sc), m2 = dmin * static_cast<float>(m);
      q4_k_pair(q, d1, m1, d2, m2, y);
    }
  }
}

}  // namespace

GgmlBlocksDecoder ggml_fast_decoder(std::uint32_t type_id) {
  if (!cpu_has_avx2_f16c()) return nullptr;
  switch (type_id) {
    case 12: return q4_k_blocks;
    case 20: return iq4_nl_blocks;
    case 23: return iq4_xs_blocks;
    case 39: return mxfp4_blocks;
    default: return nullptr;
  }
}

}  // namespace tensor_inspect
