// Tests of decode/ggml_types.cpp and the block decoders: hand-built blocks whose values follow
// from ggml's formulas by hand (ggml-quants.c dequantize_row_*; grid entries from ggml-common.h).
// The bit-for-bit comparison with gguf-py on random blocks is tests/ggml_reference.py.
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <doctest/doctest.h>

#include "decode/ggml_types.hpp"

namespace ti = tensor_inspect;

namespace {
/// Dequantizes one block of ggml type `id`, given as bytes.
std::vector<float> decode(std::uint32_t id, const std::vector<std::uint8_t>& block) {
  const ti::GgmlType* t = ti::ggml_type_from_id(id);
  REQUIRE(t != nullptr);
  REQUIRE(t->dequantizable);
  REQUIRE(block.size() == t->block_bytes);
  std::vector<float> out(t->block_elems);
  ti::dequantize_ggml(*t, std::span(reinterpret_cast<const std::byte*>(block.data()), block.size()), out);
  return out;
}
}  // namespace

TEST_CASE("IQ4_NL: d times kvalues_iq4nl, low nibbles first") {
  std::vector<std::uint8_t> b(18, 0);
  b[0] = 0x00, b[1] = 0x3c;  // d = 1.0
  b[2] = 0x8F;               // element 0: level 15 (113), element 16: level 8 (1)
  const auto y = decode(20, b);
  CHECK(y[0] == 113.0f);
  CHECK(y[16] == 1.0f);
  CHECK(y[1] == -127.0f);  // level 0
}

TEST_CASE("MXFP4: E8M0 scale halved times the doubled E2M1 values; 0 and 255 are not special") {
  std::vector<std::uint8_t> b(17, 0);
  b[0] = 127;   // 2^(127-128) = 0.5
  b[1] = 0x71;  // element 0: code 1 (1), element 16: code 7 (12)
  auto y = decode(39, b);
  CHECK(y[0] == 0.5f);
  CHECK(y[16] == 6.0f);
  b[0] = 0;
  y = decode(39, b);
  CHECK(y[0] == 0x1p-128f);  // ggml's subnormal pattern 0x00200000
  b[0] = 255;
  y = decode(39, b);
  CHECK(y[0] == 0x1p127f);
}

TEST_CASE("TQ1_0: base-3 digits read by multiplying the byte by powers of 3") {
  std::vector<std::uint8_t> b(54, 0);
  // Trits (2, 0, 1, 2, 1) are 2*81 + 9 + 2*3 + 1 = 178, stored as (178 * 256 + 242) / 243 = 188.
  b[0] = 188;
  b[52] = 0x00, b[53] = 0x40;  // d = 2.0
  const auto y = decode(34, b);
  CHECK(y[0] == 2.0f);
  CHECK(y[32] == -2.0f);
  CHECK(y[64] == 0.0f);
  CHECK(y[96] == 2.0f);
  CHECK(y[128] == 0.0f);
  CHECK(y[1] == -2.0f);  // byte 0: every trit 0, i.e. -1
}

TEST_CASE("TQ2_0: 2-bit codes minus one, four planes of 32 per 32 bytes") {
  std::vector<std::uint8_t> b(66, 0);
  b[0] = 0xE4;  // codes 0, 1, 2, 3 for elements 0, 32, 64, 96
  b[64] = 0x00, b[65] = 0x40;  // d = 2.0
  const auto y = decode(35, b);
  CHECK(y[0] == -2.0f);
  CHECK(y[32] == 0.0f);
  CHECK(y[64] == 2.0f);
  CHECK(y[96] == 4.0f);
}

TEST_CASE("IQ1_S: grid point 0 is all -1; scale 2s+1 and the delta's sign from qh") {
  std::vector<std::uint8_t> b(50, 0);
  b[0] = 0x00, b[1] = 0x3c;  // d = 1.0
  b[34] = 0x00, b[35] = 0x80 | (3 << 4);  // group 0: delta -0.125, scale 3 -> 7
  const auto y = decode(19, b);
  CHECK(y[0] == -7.875f);   // 7 * (-1 - 0.125)
  CHECK(y[31] == -7.875f);
  CHECK(y[32] == -0.875f);  // group 1: scale 1, delta +0.125
}

TEST_CASE("IQ2_XXS: grid point 0 is all 8; scale (0.5 + s) / 4; ksigns_iq2xs flips") {
  std::vector<std::uint8_t> b(66, 0);
  b[0] = 0x00, b[1] = 0x3c;  // d = 1.0
  const std::uint32_t aux = (15u << 28) | 1u;  // scale 15, group 0 sign index 1 (ksigns 129: elements 0 and 7)
  for (unsigned k = 0; k < 4; ++k) b[2 + 4 + k] = static_cast<std::uint8_t>(aux >> (8 * k));
  const auto y = decode(16, b);
  CHECK(y[0] == -31.0f);  // 1.0 * 15.5 * 0.25 * 8
  CHECK(y[1] == 31.0f);
  CHECK(y[7] == -31.0f);
  CHECK(y[32] == 1.0f);   // next 32: scale 0 -> 0.5 * 0.25 * 8
}

TEST_CASE("IQ4_XS: 6-bit scales from scales_l and scales_h, minus 32") {
  std::vector<std::uint8_t> b(136, 0);
  b[0] = 0x00, b[1] = 0x3c;  // d = 1.0
  b[2] = 0x03;               // scales_h: group 0 high bits 3
  b[4] = 0x01;               // scales_l: group 0 low bits 1 -> 49 - 32 = 17
  b[8] = 0x08;               // element 0: level 8 (1)
  const auto y = decode(23, b);
  CHECK(y[0] == 17.0f);
  CHECK(y[32] == -32.0f * -127.0f);  // group 1: scale 0 - 32, level 0
}

TEST_CASE("ggml types: every block fits kGgmlMaxBlockElems, decodable rows have a decoder; Q8_1 says why not") {
  for (std::uint32_t id = 0; id < 64; ++id)
    if (const ti::GgmlType* t = ti::ggml_type_from_id(id)) {
      CHECK(t->block_elems <= ti::kGgmlMaxBlockElems);
      CHECK(t->dequantizable == (t->decode != nullptr));
    }
  CHECK(ti::ggml_refusal_reason(*ti::ggml_type_from_id(9)) == "ggml and gguf-py have no dequantization for it");
  CHECK(ti::ggml_refusal_reason(*ti::ggml_type_from_id(12)).empty());
}
