// decode/ggml_legacy.cpp — ggml's blocks of 32 to 128 elements, as ggml-quants.c's
// dequantize_row_* computes them (block layouts from ggml-common.h; bytes little-endian,
// "half" an IEEE float16):
//   Q4_0   32 elems, 18 B: d half | qs[16] (low nibbles: elems 0-15, high: 16-31)
//   Q4_1   32 elems, 20 B: d half | m half | qs[16]
//   Q5_0   32 elems, 22 B: d half | qh[4] (bit 5 of each elem) | qs[16]
//   Q5_1   32 elems, 24 B: d half | m half | qh[4] | qs[16]
//   Q8_0   32 elems, 34 B: d half | qs[32] int8
//   IQ4_NL 32 elems, 18 B: d half | qs[16] (nibbles index kvalues_iq4nl, as Q4_0's order)
//   MXFP4  32 elems, 17 B: e E8M0 | qs[16] (E2M1 nibbles, as Q4_0's order)
//   NVFP4  64 elems, 36 B: d[4] UE4M3 (one per 16 elems) | qs[32] (E2M1: low 0-7, high 8-15 of each 16)
//   Q1_0  128 elems, 18 B: d half | qs[16] (bit j: +d if set, -d if clear)
//   Q2_0   64 elems, 18 B: d half | qs[16] (2 bits per elem: (q - 1) * d, q in 0..3)
#include <bit>
#include <cmath>

#include "decode/ggml_blocks.hpp"
#include "decode/ggml_tables.hpp"
#include "decode/half.hpp"

namespace tensor_inspect::ggml_blocks {
namespace {

// Q5_0 and Q5_1: bit j of qh is the fifth bit of element j, bit j + 16 that of j + 16.
std::uint32_t qh32(const u8* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

/// ggml_e8m0_to_fp32_half (ggml-impl.h): 2^(x-128) by its bits; 0 and 1 are subnormal, and
/// 255 is 2^127 (ggml does not treat it as NaN).
float e8m0_half(u8 x) {
  const std::uint32_t bits = x < 2 ? 0x00200000u << x : static_cast<std::uint32_t>(x - 1) << 23;
  return std::bit_cast<float>(bits);
}

/// ggml_ue4m3_to_fp32 (ggml-impl.h): unsigned E4M3 (bias 7; 0 and 0x7F are zero), halved.
float ue4m3_half(u8 x) {
  if (x == 0 || x == 0x7F) return 0.0f;
  const int exp = (x >> 3) & 0xF;
  const int man = x & 0x7;
  const float raw = exp == 0 ? std::ldexp(f(man), -9) : std::ldexp(1.0f + f(man) / 8.0f, exp - 7);
  return raw * 0.5f;
}

}  // namespace

void q4_0(const u8* b, float* y) {
  const float d = half_at(b);
  const u8* qs = b + 2;
  for (int j = 0; j < 16; ++j) {
    y[j] = f((qs[j] & 0x0F) - 8) * d;
    y[j + 16] = f((qs[j] >> 4) - 8) * d;
  }
}

void q4_1(const u8* b, float* y) {
  const float d = half_at(b), m = half_at(b + 2);
  const u8* qs = b + 4;
  for (int j = 0; j < 16; ++j) {
    y[j] = f(qs[j] & 0x0F) * d + m;
    y[j + 16] = f(qs[j] >> 4) * d + m;
  }
}

void q5_0(const u8* b, float* y) {
  const float d = half_at(b);
  const std::uint32_t qh = qh32(b + 2);
  const u8* qs = b + 6;
  for (unsigned j = 0; j < 16; ++j) {
    const int h0 = static_cast<int>(((qh >> j) << 4) & 0x10);
    const int h1 = static_cast<int>((qh >> (j + 12)) & 0x10);
    y[j] = f(((qs[j] & 0x0F) | h0) - 16) * d;
    y[j + 16] = f(((qs[j] >> 4) | h1) - 16) * d;
  }
}

void q5_1(const u8* b, float* y) {
  const float d = half_at(b), m = half_at(b + 2);
  const std::uint32_t qh = qh32(b + 4);
  const u8* qs = b + 8;
  for (unsigned j = 0; j < 16; ++j) {
    const int h0 = static_cast<int>(((qh >> j) << 4) & 0x10);
    const int h1 = static_cast<int>((qh >> (j + 12)) & 0x10);
    y[j] = f((qs[j] & 0x0F) | h0) * d + m;
    y[j + 16] = f((qs[j] >> 4) | h1) * d + m;
  }
}

void q8_0(const u8* b, float* y) {
  const float d = half_at(b);
  for (int j = 0; j < 32; ++j) y[j] = f(static_cast<std::int8_t>(b[2 + j])) * d;
}

void iq4_nl(const u8* b, float* y) {
  const float d = half_at(b);
  const u8* qs = b + 2;
  for (int j = 0; j < 16; ++j) {
    y[j] = d * f(ggml_tables::kIq4nlValues[qs[j] & 0xf]);
    y[j + 16] = d * f(ggml_tables::kIq4nlValues[qs[j] >> 4]);
  }
}

void mxfp4(const u8* b, float* y) {
  const float d = e8m0_half(b[0]);
  const u8* qs = b + 1;
  for (int j = 0; j < 16; ++j) {
    y[j] = f(ggml_tables::kFp4Values[qs[j] & 0x0F]) * d;
    y[j + 16] = f(ggml_tables::kFp4Values[qs[j] >> 4]) * d;
  }
}

void nvfp4(const u8* b, float* y) {
  const u8* qs = b + 4;
  for (int s = 0; s < 4; ++s) {
    const float d = ue4m3_half(b[s]);
    for (int j = 0; j < 8; ++j) {
      const u8 q = qs[s * 8 + j];
      y[s * 16 + j] = f(ggml_tables::kFp4Values[q & 0x0F]) * d;
      y[s * 16 + j + 8] = f(ggml_tables::kFp4Values[q >> 4]) * d;
    }
  }
}

void q1_0(const u8* b, float* y) {
  const float d = half_at(b);
  const float neg_d = -d;
  for (int j = 0; j < 128; ++j) y[j] = (b[2 + j / 8] >> (j % 8)) & 1 ? d : neg_d;
}

void q2_0(const u8* b, float* y) {
  const float d = half_at(b);
  for (int j = 0; j < 64; ++j) y[j] = f(((b[2 + j / 4] >> ((j % 4) * 2)) & 0x03) - 1) * d;
}

}  // namespace tensor_inspect::ggml_blocks
