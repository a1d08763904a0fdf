// digits.hpp — decimal digits of unsigned integers, two at a time from a 200-byte table,
// written straight into an output buffer (the printing loops' integer step).
#pragma once

#include <cstdint>
#include <cstring>

namespace tensor_inspect::render {

/// "00".."99": the two digits of every value below 100.
inline constexpr char kDigitPairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/// Number of decimal digits of v (1 for 0); v < 10^20 always.
inline int decimal_length(std::uint64_t v) {
  int n = 1;
  for (;;) {
    if (v < 10) return n;
    if (v < 100) return n + 1;
    if (v < 1000) return n + 2;
    if (v < 10000) return n + 3;
    v /= 10000;
    n += 4;
  }
}

/// Writes the `len` = decimal_length(v) digits of v ending at out + len; returns out + len.
inline char* write_digits(std::uint64_t v, int len, char* out) {
  char* p = out + len;
  while (v >= 100) {
    const auto pair = static_cast<unsigned>(v % 100) * 2;
    v /= 100;
    p -= 2;
    std::memcpy(p, kDigitPairs + pair, 2);
  }
  if (v >= 10) {
    p -= 2;
    std::memcpy(p, kDigitPairs + static_cast<unsigned>(v) * 2, 2);
  } else {
    *--p = static_cast<char>('0' + v);
  }
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
