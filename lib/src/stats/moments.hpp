// stats/moments.hpp — the partial statistics of a run of elements (count, extrema, sum,
// squared deviations, class counts), made per block and merged in a fixed order.
//
//   Moments a = block_moments_f32(values, 4096);   // one block, decoded
//   merge_moments(chunk, a);                        // blocks fold in index order
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "decode/lanes.hpp"

namespace tensor_inspect {

__extension__ typedef __int128 Int128;

/// Partial statistics. Floats use fsum/fmin/fmax over the finite values; ints use the
/// exact isum and imin/imax (signed) or umin/umax (unsigned and bool).
struct Moments {
  std::int64_t count = 0;   ///< elements seen
  std::int64_t finite = 0;  ///< elements in the sums and extrema (ints: all)
  double fsum = 0;
  Int128 isum = 0;
  double m2 = 0;            ///< sum of squared deviations from this partial's mean
  double fmin = std::numeric_limits<double>::infinity();
  double fmax = -std::numeric_limits<double>::infinity();
  std::int64_t imin = std::numeric_limits<std::int64_t>::max();
  std::int64_t imax = std::numeric_limits<std::int64_t>::min();
  std::uint64_t umin = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t umax = 0;
  std::uint64_t nan = 0, posinf = 0, neginf = 0, zero = 0;
  /// The signs of the first and the last zero of the elements (when `zero` > 0), which
  /// decide the sign of a zero min or max (zero_sign.cpp). Set by every block whose min or
  /// max is zero, the one its dtype's rule reads: a block whose zeros lie strictly inside
  /// its range cannot hold the tensor's extreme, and its flags are never read.
  bool first_zero_negative = false, last_zero_negative = false;
};

/// The scalar rule every float kernel follows for one value (block tails, and blocks that
/// hold a nan or inf): the nan/inf/finite/zero counts and the extrema. True when `v` is
/// finite, i.e. belongs in the sums, which each kernel takes its own way.
template <typename T>
bool tally(T v, Moments& m) {
  if (std::isnan(v)) {
    ++m.nan;
    return false;
  }
  if (std::isinf(v)) {
    ++(v > 0 ? m.posinf : m.neginf);
    return false;
  }
  ++m.finite;
  if (v == 0) ++m.zero;
  m.fmin = std::min(m.fmin, static_cast<double>(v));
  m.fmax = std::max(m.fmax, static_cast<double>(v));
  return true;
}

/// One block (n <= kStatsBlock) of decoded values. Floats: one pass, the squared
/// deviations taken around the block's first finite value and corrected to its mean
/// (float_moments.cpp); float64 and ints: two passes over the cached block, the second for
/// the squared deviations around the block's mean.
Moments block_moments_f32(const float* x, std::int64_t n);
Moments block_moments_f64(const double* x, std::int64_t n);
Moments block_moments_i64(const std::int64_t* x, std::int64_t n);
Moments block_moments_u64(const std::uint64_t* x, std::int64_t n);

/// Sets `m`'s first_zero_negative (values of a `float16` tensor) or last_zero_negative
/// (any other) from the block of `n` values at `p` (IEEE binary floats of `itemsize` 2, 4
/// or 8 bytes, host order: float16, bfloat16, float32, float64) whose moments `m` holds,
/// where the block's min or max is zero.
void note_zero_signs(Moments& m, const std::byte* p, std::int64_t n, std::size_t itemsize, bool float16);

/// The sign NumPy gives a zero min or max of `dtype`'s values: the first zero's for
/// float16, the last zero's for every other float (zero_sign.cpp says why). `zero` is the
/// extreme as the kernels found it (either sign); returns +0.0 or -0.0.
double numpy_zero_extreme(const Moments& m, bool float16);

/// Folds `b` (the later elements) into `a`: Chan, Golub and LeVeque's pairwise update
/// m2 = m2a + m2b + (mean_b - mean_a)^2 * na * nb / (na + nb).
void merge_moments(Moments& a, const Moments& b, Lane lane);

}  // namespace tensor_inspect
