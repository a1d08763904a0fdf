// decode/minifloat.cpp — E8M0, FP4 E2M1, FP6 E2M3/E3M2 and an fp8 E4M3 table.
// Bit layouts from the OCP Microscaling Formats (MX) v1.0 spec, §5.3 (element types) and
// §5.4.1 (E8M0 scale): none of the element types has inf or NaN; E8M0 has NaN at 0xFF.
#include "decode/minifloat.hpp"

#include <cassert>
#include <cmath>
#include <limits>

#include "tensor_inspect/dtype.hpp"

namespace tensor_inspect {

namespace {

// A sign-exponent-mantissa code with no inf/NaN, subnormals at exponent 0 (MX §5.3).
float small_float(std::uint8_t code, int exp_bits, int man_bits, int bias) {
  const int sign = (code >> (exp_bits + man_bits)) & 1;
  const int e = (code >> man_bits) & ((1 << exp_bits) - 1);
  const int m = code & ((1 << man_bits) - 1);
  const float frac = static_cast<float>(m) / static_cast<float>(1 << man_bits);
  const float mag = e == 0 ? std::ldexp(frac, 1 - bias) : std::ldexp(1.0f + frac, e - bias);
  return sign ? -mag : mag;
}

template <typename F>
std::array<float, 256> table_of(F f) {
  std::array<float, 256> t{};
  for (int i = 0; i < 256; ++i) t[static_cast<std::size_t>(i)] = f(static_cast<std::uint8_t>(i));
  return t;
}

}  // namespace

float e8m0_to_float(std::uint8_t bits) {
  if (bits == 0xFF) return std::numeric_limits<float>::quiet_NaN();
  return std::ldexp(1.0f, static_cast<int>(bits) - 127);  // 2^-127 is a float32 subnormal, exact
}

float fp4_e2m1_to_float(std::uint8_t nibble) { return small_float(nibble & 0x0F, 2, 1, 1); }
float fp6_e2m3_to_float(std::uint8_t code) { return small_float(code & 0x3F, 2, 3, 1); }
float fp6_e3m2_to_float(std::uint8_t code) { return small_float(code & 0x3F, 3, 2, 3); }

const std::array<float, 16>& fp4_e2m1_table() {
  static const std::array<float, 16> t = [] {
    std::array<float, 16> v{};
    for (int i = 0; i < 16; ++i) v[static_cast<std::size_t>(i)] = fp4_e2m1_to_float(static_cast<std::uint8_t>(i));
    return v;
  }();
  return t;
}

const std::array<float, 256>& fp8_e4m3_table() {
  static const std::array<float, 256> t =
      table_of([](std::uint8_t b) { return static_cast<float>(fp8_to_double(b, DType::FP8E4M3)); });
  return t;
}

const std::array<float, 256>& e8m0_table() {
  static const std::array<float, 256> t = table_of(e8m0_to_float);
  return t;
}

void decode_e8m0_range(std::span<const std::byte> src, std::int64_t first, std::span<float> out) {
  const std::array<float, 256>& t = e8m0_table();
  assert(static_cast<std::size_t>(first) + out.size() <= src.size());
  const std::byte* p = src.data() + first;
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = t[static_cast<std::uint8_t>(p[i])];
}

void decode_fp4_range(std::span<const std::byte> src, std::int64_t first, std::span<float> out) {
  const std::array<float, 16>& t = fp4_e2m1_table();
  assert((static_cast<std::size_t>(first) + out.size() + 1) / 2 <= src.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto e = static_cast<std::size_t>(first) + i;
    const auto byte = static_cast<std::uint8_t>(src[e / 2]);
    out[i] = t[(e & 1) ? (byte >> 4) : (byte & 0x0F)];
  }
}

}  // namespace tensor_inspect
