#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "render/digits.hpp"

namespace r = tensor_inspect::render;

namespace {
std::string uint_repr(std::uint64_t v) {
  char buf[24];
  return std::string(buf, r::write_uint(v, buf));
}
std::string int_repr(std::int64_t v) {
  char buf[24];
  return std::string(buf, r::write_int(v, buf));
}
}  // namespace

TEST_CASE("write_uint and write_int print every digit count, both sides of each power of ten") {
  CHECK(uint_repr(0) == "0");
  CHECK(int_repr(0) == "0");
  std::uint64_t p = 1;
  for (int digits = 1; digits <= 20; ++digits) {
    CAPTURE(digits);
    for (std::uint64_t v : {p - 1, p, p + 1, p * 3 + 7}) {
      if (v == 0 && p > 1) continue;
      CHECK(uint_repr(v) == std::to_string(v));
      CHECK(r::decimal_length(v) == static_cast<int>(std::to_string(v).size()));
    }
    if (digits < 20) p *= 10;
  }
  const auto max = std::numeric_limits<std::uint64_t>::max();
  CHECK(uint_repr(max) == "18446744073709551615");
  CHECK(int_repr(std::numeric_limits<std::int64_t>::min()) == "-9223372036854775808");
  CHECK(int_repr(std::numeric_limits<std::int64_t>::max()) == "9223372036854775807");
  CHECK(int_repr(-1) == "-1");
  CHECK(int_repr(-10) == "-10");
}
