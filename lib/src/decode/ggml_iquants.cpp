// decode/ggml_iquants.cpp — ggml's lattice ("i-") quants of QK_K = 256 elements, as
// ggml-quants.c's dequantize_row_iq* computes them: each group of 8 (or 4) elements is a
// grid point of decode/ggml_tables.hpp, times a block scale, with signs. Layouts from
// ggml-common.h (bytes little-endian, "half" an IEEE float16, u16 two bytes):
//   IQ2_XXS 66 B: d half | qs[64] (per 32 elems: 4 grid bytes, then u32: 4 x 7 sign bits | 4-bit scale)
//   IQ2_XS  74 B: d half | qs u16[32] (9-bit grid index | 7-bit sign index) | scales[8] (two 4-bit)
//   IQ2_S   82 B: d half | qs[32] (grid low bits) | signs[32] | qh[8] (grid bits 8-9) | scales[8]
//   IQ3_XXS 98 B: d half | qs[64] (grid bytes) | u32[8] (4 x 7 sign bits | 4-bit scale)
//   IQ3_S  110 B: d half | qs[64] | qh[8] (grid bit 8) | signs[32] | scales[4] (two 4-bit)
//   IQ1_S   50 B: d half | qs[32] (grid low bits) | qh u16[8] (4 x 3 grid bits | 3-bit scale | delta sign)
//   IQ1_M   56 B: qs[32] | qh[16] (3 grid bits + delta sign per 8) | scales u16[4] (3-bit scales;
//                 the half d is the top nibbles of the four)
//   IQ4_XS 136 B: d half | scales_h u16 (8 x 2 bits) | scales_l[4] (8 x 4 bits) | qs[128] (IQ4_NL nibbles)
// The signs multiply after the scale, as ggml writes them: (db * grid) * (+-1).
#include <cstring>

#include "decode/ggml_blocks.hpp"
#include "decode/ggml_tables.hpp"
#include "decode/half.hpp"

namespace tensor_inspect::ggml_blocks {
namespace {

using namespace ggml_tables;

std::uint32_t u32_at(const u8* p) {
  std::uint32_t v;
  std::memcpy(&v, p, 4);  // NOTE: the host is little-endian, as GGUF's blocks are
  return v;
}
unsigned u16_at(const u8* p) { return static_cast<unsigned>(p[0] | (p[1] << 8)); }

/// Byte j of a grid entry (entries pack their bytes first-lowest, as ggml reads them).
unsigned grid_byte(std::uint64_t entry, int j) { return static_cast<unsigned>((entry >> (8 * j)) & 0xff); }
/// -1.f where bit j of `signs` is set, else 1.f, as ggml's `signs & kmask_iq2xs[j] ? -1.f : 1.f`,
/// without a branch: random sign bits mispredicted one branch in two (6x slower decoding).
float sign_of(unsigned signs, int j) { return 1.f - 2.f * static_cast<float>((signs >> j) & 1); }

/// Eight elements from an 8-byte grid entry, scale `db` and a sign byte.
void grid8(float* y, float db, std::uint64_t entry, unsigned signs) {
  for (int j = 0; j < 8; ++j) y[j] = db * f(static_cast<int>(grid_byte(entry, j))) * sign_of(signs, j);
}

/// Eight elements from two 4-byte grid entries (IQ3).
void grid4x2(float* y, float db, std::uint32_t g1, std::uint32_t g2, unsigned signs) {
  for (int j = 0; j < 4; ++j) {
    y[j + 0] = db * f(static_cast<int>(grid_byte(g1, j))) * sign_of(signs, j);
    y[j + 4] = db * f(static_cast<int>(grid_byte(g2, j))) * sign_of(signs, j + 4);
  }
}

/// Eight elements of IQ1: scale times (signed grid value + delta).
void grid_iq1(float* y, float dl, unsigned index, float delta) {
  const std::uint64_t entry = kIq1sGrid[index];
  for (int j = 0; j < 8; ++j) y[j] = dl * (f(static_cast<std::int8_t>(grid_byte(entry, j))) + delta);
}

}  // namespace

void iq2_xxs(const u8* b, float* y) {
  const float d = half_at(b);
  for (int ib32 = 0; ib32 < 8; ++ib32, y += 32) {
    const u8* q = b + 2 + 8 * ib32;
    const std::uint32_t aux1 = u32_at(q + 4);
    const float db = d * (0.5f + static_cast<float>(aux1 >> 28)) * 0.25f;
    for (int l = 0; l < 4; ++l) grid8(y + 8 * l, db, kIq2xxsGrid[q[l]], kIq2xsSigns[(aux1 >> (7 * l)) & 127]);
  }
}

void iq2_xs(const u8* b, float* y) {
  const float d = half_at(b);
  const u8* scales = b + 66;
  for (int ib32 = 0; ib32 < 8; ++ib32, y += 32) {
    const float db[2] = {d * (0.5f + f(scales[ib32] & 0xf)) * 0.25f, d * (0.5f + f(scales[ib32] >> 4)) * 0.25f};
    for (int l = 0; l < 4; ++l) {
      const unsigned q = u16_at(b + 2 + 2 * (4 * ib32 + l));
      grid8(y + 8 * l, db[l / 2], kIq2xsGrid[q & 511], kIq2xsSigns[q >> 9]);
    }
  }
}

void iq2_s(const u8* b, float* y) {
  const float d = half_at(b);
  const u8* qs = b + 2;
  const u8* signs = b + 34;
  const u8* qh = b + 66;
  const u8* scales = b + 74;
  for (int ib32 = 0; ib32 < 8; ++ib32, y += 32, qs += 4, signs += 4) {
    const float db[2] = {d * (0.5f + f(scales[ib32] & 0xf)) * 0.25f, d * (0.5f + f(scales[ib32] >> 4)) * 0.25f};
    for (int l = 0; l < 4; ++l) {
      const unsigned index = qs[l] | ((static_cast<unsigned>(qh[ib32]) << (8 - 2 * l)) & 0x300);
      grid8(y + 8 * l, db[l / 2], kIq2sGrid[index], signs[l]);
    }
  }
}

void iq3_xxs(const u8* b, float* y) {
  const float d = half_at(b);
  const u8* qs = b + 2;
  const u8* scales_and_signs = b + 66;
  for (int ib32 = 0; ib32 < 8; ++ib32, y += 32, qs += 8) {
    const std::uint32_t aux = u32_at(scales_and_signs + 4 * ib32);
    const float db = d * (0.5f + static_cast<float>(aux >> 28)) * 0.5f;
    for (int l = 0; l < 4; ++l)
      grid4x2(y + 8 * l, db, kIq3xxsGrid[qs[2 * l]], kIq3xxsGrid[qs[2 * l + 1]], kIq2xsSigns[(aux >> (7 * l)) & 127]);
  }
}

void iq3_s(const u8* b, float* y) {
  const float d = half_at(b);
  const u8* qs = b + 2;
  const u8* qh = b + 66;
  const u8* signs = b + 74;
  const u8* scales = b + 106;
  for (int ib32 = 0; ib32 < 8; ++ib32, y += 32, qs += 8, signs += 4) {
    const int scale = ib32 % 2 == 0 ? scales[ib32 / 2] & 0xf : scales[ib32 / 2] >> 4;
    const float db = d * f(1 + 2 * scale);
    const unsigned high = qh[ib32];
    for (int l = 0; l < 4; ++l) {
      const unsigned i1 = qs[2 * l] | ((high << (8 - 2 * l)) & 256);
      const unsigned i2 = qs[2 * l + 1] | ((high << (7 - 2 * l)) & 256);
      grid4x2(y + 8 * l, db, kIq3sGrid[i1], kIq3sGrid[i2], signs[l]);
    }
  }
}

void iq1_s(const u8* b, float* y) {
  const float d = half_at(b);
  const u8* qs = b + 2;
  for (int ib = 0; ib < 8; ++ib, y += 32, qs += 4) {
    const unsigned qh = u16_at(b + 34 + 2 * ib);
    const float dl = d * f(static_cast<int>(2 * ((qh >> 12) & 7) + 1));
    const float delta = qh & 0x8000 ? -kIq1Delta : kIq1Delta;
    for (int l = 0; l < 4; ++l) grid_iq1(y + 8 * l, dl, qs[l] | (((qh >> (3 * l)) & 7) << 8), delta);
  }
}

void iq1_m(const u8* b, float* y) {
  const u8* qs = b;
  const u8* qh = b + 32;
  const unsigned sc[4] = {u16_at(b + 48), u16_at(b + 50), u16_at(b + 52), u16_at(b + 54)};
  const unsigned d_bits = (sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) | ((sc[2] >> 4) & 0x0f00) | (sc[3] & 0xf000);
  const float d = half_to_float(static_cast<std::uint16_t>(d_bits));
  for (int ib = 0; ib < 8; ++ib, y += 32, qs += 4, qh += 2) {
    const unsigned shift = 6 * static_cast<unsigned>(ib % 2);
    const float dl1 = d * f(static_cast<int>(2 * ((sc[ib / 2] >> shift) & 0x7) + 1));
    const float dl2 = d * f(static_cast<int>(2 * ((sc[ib / 2] >> (shift + 3)) & 0x7) + 1));
    const unsigned h0 = qh[0], h1 = qh[1];
    const unsigned idx[4] = {qs[0] | ((h0 << 8) & 0x700u), qs[1] | ((h0 << 4) & 0x700u), qs[2] | ((h1 << 8) & 0x700u),
                             qs[3] | ((h1 << 4) & 0x700u)};
    const float delta[4] = {qh[0] & 0x08 ? -kIq1Delta : kIq1Delta, qh[0] & 0x80 ? -kIq1Delta : kIq1Delta,
                            qh[1] & 0x08 ? -kIq1Delta : kIq1Delta, qh[1] & 0x80 ? -kIq1Delta : kIq1Delta};
    for (int l = 0; l < 2; ++l) grid_iq1(y + 8 * l, dl1, idx[l], delta[l]);
    for (int l = 2; l < 4; ++l) grid_iq1(y + 8 * l, dl2, idx[l], delta[l]);
  }
}

void iq4_xs(const u8* b, float* y) {
  const float d = half_at(b);
  const unsigned scales_h = u16_at(b + 2);
  const u8* scales_l = b + 4;
  const u8* qs = b + 8;
  for (int ib = 0; ib < 8; ++ib, y += 32, qs += 16) {
    const int ls = static_cast<int>(((scales_l[ib / 2] >> (4 * (ib % 2))) & 0xf) | (((scales_h >> (2 * ib)) & 3) << 4));
    const float dl = d * f(ls - 32);
    for (int j = 0; j < 16; ++j) {
      y[j + 0] = dl * f(kIq4nlValues[qs[j] & 0xf]);
      y[j + 16] = dl * f(kIq4nlValues[qs[j] >> 4]);
    }
  }
}

}  // namespace tensor_inspect::ggml_blocks
