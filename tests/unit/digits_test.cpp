#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
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
// The branch-free writers, with a guard byte after the 20 (21) bytes they may write.
std::string uint_fixed_repr(std::uint64_t v) {
  char buf[32];
  std::memset(buf, 'x', sizeof buf);
  const std::string s(buf, r::write_uint_fixed(v, buf));
  CHECK(buf[20] == 'x');
  return s;
}
std::string int_fixed_repr(std::int64_t v) {
  char buf[32];
  std::memset(buf, 'x', sizeof buf);
  const std::string s(buf, r::write_int_fixed(v, buf));
  CHECK(buf[21] == 'x');
  return s;
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
      CHECK(uint_fixed_repr(v) == std::to_string(v));
      CHECK(int_fixed_repr(static_cast<std::int64_t>(v)) == std::to_string(static_cast<std::int64_t>(v)));
      CHECK(int_fixed_repr(-static_cast<std::int64_t>(v / 2)) == std::to_string(-static_cast<std::int64_t>(v / 2)));
      CHECK(r::decimal_length(v) == static_cast<int>(std::to_string(v).size()));
    }
    if (digits < 20) p *= 10;
  }
  const auto max = std::numeric_limits<std::uint64_t>::max();
  CHECK(uint_repr(max) == "18446744073709551615");
  CHECK(uint_fixed_repr(max) == "18446744073709551615");
  CHECK(int_fixed_repr(std::numeric_limits<std::int64_t>::min()) == "-9223372036854775808");
  CHECK(int_fixed_repr(std::numeric_limits<std::int64_t>::max()) == "9223372036854775807");
  CHECK(int_repr(std::numeric_limits<std::int64_t>::min()) == "-9223372036854775808");
  CHECK(int_repr(std::numeric_limits<std::int64_t>::max()) == "9223372036854775807");
  CHECK(int_repr(-1) == "-1");
  CHECK(int_repr(-10) == "-10");
}

TEST_CASE("eight_digits_ascii and write_significand agree with std::to_string") {
  // Every 4-digit half, and every pair boundary, through the SWAR lanes.
  for (std::uint32_t v : {0u, 1u, 9u, 10u, 99u, 100u, 9999u, 10000u, 12345678u, 99999999u, 90000009u, 10101010u}) {
    CAPTURE(v);
    const std::uint64_t w = r::eight_digits_ascii(v);
    std::string want = std::to_string(v);
    want.insert(0, 8 - want.size(), '0');
    CHECK(std::string(reinterpret_cast<const char*>(&w), 8) == want);
  }
  for (std::uint32_t v = 0; v < 100000000; v += 9973) {
    const std::uint64_t w = r::eight_digits_ascii(v);
    std::string want = std::to_string(v);
    want.insert(0, 8 - want.size(), '0');
    REQUIRE(std::string(reinterpret_cast<const char*>(&w), 8) == want);
  }
  // Every length from 1 to 17 digits (a double's shortest significand), both sides of each power of ten.
  std::uint64_t p = 1;
  for (int digits = 1; digits <= 17; ++digits) {
    CAPTURE(digits);
    for (std::uint64_t v : {p - 1, p, p + 1, p * 3 + 7, p * 10 - 1}) {
      if (v == 0 && p > 1) continue;
      char buf[32];
      std::memset(buf, 'x', sizeof buf);
      const int len = r::decimal_length(v);
      char* end = r::write_significand(v, len, buf + 4);
      CHECK(std::string(buf + 4, end) == std::to_string(v));
      CHECK(std::string(buf, 4) == "xxxx");  // nothing before out
      for (char* q = buf + 4 + 17; q < buf + sizeof buf; ++q) CHECK(*q == 'x');  // at most 17 bytes
    }
    p *= 10;
  }
}
