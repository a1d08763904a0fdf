// float_repr.cpp — CPython's repr(float): shortest round-trip digits laid out by
// Python's rules (Objects/floatobject.c, Python/pystrtod.c format_float_short, mode 'r').
#include <charconv>
#include <cmath>
#include <cstring>

#include "tensor_inspect/render.hpp"

namespace tensor_inspect {

std::size_t float_repr(double v, char* out) {
  if (std::isnan(v)) return std::strlen(std::strcpy(out, "nan"));
  if (std::isinf(v)) return std::strlen(std::strcpy(out, v < 0 ? "-inf" : "inf"));
  // Shortest digits in scientific form: "d.ddde±XX".
  char sci[40];
  auto res = std::to_chars(sci, sci + sizeof sci, v, std::chars_format::scientific);
  char* end = res.ptr;
  char* p = sci;
  char* o = out;
  if (*p == '-') *o++ = *p++;
  char digits[24];
  std::size_t nd = 0;
  for (; *p != 'e'; ++p)
    if (*p != '.') digits[nd++] = *p;
  int exp = 0;
  std::from_chars(p + 1 + (p[1] == '+' ? 1 : 0), end, exp);
  // decpt: where the decimal point falls relative to the digits.
  const int decpt = exp + 1;
  if (exp < -4 || exp >= 16) {
    *o++ = digits[0];
    if (nd > 1) {
      *o++ = '.';
      std::memcpy(o, digits + 1, nd - 1);
      o += nd - 1;
    }
    *o++ = 'e';
    *o++ = exp < 0 ? '-' : '+';
    int a = exp < 0 ? -exp : exp;
    if (a < 10) *o++ = '0';
    o = std::to_chars(o, o + 4, a).ptr;
  } else if (decpt <= 0) {
    *o++ = '0';
    *o++ = '.';
    for (int i = 0; i < -decpt; ++i) *o++ = '0';
    std::memcpy(o, digits, nd);
    o += nd;
  } else if (static_cast<std::size_t>(decpt) >= nd) {
    std::memcpy(o, digits, nd);
    o += nd;
    for (std::size_t i = nd; i < static_cast<std::size_t>(decpt); ++i) *o++ = '0';
    *o++ = '.';
    *o++ = '0';
  } else {
    auto dp = static_cast<std::size_t>(decpt);
    std::memcpy(o, digits, dp);
    o += dp;
    *o++ = '.';
    std::memcpy(o, digits + dp, nd - dp);
    o += nd - dp;
  }
  return static_cast<std::size_t>(o - out);
}

std::string float_repr(double v) {
  char buf[40];
  return std::string(buf, float_repr(v, buf));
}

}  // namespace tensor_inspect
