// stats/float_moments.cpp — the per-block statistics kernel of the float lane, in one pass
// and fused with the load of the stored words: float32, bfloat16 and float16 blocks are
// read straight from the mapping (bfloat16 widens by a shift, float16 by F16C's vcvtph2ps,
// in registers), other dtypes from the block their decoder filled.
//
// The vector loop exists twice, with the same lanes in the same order: in AVX2 (+F16C) intrinsics
// (GCC 12 turns a portable float-to-double vector conversion into 2-lane pieces spilled
// through the stack), and in portable 8-lane GCC vector types for x86-64 without AVX2,
// chosen once at run time. Both leave their accumulators to one scalar finish, and neither
// contracts a multiply-add, so a block's result does not depend on the machine.
// NOTE: the AVX2 loop must not be built with FMA: GCC fuses the intrinsics' multiply and
// add into vfmadd (one rounding), which the baseline cannot do. Tried: 2-7 % faster.
#include "stats/float_moments.hpp"

#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "decode/cpu_features.hpp"
#include "decode/half.hpp"

namespace tensor_inspect {
namespace {
namespace float_lane {  // a name of its own: unity builds join this file's anonymous namespace with others'

// The loaders: one element as a float, for the scalar rule.
float float32_at(const std::byte* p, std::int64_t i) {
  float f;
  std::memcpy(&f, p + 4 * i, sizeof f);
  return f;
}

// bfloat16 is the high half of a float32: widening is a zero-extension and a shift.
float bfloat16_at(const std::byte* p, std::int64_t i) {
  std::uint16_t h;
  std::memcpy(&h, p + 2 * i, sizeof h);
  return bfloat16_to_float(h);
}

// float16, exactly (every half is a float): decode/half.hpp's conversion.
float float16_at(const std::byte* p, std::int64_t i) {
  std::uint16_t h;
  std::memcpy(&h, p + 2 * i, sizeof h);
  return half_to_float(h);
}

// The stored words a kernel reads.
enum class Words { Float32, BFloat16, Float16 };

template <Words W>
float word_at(const std::byte* p, std::int64_t i) {
  if constexpr (W == Words::Float32) return float32_at(p, i);
  else if constexpr (W == Words::BFloat16) return bfloat16_at(p, i);
  else return float16_at(p, i);
}

// What the vector loop leaves: per accumulator a (0-3, elements 16k + 4a .. 16k + 4a + 3)
// and lane l, sums[4a + l] and squares[4a + l] of d = x - shift; the 8-lane extrema and
// zero counts (negated); whether every value was finite.
struct VectorPart {
  alignas(32) double sums[16];
  alignas(32) double squares[16];
  alignas(32) float mn[8];
  alignas(32) float mx[8];
  alignas(32) std::int32_t neg_zeros[8];
  bool clean = true;
};

using v8f = float __attribute__((vector_size(32)));
using v8i = std::int32_t __attribute__((vector_size(32)));
using v4d = double __attribute__((vector_size(32)));
using v4f = float __attribute__((vector_size(16)));
using v4u = std::uint32_t __attribute__((vector_size(16)));
using v4h = std::uint16_t __attribute__((vector_size(8)));

// Four elements from element i as floats, portably (through a reference: a vector
// returned by value changes the ABI by target).
template <Words W>
[[gnu::always_inline]] inline void load4(const std::byte* p, std::int64_t i, v4f& out) {
  if constexpr (W == Words::BFloat16) {
    v4h h;
    std::memcpy(&h, p + 2 * i, sizeof h);
    out = reinterpret_cast<v4f>(__builtin_convertvector(h, v4u) << 16);
  } else if constexpr (W == Words::Float16) {
    out = v4f{float16_at(p, i), float16_at(p, i + 1), float16_at(p, i + 2), float16_at(p, i + 3)};
  } else {
    std::memcpy(&out, p + 4 * i, sizeof out);
  }
}

template <Words W>
void vector_loop_portable(const std::byte* p, std::int64_t vec_end, double shift, VectorPart& out) {
  const v8f inf = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY};
  const v8i abs_mask = {0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff};
  const v8f zero = {};
  const v4d k = {shift, shift, shift, shift};
  v8f mn = inf, mx = -inf;
  v8i all_finite = ~v8i{}, czero = {};
  v4d s[4] = {}, q[4] = {};
  for (std::int64_t i = 0; i < vec_end; i += 16) {
    for (int half = 0; half < 2; ++half) {
      v4f a, b;
      load4<W>(p, i + 8 * half, a);
      load4<W>(p, i + 8 * half + 4, b);
      const v8f v = __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7);
      all_finite &= reinterpret_cast<v8f>(reinterpret_cast<v8i>(v) & abs_mask) < inf;
      czero += v == zero;  // -1 per zero
      mn = v < mn ? v : mn;
      mx = v > mx ? v : mx;
      const v4d d0 = __builtin_convertvector(a, v4d) - k, d1 = __builtin_convertvector(b, v4d) - k;
      s[2 * half] += d0;
      s[2 * half + 1] += d1;
      q[2 * half] += d0 * d0;
      q[2 * half + 1] += d1 * d1;
    }
  }
  for (int a = 0; a < 4; ++a)
    for (int l = 0; l < 4; ++l) {
      out.sums[4 * a + l] = s[a][l];
      out.squares[4 * a + l] = q[a][l];
    }
  for (int l = 0; l < 8; ++l) {
    out.mn[l] = mn[l];
    out.mx[l] = mx[l];
    out.neg_zeros[l] = czero[l];
    out.clean = out.clean && all_finite[l] != 0;
  }
}

// The same loop in AVX2. vminps(v, mn) is `v < mn ? v : mn` and vmaxps(v, mx) is
// `v > mx ? v : mx`, as above; v - v is +0.0 for a finite v and nan otherwise, so the OR of
// those bits is zero exactly when every value was finite. bfloat16 words are checked as
// words instead (measured 3 % less CPU over the mapping).
// How far ahead the AVX2 loop prefetches: measured on 98 MB of bfloat16 scanned from the
// mapping, one thread, best of 9: 35.5-40.5 ms of CPU without, 32-33.5 ms at 2 KiB
// (0.5 KiB: 33-40, 8 KiB: 32.5-34.5).
// NOTE: GCC 12 keeps two sums, the max-word check and its mask on the stack here (16 ymm
// registers for 14 accumulators and constants). Tried: two passes over the block (checks
// and extrema, then the sums from L1) to free registers: no faster (one L1-resident block
// of bfloat16, best of 200: 4.5 ns per 16 elements now, 4.9-6.3 in two passes); the sums'
// conversions and double adds alone take 3.4 ns, the floor of a loop that must keep these
// lanes and roundings.
constexpr std::uintptr_t kPrefetchBytes = 2048;

template <Words W>
__attribute__((target("avx2,f16c"))) void vector_loop_avx2(const std::byte* p, std::int64_t vec_end, double shift,
                                                           VectorPart& out) {
  const __m256d k = _mm256_set1_pd(shift);
  __m256 mn = _mm256_set1_ps(INFINITY), mx = _mm256_set1_ps(-INFINITY), bad = _mm256_setzero_ps();
  __m256i czero = _mm256_setzero_si256();
  const __m256i mag_mask = _mm256_set1_epi16(0x7fff);
  __m256i top = _mm256_setzero_si256(), z16 = _mm256_setzero_si256();
  __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0, q0 = s0, q1 = s0, q2 = s0, q3 = s0;
  constexpr std::uintptr_t word_bytes = W == Words::Float32 ? 4 : 2;
  for (std::int64_t i = 0; i < vec_end; i += 16) {
    // The hardware prefetchers stop at each 4 KiB page; this one runs kPrefetchBytes ahead
    // (a prefetch never faults, so past the end or an unmapped page it is dropped).
    _mm_prefetch(reinterpret_cast<const char*>(reinterpret_cast<std::uintptr_t>(p) +
                                               word_bytes * static_cast<std::uintptr_t>(i) + kPrefetchBytes),
                 _MM_HINT_T0);
    __m256 v, w;
    __m256d d0, d1, d2, d3;
    if constexpr (W != Words::Float32) {
      const auto* h = reinterpret_cast<const __m128i*>(p + 2 * i);
      if constexpr (W == Words::BFloat16) {
        v = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(h)), 16));
        w = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(h + 1)), 16));
        // The checks on the sixteen words at once: |w| = w & 0x7fff is 0 for a zero and at
        // least 0x7f80 (exponent all ones) for an inf or nan.
        const __m256i mag = _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(h)), mag_mask);
        top = _mm256_max_epu16(top, mag);
        z16 = _mm256_sub_epi16(z16, _mm256_cmpeq_epi16(mag, _mm256_setzero_si256()));  // at most 256 per lane
      } else {
        v = _mm256_cvtph_ps(_mm_loadu_si128(h));  // F16C: exact
        w = _mm256_cvtph_ps(_mm_loadu_si128(h + 1));
      }
      d0 = _mm256_cvtps_pd(_mm256_castps256_ps128(v));
      d1 = _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1));
      d2 = _mm256_cvtps_pd(_mm256_castps256_ps128(w));
      d3 = _mm256_cvtps_pd(_mm256_extractf128_ps(w, 1));
    } else {
      const auto* f = reinterpret_cast<const float*>(p + 4 * i);
      v = _mm256_loadu_ps(f);
      w = _mm256_loadu_ps(f + 8);
      d0 = _mm256_cvtps_pd(_mm_loadu_ps(f));
      d1 = _mm256_cvtps_pd(_mm_loadu_ps(f + 4));
      d2 = _mm256_cvtps_pd(_mm_loadu_ps(f + 8));
      d3 = _mm256_cvtps_pd(_mm_loadu_ps(f + 12));
    }
    if constexpr (W != Words::BFloat16) {
      bad = _mm256_or_ps(bad, _mm256_or_ps(_mm256_sub_ps(v, v), _mm256_sub_ps(w, w)));
      const __m256 zero = _mm256_setzero_ps();
      czero = _mm256_add_epi32(czero, _mm256_add_epi32(_mm256_castps_si256(_mm256_cmp_ps(v, zero, _CMP_EQ_OQ)),
                                                       _mm256_castps_si256(_mm256_cmp_ps(w, zero, _CMP_EQ_OQ))));
    }
    mn = _mm256_min_ps(w, _mm256_min_ps(v, mn));
    mx = _mm256_max_ps(w, _mm256_max_ps(v, mx));
    d0 = _mm256_sub_pd(d0, k);
    d1 = _mm256_sub_pd(d1, k);
    d2 = _mm256_sub_pd(d2, k);
    d3 = _mm256_sub_pd(d3, k);
    s0 = _mm256_add_pd(s0, d0);
    s1 = _mm256_add_pd(s1, d1);
    s2 = _mm256_add_pd(s2, d2);
    s3 = _mm256_add_pd(s3, d3);
    q0 = _mm256_add_pd(q0, _mm256_mul_pd(d0, d0));
    q1 = _mm256_add_pd(q1, _mm256_mul_pd(d1, d1));
    q2 = _mm256_add_pd(q2, _mm256_mul_pd(d2, d2));
    q3 = _mm256_add_pd(q3, _mm256_mul_pd(d3, d3));
  }
  _mm256_store_pd(out.sums, s0);
  _mm256_store_pd(out.sums + 4, s1);
  _mm256_store_pd(out.sums + 8, s2);
  _mm256_store_pd(out.sums + 12, s3);
  _mm256_store_pd(out.squares, q0);
  _mm256_store_pd(out.squares + 4, q1);
  _mm256_store_pd(out.squares + 8, q2);
  _mm256_store_pd(out.squares + 12, q3);
  _mm256_store_ps(out.mn, mn);
  _mm256_store_ps(out.mx, mx);
  _mm256_store_si256(reinterpret_cast<__m256i*>(out.neg_zeros), czero);
  out.clean = _mm256_testz_si256(_mm256_castps_si256(bad), _mm256_castps_si256(bad)) != 0;
  if constexpr (W == Words::BFloat16) {
    alignas(32) std::uint16_t t[16], z[16];
    _mm256_store_si256(reinterpret_cast<__m256i*>(t), top);
    _mm256_store_si256(reinterpret_cast<__m256i*>(z), z16);
    for (int l = 0; l < 16; ++l) {
      out.clean = out.clean && t[l] < 0x7f80;
      out.neg_zeros[l % 8] -= z[l];
    }
  }
}

// The scalar rule, for the tail of a clean block and for every element of a block that
// holds a nan or inf: counts, extrema, and the shifted sums of d = x - shift and d².
void scalar_rule(float v, double shift, Moments& m, double& sum, double& squares) {
  if (!tally(v, m)) return;
  const double d = static_cast<double>(v) - shift;
  sum += d;
  squares += d * d;
}

// One pass over a block. The sums are shifted by the block's first finite value K:
// S = Σ(x - K) and Q = Σ(x - K)², so that fsum = finite·K + S and m2 = Q - S²/finite. As K
// is one of the values, (mean - K)² <= m2 (it is one of m2's terms), so Q <= (finite + 1)·m2
// and the cancellation in Q - S²/finite costs at most that factor over the rounding of the
// sums: worst case about 1e-10 relative for a 4096-element block, typically far less, with
// no dependence on how large the mean is against the spread (tests/stats_vs_numpy.py).
// The vector loop assumes the block is clean (all finite): extrema as vminps/vmaxps, sums
// unmasked. A block that turns out to hold a nan or inf (rare) is redone by the scalar
// rule. Four double accumulators per sum hide the latency of the adds.
template <Words W>
Moments block_moments(const std::byte* p, std::int64_t n, bool baseline = false) {
  const auto at = word_at<W>;
  Moments m;
  m.count = n;
  std::int64_t first = 0;
  while (first < n && !std::isfinite(at(p, first))) ++first;
  const double shift = first < n ? static_cast<double>(at(p, first)) : 0.0;
  const std::int64_t vec_end = first == 0 ? n / 16 * 16 : 0;  // a leading nan or inf: all scalar
  const bool avx2 = cpu_has_avx2_f16c() && !baseline;
  VectorPart part;
  if (avx2) vector_loop_avx2<W>(p, vec_end, shift, part);
  else vector_loop_portable<W>(p, vec_end, shift, part);
  double sum = 0, squares = 0;
  if (part.clean) {
    m.finite = vec_end;
    for (int l = 0; l < 4; ++l) {
      sum += (part.sums[l] + part.sums[4 + l]) + (part.sums[8 + l] + part.sums[12 + l]);
      squares += (part.squares[l] + part.squares[4 + l]) + (part.squares[8 + l] + part.squares[12 + l]);
    }
    for (int l = 0; l < 8; ++l) {
      m.zero -= static_cast<std::uint64_t>(static_cast<std::int64_t>(part.neg_zeros[l]));
      m.fmin = std::min(m.fmin, static_cast<double>(part.mn[l]));
      m.fmax = std::max(m.fmax, static_cast<double>(part.mx[l]));
    }
  }
  for (std::int64_t j = part.clean ? vec_end : 0; j < n; ++j) scalar_rule(at(p, j), shift, m, sum, squares);
  if (m.finite == 0) return m;
  const double finite = static_cast<double>(m.finite);
  m.fsum = finite * shift + sum;
  m.m2 = std::max(0.0, squares - sum * (sum / finite));
  return m;
}

Moments block_moments_stored_f32(const std::byte* p, std::int64_t n) { return block_moments<Words::Float32>(p, n); }
Moments block_moments_stored_bf16(const std::byte* p, std::int64_t n) { return block_moments<Words::BFloat16>(p, n); }
Moments block_moments_stored_f16(const std::byte* p, std::int64_t n) { return block_moments<Words::Float16>(p, n); }

}  // namespace float_lane
}  // namespace

Moments block_moments_f32(const float* x, std::int64_t n) {
  return float_lane::block_moments_stored_f32(reinterpret_cast<const std::byte*>(x), n);
}

Moments block_moments_baseline(const std::byte* bytes, std::int64_t n, DType stored) {
  using float_lane::Words;
  if (stored == DType::BFloat16) return float_lane::block_moments<Words::BFloat16>(bytes, n, true);
  if (stored == DType::Float16) return float_lane::block_moments<Words::Float16>(bytes, n, true);
  return float_lane::block_moments<Words::Float32>(bytes, n, true);
}

StoredBlockKernel stored_block_kernel(const StoredElements& s) {
  if (s.ggml_type || s.swap_bytes || s.decode) return nullptr;
  if (s.stored == DType::Float32) return float_lane::block_moments_stored_f32;
  if (s.stored == DType::BFloat16) return float_lane::block_moments_stored_bf16;
  if (s.stored == DType::Float16) return float_lane::block_moments_stored_f16;
  return nullptr;
}

}  // namespace tensor_inspect
