// loaders/gguf_quants.cpp — ggml's type table and float32 dequantization of its block
// formats, following the algorithm of ggml-quants.c dequantize_row_* (block layouts from
// ggml-common.h; QK_K = 256). All arithmetic is float32, in ggml's order of operations,
// so results are bit-identical to ggml's reference (non-SIMD) path.
//
// Block layouts (bytes, little-endian; "half" is an IEEE float16):
//   Q4_0  32 elems, 18 B: d half | qs[16] (low nibbles: elems 0-15, high: 16-31)
//   Q4_1  32 elems, 20 B: d half | m half | qs[16]
//   Q5_0  32 elems, 22 B: d half | qh[4] (bit 5 of each elem) | qs[16]
//   Q5_1  32 elems, 24 B: d half | m half | qh[4] | qs[16]
//   Q8_0  32 elems, 34 B: d half | qs[32] int8
//   Q2_K 256 elems, 84 B: scales[16] (4-bit scale | 4-bit min) | qs[64] | d half | dmin half
//   Q3_K 256 elems,110 B: hmask[32] | qs[64] | scales[12] (16 x 6 bits) | d half
//   Q4_K 256 elems,144 B: d half | dmin half | scales[12] (8 x 6-bit scale, min) | qs[128]
//   Q5_K 256 elems,176 B: d half | dmin half | scales[12] | qh[32] | qs[128]
//   Q6_K 256 elems,210 B: ql[128] | qh[64] | scales[16] int8 | d half
//   Q8_K 256 elems,292 B: d float32 | qs[256] int8 | bsums[16] int16
//   NVFP4 64 elems, 36 B: d[4] UE4M3 (one per 16 elems) | qs[32] (E2M1 nibbles: low 0-7, high 8-15 of each 16)
//   Q1_0 128 elems, 18 B: d half | qs[16] (bit j: +d if set, -d if clear)
//   Q2_0  64 elems, 18 B: d half | qs[16] (2 bits per elem: (q - 1) * d, q in 0..3)
#include <cassert>
#include <cmath>
#include <cstring>

#include "loaders/gguf_quants.hpp"

namespace tensor_inspect {

namespace {

// ggml.h enum ggml_type; gaps (4, 5, 31-33, 36-38) are ids removed from GGUF files.
constexpr GgmlType kGgmlTypes[] = {
    {0, "F32", 1, 4, DType::Float32, false},
    {1, "F16", 1, 2, DType::Float16, false},
    {2, "Q4_0", 32, 18, std::nullopt, true},
    {3, "Q4_1", 32, 20, std::nullopt, true},
    {6, "Q5_0", 32, 22, std::nullopt, true},
    {7, "Q5_1", 32, 24, std::nullopt, true},
    {8, "Q8_0", 32, 34, std::nullopt, true},
    {9, "Q8_1", 32, 36, std::nullopt, false},  // ggml has no dequantize_row_q8_1
    {10, "Q2_K", 256, 84, std::nullopt, true},
    {11, "Q3_K", 256, 110, std::nullopt, true},
    {12, "Q4_K", 256, 144, std::nullopt, true},
    {13, "Q5_K", 256, 176, std::nullopt, true},
    {14, "Q6_K", 256, 210, std::nullopt, true},
    {15, "Q8_K", 256, 292, std::nullopt, true},
    {16, "IQ2_XXS", 256, 66, std::nullopt, false},
    {17, "IQ2_XS", 256, 74, std::nullopt, false},
    {18, "IQ3_XXS", 256, 98, std::nullopt, false},
    {19, "IQ1_S", 256, 50, std::nullopt, false},
    {20, "IQ4_NL", 32, 18, std::nullopt, false},
    {21, "IQ3_S", 256, 110, std::nullopt, false},
    {22, "IQ2_S", 256, 82, std::nullopt, false},
    {23, "IQ4_XS", 256, 136, std::nullopt, false},
    {24, "I8", 1, 1, DType::Int8, false},
    {25, "I16", 1, 2, DType::Int16, false},
    {26, "I32", 1, 4, DType::Int32, false},
    {27, "I64", 1, 8, DType::Int64, false},
    {28, "F64", 1, 8, DType::Float64, false},
    {29, "IQ1_M", 256, 56, std::nullopt, false},
    {30, "BF16", 1, 2, DType::BFloat16, false},
    {34, "TQ1_0", 256, 54, std::nullopt, false},
    {35, "TQ2_0", 256, 66, std::nullopt, false},
    {39, "MXFP4", 32, 17, std::nullopt, false},
    {40, "NVFP4", 64, 36, std::nullopt, true},
    {41, "Q1_0", 128, 18, std::nullopt, true},
    {42, "Q2_0", 64, 18, std::nullopt, true},
};

using u8 = std::uint8_t;

float half_at(const u8* p) {
  const auto bits = static_cast<std::uint16_t>(p[0] | (p[1] << 8));
  return static_cast<float>(float16_to_double(bits));
}
float f(int v) { return static_cast<float>(v); }

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

// Q5_0 and Q5_1: bit j of qh is the fifth bit of element j, bit j + 16 that of j + 16.
std::uint32_t qh32(const u8* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
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

/// Q3_K's 16 six-bit scales: low 4 bits in bytes 0-7 (two per byte), high 2 bits in 8-11.
int q3_k_scale(const u8* s, int j) {
  const int low = j < 8 ? s[j] & 0xF : s[j - 8] >> 4;
  const int high = (s[8 + j % 4] >> (2 * (j / 4))) & 3;
  return (low | (high << 4)) - 32;
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

/// Q4_K/Q5_K: scale and min of sub-block j from the 12 packed bytes (get_scale_min_k4).
void scale_min_k4(int j, const u8* q, int& sc, int& m) {
  if (j < 4) {
    sc = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    sc = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
    m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
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

// kvalues_fp4 (ggml-common.h): E2M1 values doubled; ggml_ue4m3_to_fp32 halves the scale.
constexpr std::int8_t kFp4Values[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

/// ggml_ue4m3_to_fp32 (ggml-impl.h): unsigned E4M3 (bias 7; 0 and 0x7F are zero), halved.
float ue4m3_half(u8 x) {
  if (x == 0 || x == 0x7F) return 0.0f;
  const int exp = (x >> 3) & 0xF;
  const int man = x & 0x7;
  const float raw = exp == 0 ? std::ldexp(f(man), -9) : std::ldexp(1.0f + f(man) / 8.0f, exp - 7);
  return raw * 0.5f;
}

void nvfp4(const u8* b, float* y) {
  const u8* qs = b + 4;
  for (int s = 0; s < 4; ++s) {
    const float d = ue4m3_half(b[s]);
    for (int j = 0; j < 8; ++j) {
      const u8 q = qs[s * 8 + j];
      y[s * 16 + j] = f(kFp4Values[q & 0x0F]) * d;
      y[s * 16 + j + 8] = f(kFp4Values[q >> 4]) * d;
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

}  // namespace

const GgmlType* ggml_type_from_id(std::uint32_t id) {
  for (const GgmlType& t : kGgmlTypes)
    if (t.id == id) return &t;
  return nullptr;
}

void dequantize_ggml(const GgmlType& type, std::span<const std::byte> src, std::span<float> dst) {
  assert(type.dequantizable);
  const std::size_t blocks = src.size() / type.block_bytes;
  assert(src.size() == blocks * type.block_bytes && dst.size() == blocks * type.block_elems);
  void (*row)(const u8*, float*) = nullptr;
  switch (type.id) {
    case 2: row = q4_0; break;
    case 3: row = q4_1; break;
    case 6: row = q5_0; break;
    case 7: row = q5_1; break;
    case 8: row = q8_0; break;
    case 10: row = q2_k; break;
    case 11: row = q3_k; break;
    case 12: row = q4_k; break;
    case 13: row = q5_k; break;
    case 14: row = q6_k; break;
    case 15: row = q8_k; break;
    case 40: row = nvfp4; break;
    case 41: row = q1_0; break;
    case 42: row = q2_0; break;
    default: assert(false && "not a dequantizable ggml type"); return;
  }
  const auto* in = reinterpret_cast<const u8*>(src.data());
  for (std::size_t i = 0; i < blocks; ++i) row(in + i * type.block_bytes, dst.data() + i * type.block_elems);
}

}  // namespace tensor_inspect
