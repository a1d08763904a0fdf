// decode/ggml_kquants.cpp — ggml's super-blocks of QK_K = 256 elements, the K quants and the
// ternary TQ quants, as ggml-quants.c's dequantize_row_* computes them (layouts from
// ggml-common.h; bytes little-endian, "half" an IEEE float16):
//   Q2_K  84 B: scales[16] (4-bit scale | 4-bit min) | qs[64] | d half | dmin half
//   Q3_K 110 B: hmask[32] | qs[64] | scales[12] (16 x 6 bits) | d half
//   Q4_K 144 B: d half | dmin half | scales[12] (8 x 6-bit scale, min) | qs[128]
//   Q5_K 176 B: d half | dmin half | scales[12] | qh[32] | qs[128]
//   Q6_K 210 B: ql[128] | qh[64] | scales[16] int8 | d half
//   Q8_K 292 B: d float32 | qs[256] int8 | bsums[16] int16
//   TQ1_0 54 B: qs[48] (5 trits a byte, base 3 scaled to 256) | qh[4] (4 trits a byte) | d half
//   TQ2_0 66 B: qs[64] (2 bits per elem: (q - 1) * d) | d half
#include <cstring>

#include "decode/ggml_blocks.hpp"
#include "decode/half.hpp"

namespace tensor_inspect::ggml_blocks {
namespace {

/// Q3_K's 16 six-bit scales: low 4 bits in bytes 0-7 (two per byte), high 2 bits in 8-11.
int q3_k_scale(const u8* s, int j) {
  const int low = j < 8 ? s[j] & 0xF : s[j - 8] >> 4;
  const int high = (s[8 + j % 4] >> (2 * (j / 4))) & 3;
  return (low | (high << 4)) - 32;
}

/// One trit of TQ1_0: the byte times 3^n keeps the next trit in its top bits (mod 256).
float trit(u8 q, u8 pow3, float d) {
  const auto shifted = static_cast<u8>(q * pow3);
  const int xi = (shifted * 3) >> 8;
  return f(xi - 1) * d;
}

}  // namespace

void q2_k(const u8* b, float* y) {
  const u8* scales = b;
  const u8* q = b + 16;
  const float d = half_at(b + 80), dmin = half_at(b + 82);
  int is = 0;
  for (int n = 0; n < 256; n += 128) {
    for (int shift = 0; shift < 8; shift += 2) {
      for (int half = 0; half < 2; ++half) {
        const u8 sc = scales[is++];
        const float dl = d * f(sc & 0xF), ml = dmin * f(sc >> 4);
        for (int l = 0; l < 16; ++l) *y++ = dl * f((q[l + 16 * half] >> shift) & 3) - ml;
      }
    }
    q += 32;
  }
}

void q3_k(const u8* b, float* y) {
  const u8* hm = b;
  const u8* q = b + 32;
  const u8* scales = b + 96;
  const float d_all = half_at(b + 108);
  int is = 0;
  unsigned m = 1;
  for (int n = 0; n < 256; n += 128) {
    for (int shift = 0; shift < 8; shift += 2) {
      for (int half = 0; half < 2; ++half) {
        const float dl = d_all * f(q3_k_scale(scales, is++));
        for (int l = 0; l < 16; ++l) {
          const int k = l + 16 * half;
          *y++ = dl * f(((q[k] >> shift) & 3) - ((hm[k] & m) ? 0 : 4));
        }
      }
      m <<= 1;
    }
    q += 32;
  }
}

void q4_k(const u8* b, float* y) {
  const float d = half_at(b), dmin = half_at(b + 2);
  const u8* scales = b + 4;
  const u8* q = b + 16;
  for (int is = 0; is < 8; is += 2) {
    int sc = 0, m = 0;
    scale_min_k4(is, scales, sc, m);
    const float d1 = d * f(sc), m1 = dmin * f(m);
    scale_min_k4(is + 1, scales, sc, m);
    const float d2 = d * f(sc), m2 = dmin * f(m);
    for (int l = 0; l < 32; ++l) *y++ = d1 * f(q[l] & 0xF) - m1;
    for (int l = 0; l < 32; ++l) *y++ = d2 * f(q[l] >> 4) - m2;
    q += 32;
  }
}

void q5_k(const u8* b, float* y) {
  const float d = half_at(b), dmin = half_at(b + 2);
  const u8* scales = b + 4;
  const u8* qh = b + 16;
  const u8* ql = b + 48;
  unsigned u1 = 1, u2 = 2;
  for (int is = 0; is < 8; is += 2) {
    int sc = 0, m = 0;
    scale_min_k4(is, scales, sc, m);
    const float d1 = d * f(sc), m1 = dmin * f(m);
    scale_min_k4(is + 1, scales, sc, m);
    const float d2 = d * f(sc), m2 = dmin * f(m);
    for (int l = 0; l < 32; ++l) *y++ = d1 * f((ql[l] & 0xF) + ((qh[l] & u1) ? 16 : 0)) - m1;
    for (int l = 0; l < 32; ++l) *y++ = d2 * f((ql[l] >> 4) + ((qh[l] & u2) ? 16 : 0)) - m2;
    ql += 32;
    u1 <<= 2;
    u2 <<= 2;
  }
}

void q6_k(const u8* b, float* y) {
  const u8* ql = b;
  const u8* qh = b + 128;
  const u8* sc_bytes = b + 192;
  const float d = half_at(b + 208);
  for (int n = 0; n < 256; n += 128) {
    auto sc = [&](int i) { return f(static_cast<std::int8_t>(sc_bytes[i])); };
    for (int l = 0; l < 32; ++l) {
      const int is = l / 16;
      const int q1 = ((ql[l] & 0xF) | (((qh[l] >> 0) & 3) << 4)) - 32;
      const int q2 = ((ql[l + 32] & 0xF) | (((qh[l] >> 2) & 3) << 4)) - 32;
      const int q3 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32;
      const int q4 = ((ql[l + 32] >> 4) | (((qh[l] >> 6) & 3) << 4)) - 32;
      y[l] = d * sc(is) * f(q1);
      y[l + 32] = d * sc(is + 2) * f(q2);
      y[l + 64] = d * sc(is + 4) * f(q3);
      y[l + 96] = d * sc(is + 6) * f(q4);
    }
    y += 128;
    ql += 64;
    qh += 32;
    sc_bytes += 8;
  }
}

void q8_k(const u8* b, float* y) {
  float d = 0;
  std::memcpy(&d, b, 4);  // NOTE: Q8_K's scale is a float32, not a half; the host is little-endian
  for (int j = 0; j < 256; ++j) y[j] = d * f(static_cast<std::int8_t>(b[4 + j]));
}

void tq1_0(const u8* b, float* y) {
  constexpr u8 kPow3[6] = {1, 3, 9, 27, 81, 243};
  const u8* qs = b;        // 48 bytes: 32 with 5 trits in columns of 32, then 16 in columns of 16
  const u8* qh = b + 48;   // 4 bytes, 4 trits each
  const float d = half_at(b + 52);
  for (int n = 0; n < 5; ++n)
    for (int m = 0; m < 32; ++m) *y++ = trit(qs[m], kPow3[n], d);
  for (int n = 0; n < 5; ++n)
    for (int m = 0; m < 16; ++m) *y++ = trit(qs[32 + m], kPow3[n], d);
  for (int n = 0; n < 4; ++n)
    for (int j = 0; j < 4; ++j) *y++ = trit(qh[j], kPow3[n], d);
}

void tq2_0(const u8* b, float* y) {
  const float d = half_at(b + 64);
  for (int j = 0; j < 64; j += 32)
    for (int l = 0; l < 4; ++l)
      for (int m = 0; m < 32; ++m) *y++ = f(((b[j + m] >> (l * 2)) & 3) - 1) * d;
}

}  // namespace tensor_inspect::ggml_blocks
