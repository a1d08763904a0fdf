// Tests of decode/ggml_fast.cpp: its vector loops give the bits of the reference block
// decoders (decode/ggml_*.cpp, which tests/ggml_reference.py checks against gguf-py) on
// random blocks whose scales are realistic, +-inf, NaN, zero and subnormal.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include "decode/cpu_features.hpp"
#include "decode/ggml_fast.hpp"
#include "decode/ggml_types.hpp"

namespace ti = tensor_inspect;

namespace {

// float16 bits: mostly 1e-4..1e-1 of either sign, sometimes a special value.
std::uint16_t some_half(std::mt19937& rng) {
  static const std::uint16_t special[] = {0x7C00, 0xFC00, 0x7E00, 0x0000, 0x8000, 0x0001, 0x03FF, 0x7BFF};
  if (rng() % 8 == 0) return special[rng() % 8];
  return static_cast<std::uint16_t>(0x0800 + rng() % (0x2E00 - 0x0800)) |
         static_cast<std::uint16_t>(rng() % 5 == 0 ? 0x8000 : 0);
}

// Equal bits, or both NaN: IEEE 754 leaves the sign and payload of a NaN an operation makes
// unspecified when both operands are NaN (x86 returns the first), and clang and GCC order the
// operands of the reference loop differently; the acceptance asks for NaN where the reference
// has NaN, every other value bit for bit.
std::size_t first_difference(const std::vector<float>& a, const std::vector<float>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) && std::isnan(b[i])) continue;
    if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0) return i;
  }
  return a.size();
}

void check_type(std::uint32_t id, const std::vector<int>& half_offsets) {
  const ti::GgmlType* t = ti::ggml_type_from_id(id);
  REQUIRE(t != nullptr);
  std::mt19937 rng(id);
  constexpr std::size_t kBlocks = 97;
  std::vector<std::uint8_t> bytes(kBlocks * t->block_bytes);
  for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());
  for (std::size_t k = 0; k < kBlocks; ++k)
    for (int at : half_offsets) {
      const std::uint16_t h = some_half(rng);
      std::memcpy(&bytes[k * t->block_bytes + static_cast<std::size_t>(at)], &h, 2);
    }
  std::vector<float> want(kBlocks * t->block_elems), got(want.size(), -1.0f), fast(want.size(), -1.0f);
  for (std::size_t k = 0; k < kBlocks; ++k) t->decode(&bytes[k * t->block_bytes], &want[k * t->block_elems]);
  ti::dequantize_ggml(*t, std::span(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()), got);
  CHECK(first_difference(got, want) == want.size());
  if (const ti::GgmlBlocksDecoder f = ti::ggml_fast_decoder(id)) {
    f(bytes.data(), kBlocks, fast.data());
    CHECK(first_difference(fast, want) == want.size());
  }
}

}  // namespace

TEST_CASE("ggml_fast_decoder gives the reference decoders' bits (Q4_K, IQ4_NL, IQ4_XS, MXFP4)") {
  // On an AVX2 machine (this project's CI and bench VM) every one of the four has a vector loop.
  if (ti::cpu_has_avx2_f16c())
    for (std::uint32_t id : {12u, 20u, 23u, 39u}) CHECK(static_cast<bool>(ti::ggml_fast_decoder(id)));
  CHECK_FALSE(static_cast<bool>(ti::ggml_fast_decoder(2)));  // Q4_0: the reference loop
  SUBCASE("Q4_K") { check_type(12, {0, 2}); }
  SUBCASE("IQ4_NL") { check_type(20, {0}); }
  SUBCASE("IQ4_XS") { check_type(23, {0}); }
  SUBCASE("MXFP4") { check_type(39, {}); }  // every E8M0 byte, 0, 1 and 255 among them
}
