// text/byte_classes.hpp — byte classes of eight bytes at once (SIMD within a register),
// for scans over text that is plain ASCII nearly always: tensor names in a listing, the
// strings of a JSON header. A scan steps over eight ordinary bytes per test and stops at
// the first byte that needs a closer look, which its caller then handles byte by byte.
//
// Every mask is exact: the high bit of byte k is set when byte k is in the class, and
// never for a byte that is not (no borrow crosses bytes), so the first flagged byte is
// the first such byte in memory on either byte order.
//
// It lives in text/, a folder of its own, because two layers use it: render/ (names in a
// listing) and loaders/ (the JSON cursor's strings); a loader includes nothing of render/.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace tensor_inspect::byte_classes {

inline constexpr std::uint64_t kOnes = 0x0101010101010101ull;
inline constexpr std::uint64_t kHigh = 0x8080808080808080ull;
inline constexpr std::uint64_t kLow7 = 0x7f7f7f7f7f7f7f7full;

/// Eight bytes from `p` as they lie in memory.
inline std::uint64_t load8(const char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}

/// Bytes of `w` equal to `c`.
constexpr std::uint64_t equal_to(std::uint64_t w, unsigned char c) {
  const std::uint64_t x = w ^ (kOnes * c);
  return ~(((x & kLow7) + kLow7) | x) & kHigh;
}

/// Bytes of `w` below `n` (1 <= n <= 0x80).
constexpr std::uint64_t below(std::uint64_t w, unsigned char n) {
  return ~(((w & kLow7) + kOnes * static_cast<std::uint64_t>(0x80 - n)) | w) & kHigh;
}

/// Bytes of `w` at or above 0x80 (lead and continuation bytes of UTF-8).
constexpr std::uint64_t non_ascii(std::uint64_t w) { return w & kHigh; }

/// The index (0..7, in memory order) of the first flagged byte of a non-zero `mask`.
inline std::size_t first(std::uint64_t mask) {
  if constexpr (std::endian::native == std::endian::little) return static_cast<std::size_t>(std::countr_zero(mask)) / 8;
  else return static_cast<std::size_t>(std::countl_zero(mask)) / 8;
}

/// Bytes a JSON string cannot hold as they are, or that end it: '"', '\\', control
/// characters (below 0x20) and the bytes of UTF-8 sequences (checked one by one).
constexpr std::uint64_t json_string_special(std::uint64_t w) {
  return equal_to(w, '"') | equal_to(w, '\\') | below(w, 0x20) | non_ascii(w);
}

/// Bytes that printing escapes or quoting changes: control characters, DEL, non-ASCII,
/// '"' and '\\'.
constexpr std::uint64_t not_plain(std::uint64_t w) {
  const std::uint64_t del_or_above = (((w & kLow7) + kOnes) | w) & kHigh;  // 0x7f and up
  return below(w, 0x20) | del_or_above | equal_to(w, '"') | equal_to(w, '\\');
}

/// The index in `s` of the first byte `Class` flags at or after `from`, or s.size().
template <std::uint64_t (*Class)(std::uint64_t), bool (*One)(unsigned char)>
std::size_t find_first(std::string_view s, std::size_t from) {
  std::size_t i = from;
  for (; s.size() - i >= 8; i += 8)
    if (const std::uint64_t m = Class(load8(s.data() + i))) return i + first(m);
  if (i == s.size()) return i;
  if (i > from) {
    // The last eight bytes, overlapping bytes the loop found ordinary: a flag is past them.
    const std::size_t last = s.size() - 8;
    const std::uint64_t m = Class(load8(s.data() + last));
    return m ? last + first(m) : s.size();
  }
  for (; i < s.size(); ++i)
    if (One(static_cast<unsigned char>(s[i]))) return i;
  return s.size();
}

constexpr bool json_string_special_byte(unsigned char c) { return c == '"' || c == '\\' || c < 0x20 || c >= 0x80; }
constexpr bool not_plain_byte(unsigned char c) { return c < 0x20 || c >= 0x7f || c == '"' || c == '\\'; }

/// First byte at or after `from` that a JSON string scan must look at, or s.size().
inline std::size_t find_json_string_special(std::string_view s, std::size_t from) {
  return find_first<json_string_special, json_string_special_byte>(s, from);
}

/// True when no byte of `s` is escaped or quoted differently (see not_plain).
inline bool plain(std::string_view s) { return find_first<not_plain, not_plain_byte>(s, 0) == s.size(); }

}  // namespace tensor_inspect::byte_classes
