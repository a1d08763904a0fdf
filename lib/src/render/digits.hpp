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

/// The 8 decimal digits of v < 10^8 as ASCII in one word, the first digit in the lowest
/// byte (so a little-endian store writes them in order). SWAR in 64-bit integer arithmetic:
/// both 4-digit halves are split into pairs and then into digits in parallel lanes by
/// multiplying with scaled reciprocals (10486 / 2^20 for /100 on values below 10^4, 103 /
/// 2^10 for /10 below 100: exact on those ranges). P. Khuong's method, as D. Lemire
/// described it ("Converting integers to decimal strings faster", 2021).
inline std::uint64_t eight_digits_ascii(std::uint32_t v) {
  const std::uint64_t merged = static_cast<std::uint64_t>(v / 10000) | (static_cast<std::uint64_t>(v % 10000) << 32);
  const std::uint64_t hundreds_hi = ((merged * 10486) >> 20) & ((std::uint64_t{0x7f} << 32) | 0x7f);
  const std::uint64_t hundreds = ((merged - 100 * hundreds_hi) << 16) | hundreds_hi;  // 4 lanes of 2 digits
  std::uint64_t tens =
      ((hundreds * 103) >> 10) & ((std::uint64_t{0xf} << 48) | (std::uint64_t{0xf} << 32) | (0xfu << 16) | 0xfu);
  tens += (hundreds - 10 * tens) << 8;
  return tens | 0x3030303030303030ull;
}

__extension__ using uint128 = unsigned __int128;  // GCC's and clang's; shifts compile to shrd/shr
static_assert(std::endian::native == std::endian::little, "the SWAR digit words are stored as little-endian bytes");

/// The digits of v < 10^17 — a double's shortest significand has at most 17 — with
/// len = decimal_length(v) given, written at out without a branch on the length and
/// without a store-to-load round trip: one byte for the 17th digit from the right, then
/// the 16 lower digits shifted in a 128-bit register past their leading zeros and stored
/// whole. Needs 17 writable bytes at out (those after the digits get junk); returns out + len.
inline char* write_significand(std::uint64_t v, int len, char* out) {
  const std::uint64_t rest = v % 10000000000000000ull;
  const uint128 lanes = eight_digits_ascii(static_cast<std::uint32_t>(rest / 100000000)) |
                        static_cast<uint128>(eight_digits_ascii(static_cast<std::uint32_t>(rest % 100000000))) << 64;
  const int zeros = 17 - len;            // leading zeros of the 17-digit field
  const int skip = zeros - (zeros > 0);  // of those, the ones inside the 16 lower digits
  out[0] = static_cast<char>('0' + v / 10000000000000000ull);
  const uint128 shown = lanes >> (8 * skip);
  std::memcpy(out + (zeros == 0), &shown, 16);
  return out + len;
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

/// write_uint without a branch on the number of digits (random 1- to 19-digit values
/// mispredict the loops of write_digits): all 20 digits into a scratch buffer, then the
/// significant ones copied as one fixed 20-byte block. Needs 20 writable bytes at `out`
/// (bytes after the digits are overwritten with junk); returns the end of the digits.
inline char* write_uint_fixed(std::uint64_t v, char* out) {
  char tmp[40];
  std::memset(tmp + 20, 0, 20);  // copied past the digits, never shown
  const std::uint64_t top = v / 10000000000000000ull;       // < 1845: 4 digits
  const std::uint64_t rest = v % 10000000000000000ull;
  write_2_digits(static_cast<std::uint32_t>(top / 100), tmp);
  write_2_digits(static_cast<std::uint32_t>(top % 100), tmp + 2);
  write_8_digits(static_cast<std::uint32_t>(rest / 100000000), tmp + 4);
  write_8_digits(static_cast<std::uint32_t>(rest % 100000000), tmp + 12);
  const int len = decimal_length(v);
  std::memcpy(out, tmp + 20 - len, 20);
  return out + len;
}

/// write_int through write_uint_fixed: needs 21 writable bytes at `out`.
inline char* write_int_fixed(std::int64_t v, char* out) {
  *out = '-';
  out += v < 0;
  const auto u = static_cast<std::uint64_t>(v);
  return write_uint_fixed(v < 0 ? 0 - u : u, out);
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
