// tests/unit/minifloat_test.cpp — decode/minifloat.cpp against the OCP MX v1.0 spec's
// tables (§5.3.2 FP6, §5.3.3 FP4, §5.4.1 E8M0), values written out by hand here.
#include "decode/minifloat.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

namespace ti = tensor_inspect;

TEST_CASE("FP4 E2M1: the spec's 16 values") {
  const float want[16] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6, -0.0f, -0.5f, -1, -1.5f, -2, -3, -4, -6};
  for (int i = 0; i < 16; ++i) {
    CHECK(ti::fp4_e2m1_to_float(static_cast<std::uint8_t>(i)) == want[i]);
    CHECK(std::signbit(ti::fp4_e2m1_to_float(static_cast<std::uint8_t>(i))) == (i >= 8));
  }
}

TEST_CASE("FP6: E2M3 max 7.5, min subnormal 0.125; E3M2 max 28, min subnormal 0.0625") {
  CHECK(ti::fp6_e2m3_to_float(0x1F) == 7.5f);    // 0 11 111: 2^2 * 1.875
  CHECK(ti::fp6_e2m3_to_float(0x01) == 0.125f);  // 0 00 001: 2^0 * 1/8
  CHECK(ti::fp6_e2m3_to_float(0x08) == 1.0f);    // 0 01 000
  CHECK(ti::fp6_e2m3_to_float(0x3F) == -7.5f);
  CHECK(ti::fp6_e3m2_to_float(0x1F) == 28.0f);    // 0 111 11: 2^4 * 1.75
  CHECK(ti::fp6_e3m2_to_float(0x01) == 0.0625f);  // 0 000 01: 2^-2 * 1/4
  CHECK(ti::fp6_e3m2_to_float(0x0C) == 1.0f);     // 0 011 00
  CHECK(ti::fp6_e3m2_to_float(0x20) == -0.0f);
}

TEST_CASE("E8M0: 2^(e-127), 0xFF NaN") {
  CHECK(ti::e8m0_to_float(127) == 1.0f);
  CHECK(ti::e8m0_to_float(128) == 2.0f);
  CHECK(ti::e8m0_to_float(0) == std::ldexp(1.0f, -127));
  CHECK(ti::e8m0_to_float(254) == std::ldexp(1.0f, 127));
  CHECK(std::isnan(ti::e8m0_to_float(255)));
}

TEST_CASE("fp8 E4M3 table: 448 max, NaN at 0x7F/0xFF, subnormal 2^-9") {
  const auto& t = ti::fp8_e4m3_table();
  CHECK(t[0x7E] == 448.0f);
  CHECK(t[0x38] == 1.0f);
  CHECK(t[0x01] == std::ldexp(1.0f, -9));
  CHECK(std::isnan(t[0x7F]));
  CHECK(std::isnan(t[0xFF]));
  CHECK(t[0xB8] == -1.0f);
}

TEST_CASE("decode_fp4_range: low nibble first, from any element") {
  const std::byte bytes[] = {std::byte{0x21}, std::byte{0xF7}};  // elements 1(0.5), 2(1.0), 7(6.0), F(-6.0)
  std::vector<float> out(4);
  ti::decode_fp4_range(bytes, 0, out);
  CHECK(out == std::vector<float>{0.5f, 1.0f, 6.0f, -6.0f});
  std::vector<float> tail(2);
  ti::decode_fp4_range(bytes, 1, tail);
  CHECK(tail == std::vector<float>{1.0f, 6.0f});
}
