// Tests of text/byte_classes.hpp: the eight-bytes-at-once scans against their own
// definitions written byte by byte (every byte value at every position of a word, and
// random strings of 0 to 23 bytes scanned from every start, so the tail paths are covered).
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "text/byte_classes.hpp"

namespace bc = tensor_inspect::byte_classes;

namespace {

// The classes as the JSON grammar (RFC 8259 strings) and printable ASCII define them.
bool json_special(unsigned char c) { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80; }
bool not_plain(unsigned char c) { return c < 0x20 || c > 0x7e || c == '"' || c == '\\'; }

template <bool (*Class)(unsigned char)>
std::size_t first_from(const std::string& s, std::size_t from) {
  for (std::size_t i = from; i < s.size(); ++i)
    if (Class(static_cast<unsigned char>(s[i]))) return i;
  return s.size();
}

}  // namespace

TEST_CASE("byte classes: every byte value at every position of a word") {
  for (int c = 0; c < 256; ++c)
    for (std::size_t pos = 0; pos < 8; ++pos) {
      std::string s(8, 'a');
      s[pos] = static_cast<char>(c);
      const auto u = static_cast<unsigned char>(c);
      CHECK((bc::json_string_special(bc::load8(s.data())) != 0) == json_special(u));
      CHECK((bc::not_plain(bc::load8(s.data())) != 0) == not_plain(u));
      CHECK(bc::find_json_string_special(s, 0) == (json_special(u) ? pos : 8));
      CHECK(bc::plain(s) == !not_plain(u));
    }
}

TEST_CASE("byte classes: random strings from every start") {
  std::mt19937 rng(20261201);
  for (int it = 0; it < 200000; ++it) {
    std::string s(rng() % 24, 'a');
    for (char& c : s) c = rng() % 10 < 7 ? static_cast<char>(0x20 + rng() % 95) : static_cast<char>(rng() % 256);
    const std::size_t from = rng() % (s.size() + 1);
    REQUIRE(bc::find_json_string_special(s, from) == first_from<json_special>(s, from));
    REQUIRE(bc::find_first<bc::not_plain, bc::not_plain_byte>(s, from) == first_from<not_plain>(s, from));
    REQUIRE(bc::plain(s) == (first_from<not_plain>(s, 0) == s.size()));
  }
}
