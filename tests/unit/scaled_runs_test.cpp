// Tests of decode/scaled_runs.cpp and decode/word_strips.cpp: every fp8 E4M3 code and random 4-bit words, decoded by
// the (AVX2 where there is one) loops, give the bits of the scalar formulas written out here from the table and the
// packing (tests/quant_writers.py writes files the same way).
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <doctest/doctest.h>

#include "decode/minifloat.hpp"
#include "decode/scaled_runs.hpp"
#include "decode/word_strips.hpp"

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
        const auto q =
            static_cast<std::int32_t>((words[static_cast<std::size_t>(f / 8 * kStride)] >> (4 * (f % 8))) & 15u);
        differ += !same_bits(out[static_cast<std::size_t>(k)], 0.0123f * static_cast<float>(q - 8));
      }
      CHECK(differ == 0);
      CHECK(out[static_cast<std::size_t>(n)] == -1.0f);  // nothing written past the run
    }
  }
}

namespace {

// Field f of `bits` bits of the little-endian words, as AutoGPTQ's (qweight >> shift) & maxq.
std::int32_t field_of(const std::vector<std::uint32_t>& words, int bits, std::int64_t f) {
  const std::int64_t per = 32 / bits;
  const std::uint32_t word = words[static_cast<std::size_t>(f / per)];
  return static_cast<std::int32_t>((word >> (bits * (f % per))) & ((1u << bits) - 1));
}

const std::byte* bytes_of(const std::vector<std::uint32_t>& words) {
  return reinterpret_cast<const std::byte*>(words.data());
}

}  // namespace

TEST_CASE("packed_scaled, packed_grouped, packed_runs, packed_affine: the scalar formulas, 2, 4 and 8 bits") {
  std::mt19937 rng(5);
  std::vector<std::uint32_t> words(64);
  for (auto& w : words) w = static_cast<std::uint32_t>(rng());
  // Groups in runs of 5 (ragged against words and vectors), then a shuffled stretch (act-order).
  std::vector<std::int32_t> group_of(64 * 16);
  for (std::size_t f = 0; f < group_of.size(); ++f) group_of[f] = static_cast<std::int32_t>(f / 5 % 7);
  std::shuffle(group_of.begin() + 300, group_of.begin() + 420, rng);
  std::vector<std::int64_t> run_end_of(group_of.size());
  for (std::size_t f = group_of.size(); f-- > 0;)
    run_end_of[f] = f + 1 < group_of.size() && group_of[f + 1] == group_of[f] ? run_end_of[f + 1]
                                                                              : static_cast<std::int64_t>(f + 1);
  const std::vector<float> scale_of{0.5f, -0.0123f, 3.0517578125e-05f, 7.0f, 1e-30f, -2.5f, 0.1f};
  const std::vector<std::int32_t> zero_of{8, 0, 16, 3, 255, 1, 2};
  std::vector<std::byte> odd(4 * words.size() + 1);
  std::memcpy(odd.data() + 1, words.data(), 4 * words.size());
  for (int bits : {2, 4, 8}) {
    const std::int64_t fields = 64 * (32 / bits);
    for (std::int64_t first : {0, 3, 8, 13, 296}) {
      for (std::int64_t n : {0, 1, 7, 8, 29, 131}) {
        if (first + n > fields) continue;
        std::vector<float> a(static_cast<std::size_t>(n) + 1, -1.0f), g = a, r = a, f = a;
        ti::packed_scaled(odd.data() + 1, bits, first, n, 3, 0.0123f, a.data());  // words at an odd address
        ti::packed_grouped(bytes_of(words), bits, first, n, group_of.data(), scale_of.data(), zero_of.data(), g.data());
        ti::packed_runs(bytes_of(words), bits, first, n, group_of.data(), run_end_of.data(), scale_of.data(),
                        zero_of.data(), r.data());
        ti::packed_affine(bytes_of(words), bits, first, n, 0.0123f, -0.5f, f.data());
        int differ = 0;
        for (std::int64_t k = 0; k < n; ++k) {
          const std::int64_t at = first + k;
          const auto i = static_cast<std::size_t>(k);
          const std::int32_t q = field_of(words, bits, at), gi = group_of[static_cast<std::size_t>(at)];
          const auto gs = static_cast<std::size_t>(gi);
          const float grouped = scale_of[gs] * static_cast<float>(q - zero_of[gs]);
          differ += !same_bits(a[i], 0.0123f * static_cast<float>(q - 3));
          differ += !same_bits(g[i], grouped);
          differ += !same_bits(r[i], grouped);
          differ += !same_bits(f[i], 0.0123f * static_cast<float>(q) + -0.5f);
        }
        CHECK(differ == 0);
        const auto end = static_cast<std::size_t>(n);  // nothing written past the run
        CHECK((a[end] == -1.0f && g[end] == -1.0f && r[end] == -1.0f && f[end] == -1.0f));
      }
    }
  }
}

TEST_CASE("field_scaled: one field of each word (AWQ's order), minus the zero, times the scale") {
  std::mt19937 rng(6);
  std::vector<std::uint32_t> words(41);
  for (auto& w : words) w = static_cast<std::uint32_t>(rng());
  for (int shift : {0, 4, 16, 28}) {
    for (std::int64_t n : {0, 1, 8, 9, 41}) {
      std::vector<float> out(static_cast<std::size_t>(n) + 1, -1.0f);
      ti::field_scaled(bytes_of(words), shift, 4, n, 6, -0.25f, out.data());
      int differ = 0;
      for (std::int64_t k = 0; k < n; ++k) {
        const auto q = static_cast<std::int32_t>((words[static_cast<std::size_t>(k)] >> shift) & 15u);
        differ += !same_bits(out[static_cast<std::size_t>(k)], static_cast<float>(q - 6) * -0.25f);
      }
      CHECK(differ == 0);
      CHECK(out[static_cast<std::size_t>(n)] == -1.0f);
    }
  }
}

TEST_CASE("copy_word_columns: columns of a row-major word matrix, transposed, for any shape") {
  std::mt19937 rng(7);
  for (auto [rows, cols, col0, ncols] : {std::array<std::int64_t, 4>{37, 50, 16, 32}, {8, 8, 0, 8}, {3, 5, 1, 3},
                                         {64, 200, 184, 16}, {19, 40, 7, 9}}) {
    std::vector<std::uint32_t> m(static_cast<std::size_t>(rows * cols));
    for (auto& w : m) w = static_cast<std::uint32_t>(rng());
    std::vector<std::uint32_t> out(static_cast<std::size_t>(rows * ncols) + 1, 0xdeadbeefu);
    ti::copy_word_columns(bytes_of(m), rows, cols, col0, ncols, out.data());
    int differ = 0;
    for (std::int64_t j = 0; j < ncols; ++j)
      for (std::int64_t w = 0; w < rows; ++w)
        differ += out[static_cast<std::size_t>(j * rows + w)] != m[static_cast<std::size_t>(w * cols + col0 + j)];
    CHECK(differ == 0);
    CHECK(out.back() == 0xdeadbeefu);
  }
}

TEST_CASE("thread_strip: a strip is found again by its owner and row, and two are kept") {
  const std::uint64_t a = ti::new_strip_owner(), b = ti::new_strip_owner();
  CHECK(a != b);
  ti::WordStrip& s = ti::thread_strip(a, 32);
  s.owner = a, s.first_row = 32;
  ti::WordStrip& t = ti::thread_strip(b, 0);
  CHECK(&t != &s);
  t.owner = b, t.first_row = 0;
  CHECK(&ti::thread_strip(a, 32) == &s);  // still there beside b's
  CHECK(&ti::thread_strip(b, 0) == &t);
  ti::WordStrip& u = ti::thread_strip(a, 64);  // a's other rows take the least recently used: s
  CHECK(&u == &s);
}

TEST_CASE("nibbles_lut_scaled: each code's table value times the scale, low or high nibble first") {
  std::mt19937 rng(8);
  std::vector<std::byte> bytes(70);
  for (auto& b : bytes) b = static_cast<std::byte>(rng() & 0xFF);
  std::array<float, 16> lut{};
  for (std::size_t c = 0; c < 16; ++c) lut[c] = (c < 8 ? 1.0f : -1.0f) * static_cast<float>(c % 8) * 0.75f;
  lut[8] = -0.0f;
  for (bool high_first : {false, true})
    for (std::int64_t first : {0, 1, 7, 8, 13})
      for (std::int64_t n : {0, 1, 9, 16, 100}) {
        std::vector<float> out(static_cast<std::size_t>(n) + 1, -1.0f);
        ti::nibbles_lut_scaled(bytes.data(), high_first, first, n, lut.data(), 0.3f, out.data());
        int differ = 0;
        for (std::int64_t k = 0; k < n; ++k) {
          const std::int64_t at = first + k;
          const auto byte = static_cast<std::uint8_t>(bytes[static_cast<std::size_t>(at / 2)]);
          const bool high = (at % 2 == 0) == high_first;  // bitsandbytes: the first value in the high nibble
          differ += !same_bits(out[static_cast<std::size_t>(k)], lut[high ? byte >> 4 : byte & 0x0F] * 0.3f);
        }
        CHECK(differ == 0);
        CHECK(out[static_cast<std::size_t>(n)] == -1.0f);
      }
}
