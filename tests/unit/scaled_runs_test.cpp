// Tests of decode/scaled_runs.cpp: every fp8 E4M3 code and random 4-bit words, decoded by the
// (AVX2 where there is one) loops, give the bits of the scalar formulas written out here
// from the table and the packing (tests/quant_writers.py writes files the same way).
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include "decode/minifloat.hpp"
#include "decode/scaled_runs.hpp"

namespace ti = tensor_inspect;

namespace {
bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
}  // namespace

TEST_CASE("fp8_e4m3_scaled: each code's table value times the scale, bit for bit, NaN and -0 included") {
  std::vector<std::byte> codes;
  for (int rep = 0; rep < 3; ++rep)  // 768 codes: every code in every lane position and in the tail
    for (int c = 0; c < 256; ++c) codes.push_back(static_cast<std::byte>((c * 7 + rep) & 0xFF));
  codes.push_back(std::byte{0x80});
  const std::array<float, 256>& lut = ti::fp8_e4m3_table();
  for (float scale : {1.0f, 3.0517578125e-05f, -0.75f, 1e30f, 0.0f}) {
    std::vector<float> out(codes.size());
    ti::fp8_e4m3_scaled(codes.data(), static_cast<std::int64_t>(codes.size()), scale, out.data());
    int differ = 0;
    for (std::size_t k = 0; k < codes.size(); ++k)
      differ += !same_bits(out[k], lut[static_cast<std::uint8_t>(codes[k])] * scale);
    CHECK(differ == 0);
  }
  float tail = 1.0f;  // a run shorter than one vector
  ti::fp8_e4m3_scaled(codes.data() + 1, 1, 2.0f, &tail);
  CHECK(tail == lut[static_cast<std::uint8_t>(codes[1])] * 2.0f);
}

TEST_CASE("packed4_scaled: field f of word f / 8 (stride apart), minus the zero, times the scale") {
  std::mt19937 rng(4);
  constexpr std::int64_t kStride = 3, kWords = 40;
  std::vector<std::uint32_t> words(static_cast<std::size_t>(kWords * kStride));
  for (auto& w : words) w = static_cast<std::uint32_t>(rng());
  const auto* bytes = reinterpret_cast<const std::byte*>(words.data());
  for (std::int64_t first : {0, 3, 8, 13}) {
    for (std::int64_t n : {0, 1, 5, 8, 29, 128 + 3}) {
      if (first + n > kWords * 8) continue;
      std::vector<float> out(static_cast<std::size_t>(n) + 1, -1.0f);
      ti::packed4_scaled(bytes, kStride, first, n, 8, 0.0123f, out.data());
      int differ = 0;
      for (std::int64_t k = 0; k < n; ++k) {
        const std::int64_t f = first + k;
        const auto q = static_cast<std::int32_t>((words[static_cast<std::size_t>(f / 8 * kStride)] >> (4 * (f % 8))) & 15u);
        differ += !same_bits(out[static_cast<std::size_t>(k)], 0.0123f * static_cast<float>(q - 8));
      }
      CHECK(differ == 0);
      CHECK(out[static_cast<std::size_t>(n)] == -1.0f);  // nothing written past the run
    }
  }
}
