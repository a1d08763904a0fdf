// float_repr.hpp — CPython's repr(float) laid out from Dragonbox's shortest digits
// (fmt::detail::dragonbox, the Dragonbox of {fmt} 9, exported by libfmt), straight into
// the output buffer: no intermediate string, no re-parse. Inline, so the printing loops
// pay one to_decimal call and a few stores per value.
//
// Python's rules (Objects/floatobject.c float_repr → Python/pystrtod.c format_float_short,
// mode 'r', Py_DTSF_ADD_DOT_0): with the shortest round-trip digits d1 d2 ... dn and the
// decimal point after `decpt` of them, the exponent form is used when decpt <= -4 or
// decpt > 16 (`1e-05`, `1e+16`: at least two exponent digits); otherwise positional, with
// `.0` added to an integral value. nan and ±inf are `nan`, `inf`, `-inf`; zero keeps its sign.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "render/digits.hpp"

namespace tensor_inspect::render {

/// The most chars a repr of a double takes: "-2.2250738585072014e-308".
inline constexpr int kMaxFloatRepr = 24;

/// Writes repr(v) at `out` (at most kMaxFloatRepr chars, scratch included: the digits are
/// written 17 at a time, at most 22 bytes from `out`); returns the end.
inline char* write_float_repr(double v, char* out) {
  const auto bits = std::bit_cast<std::uint64_t>(v);
  const bool negative = bits >> 63;
  if (((bits >> 52) & 0x7ff) == 0x7ff) {  // nan or inf
    if (bits & ((std::uint64_t{1} << 52) - 1)) return static_cast<char*>(std::memcpy(out, "nan", 3)) + 3;
    if (negative) return static_cast<char*>(std::memcpy(out, "-inf", 4)) + 4;
    return static_cast<char*>(std::memcpy(out, "inf", 3)) + 3;
  }
  // The sign without a branch: half of a tensor's values are negative, in no order the
  // branch predictor can learn (a mispredicted branch per value cost 8 % of the loop).
  char* o = out;
  *o = '-';
  o += negative;
  if ((bits << 1) == 0) return static_cast<char*>(std::memcpy(o, "0.0", 3)) + 3;
  auto dec = fmt::detail::dragonbox::to_decimal(v);
  std::uint64_t sig = dec.significand;
  int exp10 = dec.exponent;
  // Dragonbox strips trailing zeros on its main path; make sure on every path.
  while (sig % 10 == 0) {
    sig /= 10;
    ++exp10;
  }
  const int nd = decimal_length(sig);
  const int decpt = exp10 + nd;  // value = 0.d1d2...dn × 10^decpt
  if (decpt <= -4 || decpt > 16) {
    // d[.ddd]e±XX: the digits one place right, then the first moved back before the point.
    write_significand(sig, nd, o + 1);
    o[0] = o[1];
    if (nd > 1) {
      o[1] = '.';
      o += nd + 1;
    } else {
      o += 1;
    }
    int x = decpt - 1;
    *o++ = 'e';
    *o++ = x < 0 ? '-' : '+';
    if (x < 0) x = -x;
    if (x < 10) {
      *o++ = '0';
      *o++ = static_cast<char>('0' + x);
    } else if (x < 100) {
      std::memcpy(o, kDigitPairs + x * 2, 2);
      o += 2;
    } else {
      *o++ = static_cast<char>('0' + x / 100);
      std::memcpy(o, kDigitPairs + (x % 100) * 2, 2);
      o += 2;
    }
    return o;
  }
  if (decpt <= 0) {  // 0.000ddd
    o[0] = '0';
    o[1] = '.';
    std::memset(o + 2, '0', static_cast<std::size_t>(-decpt));
    return write_significand(sig, nd, o + 2 - decpt);
  }
  if (decpt >= nd) {  // ddd000.0
    o = write_significand(sig, nd, o);
    std::memset(o, '0', static_cast<std::size_t>(decpt - nd));
    o += decpt - nd;
    o[0] = '.';
    o[1] = '0';
    return o + 2;
  }
  // dd.ddd: the digits one place right, the integer part moved back before the point
  // (one digit, the common case of values in [1, 10), without a call).
  write_significand(sig, nd, o + 1);
  if (decpt == 1) o[0] = o[1];
  else std::memmove(o, o + 1, static_cast<std::size_t>(decpt));
  o[decpt] = '.';
  return o + nd + 1;
}

}  // namespace tensor_inspect::render
