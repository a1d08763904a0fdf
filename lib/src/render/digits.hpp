// digits.hpp — decimal digits of unsigned integers, two at a time from a 200-byte table,
// written straight into an output buffer (the printing loops' integer step).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace tensor_inspect::render {

/// "00".."99": the two digits of every value below 100.
inline constexpr char kDigitPairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

inline constexpr std::uint64_t kPowersOf10[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull, 1000000000ull,
    10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull, 100000000000000ull,
    1000000000000000ull, 10000000000000000ull, 100000000000000000ull, 1000000000000000000ull,
    10000000000000000000ull};

/// Number of decimal digits of v (1 for 0): log10 from the bit width (1233/4096 ≈ log10 2),
/// corrected by one comparison.
inline int decimal_length(std::uint64_t v) {
  const int t = (static_cast<int>(std::bit_width(v | 1)) * 1233) >> 12;
  return t + ((v | 1) >= kPowersOf10[t]);
}

/// Writes exactly two digits of v < 100 at p.
inline void write_2_digits(std::uint32_t v, char* p) { std::memcpy(p, kDigitPairs + v * 2, 2); }

/// Writes exactly 8 digits of v < 10^8 at p, in 32-bit arithmetic.
inline void write_8_digits(std::uint32_t v, char* p) {
  const std::uint32_t hi = v / 10000, lo = v % 10000;
  write_2_digits(hi / 100, p);
  write_2_digits(hi % 100, p + 2);
  write_2_digits(lo / 100, p + 4);
  write_2_digits(lo % 100, p + 6);
}

/// Writes the `len` = decimal_length(v) digits of v ending at out + len; returns out + len.
/// Eight digits at a time while v is large, then pairs; 64-bit division only per 8 digits.
inline char* write_digits(std::uint64_t v, int len, char* out) {
  char* p = out + len;
  while (v >= 100000000) {
    p -= 8;
    write_8_digits(static_cast<std::uint32_t>(v % 100000000), p);
    v /= 100000000;
  }
  auto w = static_cast<std::uint32_t>(v);
  while (w >= 100) {
    p -= 2;
    write_2_digits(w % 100, p);
    w /= 100;
  }
  if (w >= 10) write_2_digits(w, p - 2);
  else p[-1] = static_cast<char>('0' + w);
  return out + len;
}

/// Python's repr of an unsigned integer: its decimal digits. At most 20 chars; returns the end.
inline char* write_uint(std::uint64_t v, char* out) { return write_digits(v, decimal_length(v), out); }

/// Python's repr of a signed integer: '-' and the digits. At most 20 chars; returns the end.
inline char* write_int(std::int64_t v, char* out) {
  std::uint64_t u = static_cast<std::uint64_t>(v);
  if (v < 0) {
    *out++ = '-';
    u = 0 - u;  // also right for INT64_MIN
  }
  return write_uint(u, out);
}

}  // namespace tensor_inspect::render
