// compare/pair_fold.hpp — the figures of a comparison (compare.hpp) folded pair by pair: a
// chunk's Partial, the rules of a mismatch, and the final figures of the folded whole. Shared by
// the executor's pass (compare.cpp) and the pass over two streams (received_pairs.cpp), so both
// give the same figures bit for bit: each chunk of 2048 elements folds into its own Partial, and
// Partials fold in chunk order.
#pragma once

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>

#include "tensor_inspect/compare.hpp"
#include "tensor_inspect/realize.hpp"

namespace tensor_inspect::compare_detail {

// The figures of one chunk (or of everything folded so far).
struct Partial {
  std::int64_t mismatched = 0;
  std::int64_t first_mismatch = -1;  // C-order index, -1: none
  double max_abs = 0, max_rel = 0;
  double sumsq = 0, dot = 0, norm_a = 0, norm_b = 0;
  std::int64_t counted = 0;       // pairs without NaN (the figures' population)
  bool all_equal_finite = true;   // every finite pair equal (cosine of two zero tensors is 1)
  bool infinity_differs = false;  // a pair with an infinity that differs: no cosine

  // Folds `p`, the partial of the chunks right after this one's.
  void fold(const Partial& p) {
    if (first_mismatch < 0) first_mismatch = p.first_mismatch;
    mismatched += p.mismatched;
    max_abs = std::max(max_abs, p.max_abs);
    max_rel = std::max(max_rel, p.max_rel);
    sumsq += p.sumsq;
    dot += p.dot;
    norm_a += p.norm_a;
    norm_b += p.norm_b;
    counted += p.counted;
    all_equal_finite = all_equal_finite && p.all_equal_finite;
    infinity_differs = infinity_differs || p.infinity_differs;
  }
};

struct Rule {
  double rtol, atol;
  bool nan_equal;
};

// One element pair. T is double when both sides are floats (their float64 values are
// exact), long double otherwise (exact for every int64 and uint64 and every double).
// `bits_differ`: -1 when values decide, else whether the elements' bits differ (--exact).
template <class T>
inline void add_pair(Partial& p, const Rule& rule, T x, T y, std::int64_t index, int bits_differ) {
  const bool nan_x = std::isnan(x), nan_y = std::isnan(y);
  bool mismatch;
  if (bits_differ >= 0) mismatch = bits_differ == 1;
  else if (nan_x || nan_y) mismatch = !(nan_x && nan_y && rule.nan_equal);
  else if (x == y) mismatch = false;
  else if (std::isinf(x) || std::isinf(y)) mismatch = true;
  else mismatch = !(std::fabs(static_cast<double>(x - y)) <= rule.atol + rule.rtol * std::fabs(static_cast<double>(y)));
  if (mismatch) {
    if (p.first_mismatch < 0) p.first_mismatch = index;
    ++p.mismatched;
  }
  if (nan_x || nan_y) return;
  const double d = x == y ? 0.0 : static_cast<double>(std::fabs(x - y));
  p.max_abs = std::max(p.max_abs, d);
  // An infinite difference is infinitely far relative to anything (inf / inf would be NaN,
  // which max would drop: -inf against inf showed max_rel 0).
  if (d > 0)
    p.max_rel = std::max(p.max_rel, y == 0 || std::isinf(d) ? INFINITY : d / static_cast<double>(std::fabs(y)));
  p.sumsq += d * d;
  ++p.counted;
  if (std::isinf(x) || std::isinf(y)) {
    p.infinity_differs = p.infinity_differs || d > 0;  // equal infinities leave the cosine be
    return;
  }
  const auto dx = static_cast<double>(x), dy = static_cast<double>(y);
  p.dot += dx * dy;
  p.norm_a += dx * dx;
  p.norm_b += dy * dy;
  p.all_equal_finite = p.all_equal_finite && d == 0;
}

/// The hot path: two float chunks, no --exact. A chunk of finite pairs folds in a branch-free
/// loop over fixed lanes (vectorized; lanes combine in a fixed order, so the sums do not depend
/// on threads); a chunk holding a NaN or an infinity goes pair by pair through add_pair.
void fold_floats(Partial& p, const Rule& rule, const ValueChunk& a, const ValueChunk& b);

/// fold_floats over stored native float32 values (the same figures as their ValueChunks give).
void fold_float32(Partial& p, const Rule& rule, const float* x, const float* y, std::size_t n, std::int64_t start);

/// Value k of a chunk exactly (long double holds every int64, uint64 and double).
long double exact_value(const ValueChunk& c, std::size_t k);

/// One chunk pair folded into `p` (a fresh Partial): fold_floats when `floats`, else pair by pair
/// on exact values (`bits`: the chunks' same-size uint views, for --exact; null otherwise).
void fold_chunk_pair(Partial& p, const Rule& rule, const ValueChunk& a, const ValueChunk& b, bool floats,
                     const ValueChunk* bits_a = nullptr, const ValueChunk* bits_b = nullptr);

/// The comparison's figures from the fold of every chunk (numel is set by the caller).
void finish_comparison(Comparison& c, const Partial& total);

}  // namespace tensor_inspect::compare_detail
