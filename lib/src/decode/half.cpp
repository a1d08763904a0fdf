// decode/half.cpp — float16, bfloat16 and fp8 to and from double, exact (the public API of
// tensor_inspect/dtype.hpp: load_scalar, cast_scalar and the printers use them), and the fp8
// tables of decode/half.hpp. The rounding directions follow CPython (struct 'e') and tinygrad.
#include "decode/half.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace tensor_inspect {

namespace {
std::uint64_t double_bits(double v) { return std::bit_cast<std::uint64_t>(v); }
}  // namespace

// ---------------------------------------------------------------------------------- half

std::uint16_t float16_from_double(double v) {
  // Round a double straight to binary16, nearest even, as CPython's PyFloat_Pack2 does.
  std::uint64_t bits = double_bits(v);
  auto sign = static_cast<std::uint16_t>((bits >> 48) & 0x8000);
  if (std::isnan(v)) return static_cast<std::uint16_t>(sign | 0x7e00);
  double a = std::fabs(v);
  if (std::isinf(a)) return static_cast<std::uint16_t>(sign | 0x7c00);
  if (a == 0.0) return sign;
  int e;
  double m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  // binary16 normal: value = 1.f * 2^(E-15), E in 1..30; exponent of a is e-1.
  int exp = e - 1;
  if (exp < -14) {
    // subnormal: units of 2^-24
    double q = std::ldexp(a, 24);
    double r = std::nearbyint(q);  // default rounding mode: nearest even
    auto mant = static_cast<std::uint32_t>(r);
    return static_cast<std::uint16_t>(sign | mant);  // mant == 1024 becomes the smallest normal
  }
  double q = std::ldexp(m, 11);  // in [1024, 2048)
  double r = std::nearbyint(q);
  auto mant = static_cast<std::uint32_t>(r);
  if (mant == 2048) { mant = 1024; ++exp; }
  if (exp > 15) return static_cast<std::uint16_t>(sign | 0x7c00);
  return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>((exp + 15) << 10) | (mant - 1024));
}

double float16_to_double(std::uint16_t h) {
  int exp = (h >> 10) & 0x1f;
  int mant = h & 0x3ff;
  double s = (h & 0x8000) ? -1.0 : 1.0;
  if (exp == 0) return s * std::ldexp(mant, -24);
  if (exp == 31)
    return mant ? std::numeric_limits<double>::quiet_NaN() * s : s * std::numeric_limits<double>::infinity();
  return s * std::ldexp(mant + 1024, exp - 25);
}

// ---------------------------------------------------------------------------------- bfloat16

std::uint16_t bfloat16_from_double(double v) {
  // tinygrad's float_to_bf16: to float32 first, then round the top 16 bits to nearest even.
  auto f = static_cast<float>(v);
  auto u = std::bit_cast<std::uint32_t>(f);
  if (!std::isfinite(f)) return static_cast<std::uint16_t>(u >> 16);
  u = (u + 0x7fff + ((u >> 16) & 1)) & 0xffff0000u;
  return static_cast<std::uint16_t>(u >> 16);
}

double bfloat16_to_double(std::uint16_t bits) {
  return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16));
}

// ---------------------------------------------------------------------------------- fp8

namespace {
struct Fp8Config {
  int bias, sig_bits;
  std::uint64_t mant_mask, min_denorm_half, ovf_threshold, max_norm, min_norm;
};
// (bias, sig_bits, mant_mask, min_denorm_half, ovf_threshold, max_norm, min_norm): tinygrad's
// _fp8_cfg, after NVIDIA's cuda_fp8.hpp.
constexpr Fp8Config kE4M3{7, 4, 0x7, 0x3F50000000000000, 0x407D000000000000, 0x7E, 0x3F90000000000000};
constexpr Fp8Config kE5M2{15, 3, 0x3, 0x3EE0000000000000, 0x40EE000000000000 - 1, 0x7B, 0x3F10000000000000};
}  // namespace

std::uint8_t fp8_from_double(double x, DType dtype) {
  const bool e4m3 = dtype == DType::FP8E4M3;
  if (!std::isfinite(x)) {
    bool neg = std::signbit(x);
    if (e4m3) return neg ? 0xff : 0x7f;
    return static_cast<std::uint8_t>((neg ? 0x80 : 0) | (std::isinf(x) ? 0x7c : 0x7f));
  }
  const Fp8Config& c = e4m3 ? kE4M3 : kE5M2;
  std::uint64_t xbits = double_bits(x);
  std::uint64_t half_ulp = std::uint64_t{1} << (52 - c.sig_bits);
  std::uint64_t sign = ((xbits >> 63) & 1) << 7;
  std::int64_t exp = static_cast<std::int64_t>((xbits >> 52) & 0x7ff) - 1023 + c.bias;
  std::uint64_t mantissa = (xbits >> (53 - c.sig_bits)) & c.mant_mask;
  std::uint64_t absx = xbits & 0x7fffffffffffffffULL;
  std::uint64_t res;
  if (absx <= c.min_denorm_half) {
    res = 0;
  } else if (absx > c.ovf_threshold) {
    res = c.max_norm;
  } else if (absx >= c.min_norm) {
    res = (static_cast<std::uint64_t>(exp) << (c.sig_bits - 1)) | mantissa;
    std::uint64_t round_bits = xbits & ((half_ulp << 1) - 1);
    if (round_bits > half_ulp || (round_bits == half_ulp && (mantissa & 1))) res += 1;
  } else {
    auto shift = static_cast<unsigned>(1 - exp);
    mantissa |= std::uint64_t{1} << (c.sig_bits - 1);
    res = mantissa >> shift;
    std::uint64_t half = half_ulp << shift;
    std::uint64_t round_bits = (xbits | (std::uint64_t{1} << 52)) & ((half << 1) - 1);
    if (round_bits > half || (round_bits == half && (res & 1))) res += 1;
  }
  return static_cast<std::uint8_t>(res | sign);
}

double fp8_to_double(std::uint8_t x, DType dtype) {
  if ((x & 0x7f) == 0) return (x & 0x80) ? -0.0 : 0.0;
  const Fp8Config& c = dtype == DType::FP8E4M3 ? kE4M3 : kE5M2;
  int mant_bits = c.sig_bits - 1, exp_bits = 8 - c.sig_bits;
  int exp_max = (1 << exp_bits) - 1, mant_max = (1 << mant_bits) - 1;
  int sign = (x >> 7) & 1, exp = (x >> mant_bits) & exp_max, mantissa = x & mant_max;
  if (exp == exp_max) {
    if (dtype == DType::FP8E5M2)
      return std::copysign(mantissa ? std::numeric_limits<double>::quiet_NaN()
                                    : std::numeric_limits<double>::infinity(),
                           sign ? -1.0 : 1.0);
    if (mantissa == mant_max) return std::numeric_limits<double>::quiet_NaN();
  }
  double val = exp == 0 ? (mantissa / double(mant_max + 1)) * std::ldexp(1.0, 1 - c.bias)
                        : (1 + mantissa / double(mant_max + 1)) * std::ldexp(1.0, exp - c.bias);
  return sign ? -val : val;
}

const std::array<float, 256>& fp8_table(DType dtype) {
  static const auto make = [](DType d) {
    std::array<float, 256> t{};
    for (unsigned b = 0; b < 256; ++b) t[b] = static_cast<float>(fp8_to_double(static_cast<std::uint8_t>(b), d));
    return t;
  };
  static const std::array<float, 256> e4m3 = make(DType::FP8E4M3), e5m2 = make(DType::FP8E5M2);
  return dtype == DType::FP8E4M3 ? e4m3 : e5m2;
}

}  // namespace tensor_inspect
