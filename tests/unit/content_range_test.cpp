// Content-Range values as RFC 9110 section 14.4 writes them (its own examples first).
#include <doctest/doctest.h>

#include "remote/content_range.hpp"

namespace ti = tensor_inspect;

TEST_CASE("Content-Range: RFC 9110's examples and what a range answer must not be") {
  ti::ContentRange r;
  REQUIRE(ti::parse_content_range("bytes 42-1233/1234", r));
  CHECK((r.first == 42 && r.last == 1233 && r.size_known && r.size == 1234 && !r.unsatisfied));
  ti::ContentRange u;
  REQUIRE(ti::parse_content_range("bytes 42-1233/*", u));
  CHECK((u.first == 42 && u.last == 1233 && !u.size_known));
  ti::ContentRange s;
  REQUIRE(ti::parse_content_range("bytes */1234", s));
  CHECK((s.unsatisfied && s.size_known && s.size == 1234));
  ti::ContentRange bad;
  CHECK_FALSE(ti::parse_content_range("bytes */*", bad));         // unsatisfied needs the size
  CHECK_FALSE(ti::parse_content_range("bytes 9-3/10", bad));      // first after last
  CHECK_FALSE(ti::parse_content_range("items 0-1/2", bad));       // another unit
  CHECK_FALSE(ti::parse_content_range("bytes 0-1", bad));         // no size
  CHECK_FALSE(ti::parse_content_range("bytes -1/2", bad));        // no first
  CHECK_FALSE(ti::parse_content_range("bytes 0-x/2", bad));
  CHECK_FALSE(ti::parse_content_range("bytes 0-1/12345678901234567890", bad));  // 20 digits: beyond u64
  ti::ContentRange big;
  REQUIRE(ti::parse_content_range("bytes 0-0/9999999999999999999", big));       // 19 digits fit
  CHECK(big.size == 9999999999999999999ULL);
}
