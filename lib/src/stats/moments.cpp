// stats/moments.cpp — the per-block statistics kernels of the float64 and integer lanes
// (the float lane's is float_moments.cpp), and the merge of partials. float64 blocks run in
// 4-lane GCC vector types (masks instead of branches for nan/inf), built twice: for AVX2
// and for the x86-64 baseline (decode/cpu_features.hpp chooses). Lane order and
// the horizontal sums are fixed, so a block's result does not depend on which clone ran it.
#include "stats/moments.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "decode/cpu_features.hpp"

namespace tensor_inspect {
namespace {

using v4d = double __attribute__((vector_size(32)));
using v4l = std::int64_t __attribute__((vector_size(32)));

constexpr double kInf = std::numeric_limits<double>::infinity();

double mean_of(const Moments& m, Lane lane) {
  if (m.finite == 0) return 0.0;
  const double sum = lane == Lane::F32 || lane == Lane::F64 ? m.fsum : static_cast<double>(m.isum);
  return sum / static_cast<double>(m.finite);
}

// The scalar rule every lane follows, for the tail of a block.
template <typename T>
void scalar_pass1(T v, Moments& m, double& sum) {
  if (tally(v, m)) sum += static_cast<double>(v);
}

// The float64 kernel, written once and inlined into a baseline and an AVX2 entry point.
[[gnu::always_inline]] inline Moments block_moments_f64_body(const double* x, std::int64_t n) {
  Moments m;
  m.count = n;
  const v4d inf = {kInf, kInf, kInf, kInf};
  const v4l abs_mask = {0x7fffffffffffffffLL, 0x7fffffffffffffffLL, 0x7fffffffffffffffLL, 0x7fffffffffffffffLL};
  const v4d zero = {};
  v4d mn = inf, mx = -inf, s = {};
  v4l cnan = {}, cpos = {}, cneg = {}, czero = {}, cfin = {};
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    v4d v;
    std::memcpy(&v, x + i, sizeof v);
    const v4d a = reinterpret_cast<v4d>(reinterpret_cast<v4l>(v) & abs_mask);
    const v4l fin = a < inf;
    const v4l isinf = a == inf;
    cnan -= v != v;
    cpos -= isinf & (v > zero);
    cneg -= isinf & (v < zero);
    czero -= v == zero;
    cfin -= fin;
    mn = (fin & (v < mn)) ? v : mn;
    mx = (fin & (v > mx)) ? v : mx;
    s += reinterpret_cast<v4d>(reinterpret_cast<v4l>(v) & fin);
  }
  double sum = 0;
  for (int l = 0; l < 4; ++l) {
    sum += s[l];
    m.nan += static_cast<std::uint64_t>(cnan[l]);
    m.posinf += static_cast<std::uint64_t>(cpos[l]);
    m.neginf += static_cast<std::uint64_t>(cneg[l]);
    m.zero += static_cast<std::uint64_t>(czero[l]);
    m.finite += cfin[l];
    m.fmin = std::min(m.fmin, mn[l]);
    m.fmax = std::max(m.fmax, mx[l]);
  }
  for (std::int64_t j = i; j < n; ++j) scalar_pass1(x[j], m, sum);
  m.fsum = sum;
  if (m.finite == 0) return m;
  const double mean = sum / static_cast<double>(m.finite);
  double m2 = 0;
  v4d q = {};
  const v4d mv = {mean, mean, mean, mean};
  for (i = 0; i + 4 <= n; i += 4) {
    v4d v;
    std::memcpy(&v, x + i, sizeof v);
    const v4d a = reinterpret_cast<v4d>(reinterpret_cast<v4l>(v) & abs_mask);
    const v4d d = v - mv;
    q += reinterpret_cast<v4d>(reinterpret_cast<v4l>(d * d) & (a < inf));
  }
  for (int l = 0; l < 4; ++l) m2 += q[l];
  for (std::int64_t j = i; j < n; ++j)
    if (std::isfinite(x[j])) m2 += (x[j] - mean) * (x[j] - mean);
  m.m2 = m2;
  return m;
}

Moments block_moments_f64_portable(const double* x, std::int64_t n) { return block_moments_f64_body(x, n); }
__attribute__((target("avx2"))) Moments block_moments_f64_avx2(const double* x, std::int64_t n) {
  return block_moments_f64_body(x, n);
}

// Moments of 64-bit integers: the exact 128-bit sum and the min/max into the lane's fields
// (imin/imax signed, umin/umax unsigned), then the squared deviations from the mean.
template <typename T>
Moments block_moments_int(const T* x, std::int64_t n, T Moments::*lo, T Moments::*hi) {
  Moments m;
  m.count = m.finite = n;
  Int128 sum = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const T v = x[i];
    sum += v;
    m.*lo = std::min(m.*lo, v);
    m.*hi = std::max(m.*hi, v);
    m.zero += v == 0;
  }
  m.isum = sum;
  if (n == 0) return m;
  const double mean = static_cast<double>(sum) / static_cast<double>(n);
  double m2 = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - mean;
    m2 += d * d;
  }
  m.m2 = m2;
  return m;
}

}  // namespace

Moments block_moments_f64(const double* x, std::int64_t n) {
  return cpu_has_avx2_f16c() ? block_moments_f64_avx2(x, n) : block_moments_f64_portable(x, n);
}

Moments block_moments_i64(const std::int64_t* x, std::int64_t n) {
  return block_moments_int(x, n, &Moments::imin, &Moments::imax);
}

Moments block_moments_u64(const std::uint64_t* x, std::int64_t n) {
  return block_moments_int(x, n, &Moments::umin, &Moments::umax);
}

void merge_moments(Moments& a, const Moments& b, Lane lane) {
  if (b.count == 0) return;
  if (a.count == 0) {
    a = b;
    return;
  }
  if (b.finite > 0 && a.finite > 0) {
    const double na = static_cast<double>(a.finite), nb = static_cast<double>(b.finite);
    const double delta = mean_of(b, lane) - mean_of(a, lane);
    a.m2 = a.m2 + b.m2 + delta * delta * (na * nb / (na + nb));
  } else if (b.finite > 0) {
    a.m2 = b.m2;
  }
  a.count += b.count;
  a.finite += b.finite;
  a.fsum += b.fsum;
  a.isum += b.isum;
  a.fmin = std::min(a.fmin, b.fmin);
  a.fmax = std::max(a.fmax, b.fmax);
  a.imin = std::min(a.imin, b.imin);
  a.imax = std::max(a.imax, b.imax);
  a.umin = std::min(a.umin, b.umin);
  a.umax = std::max(a.umax, b.umax);
  if (b.zero > 0) {  // b's zeros come after a's
    if (a.zero == 0) a.first_zero_negative = b.first_zero_negative;
    a.last_zero_negative = b.last_zero_negative;
  }
  a.nan += b.nan;
  a.posinf += b.posinf;
  a.neginf += b.neginf;
  a.zero += b.zero;
}

}  // namespace tensor_inspect
