#include <doctest/doctest.h>

#include <bit>
#include <cstdint>

#include "tensor_inspect/render.hpp"

namespace ti = tensor_inspect;

namespace {
struct ReprCase {
  std::uint64_t bits;
  const char* python;
};
constexpr ReprCase kCases[] = {
#include "float_repr_cases.inc"
};
}  // namespace

TEST_CASE("float_repr matches CPython's repr for edge values and 400 random doubles") {
  for (const auto& c : kCases) {
    double v = std::bit_cast<double>(c.bits);
    CAPTURE(c.python);
    CHECK(ti::float_repr(v) == c.python);
  }
}

TEST_CASE("float_repr switches to exponent form at 1e16 and below 1e-4, as Python does") {
  CHECK(ti::float_repr(1e16) == "1e+16");
  CHECK(ti::float_repr(9999999999999998.0) == "9999999999999998.0");
  CHECK(ti::float_repr(1e-5) == "1e-05");
  CHECK(ti::float_repr(0.0001) == "0.0001");
  CHECK(ti::float_repr(1.5e-7) == "1.5e-07");
  CHECK(ti::float_repr(static_cast<double>(0.1f)) == "0.10000000149011612");
}

TEST_CASE("escape_untrusted shows control characters and stray bytes as Python repr escapes") {
  CHECK(ti::escape_untrusted("a\nb\r\tc\x1b[31m", false) == "a\\nb\\r\\tc\\x1b[31m");
  CHECK(ti::escape_untrusted("caf\xc3\xa9 \xff", false) == "caf\xc3\xa9 \\xff");  // valid UTF-8 kept, 0xff escaped
  CHECK(ti::escape_untrusted("a\\b", false) == "a\\b");
  CHECK(ti::escape_untrusted("a\\b", true) == "a\\\\b");
}
