// Tests of decode/half.hpp: the inline float16/bfloat16/fp8 conversions every block loop uses,
// checked over every bit pattern against the double-returning references of dtype.hpp, and on
// hand-checked values.
#include <cmath>
#include <cstdint>

#include <doctest/doctest.h>

#include "decode/half.hpp"

namespace ti = tensor_inspect;

namespace {
bool same_value(float got, double want) {
  if (std::isnan(want)) return std::isnan(got);
  return static_cast<double>(got) == want && std::signbit(got) == std::signbit(want);
}
}  // namespace

TEST_CASE("half_to_float: every float16 pattern equals float16_to_double, signed zeros and nan included") {
  int wrong = 0;
  for (unsigned h = 0; h < 65536; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    wrong += !same_value(ti::half_to_float(bits), ti::float16_to_double(bits));
  }
  CHECK(wrong == 0);
  CHECK(ti::half_to_float(0x3c00) == 1.0f);
  CHECK(ti::half_to_float(0x0001) == 0x1p-24f);    // the smallest subnormal
  CHECK(ti::half_to_float(0x03ff) == 0x3ffp-24f);  // the largest subnormal
  CHECK(ti::half_to_float(0xfbff) == -65504.0f);
  CHECK(std::isinf(ti::half_to_float(0x7c00)));
  CHECK(std::isnan(ti::half_to_float(0x7e00)));
}

TEST_CASE("half_at reads a little-endian half at any address") {
  const std::uint8_t bytes[3] = {0xff, 0x00, 0x3c};
  CHECK(ti::half_at(bytes + 1) == 1.0f);
}

TEST_CASE("bfloat16_to_float: every pattern equals bfloat16_to_double") {
  int wrong = 0;
  for (unsigned b = 0; b < 65536; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    wrong += !same_value(ti::bfloat16_to_float(bits), ti::bfloat16_to_double(bits));
  }
  CHECK(wrong == 0);
  CHECK(ti::bfloat16_to_float(0x3f80) == 1.0f);
}

TEST_CASE("fp8_table: every code of both fp8 types equals fp8_to_double") {
  for (ti::DType d : {ti::DType::FP8E4M3, ti::DType::FP8E5M2}) {
    int wrong = 0;
    for (unsigned b = 0; b < 256; ++b)
      wrong += !same_value(ti::fp8_table(d)[b], ti::fp8_to_double(static_cast<std::uint8_t>(b), d));
    CHECK(wrong == 0);
  }
  CHECK(ti::fp8_table(ti::DType::FP8E4M3)[0x7e] == 448.0f);
  CHECK(ti::fp8_table(ti::DType::FP8E5M2)[0x7b] == 57344.0f);
}
