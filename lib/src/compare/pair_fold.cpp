// compare/pair_fold.cpp — the chunk folds of pair_fold.hpp.
#include "compare/pair_fold.hpp"

#include "decode/cpu_features.hpp"

namespace tensor_inspect::compare_detail {

// The hot path: two float chunks, no --exact. A chunk of finite pairs folds in a
// branch-free loop over kLanes fixed lanes (the compiler vectorizes it; lanes combine in
// a fixed order, so the sums do not depend on threads); a chunk holding a NaN or an
// infinity goes pair by pair through add_pair, so the rules live in one place.
namespace {
constexpr std::size_t kLanes = 8;
}  // namespace

namespace {
// T is double (a ValueChunk) or float (stored float32 read where it lies): each value becomes
// a double before any arithmetic, so both give the same figures bit for bit.
template <class T>
[[gnu::always_inline]] inline void fold_float_values(Partial& p, const Rule& rule, const T* x, const T* y,
                                                     std::size_t n, std::int64_t start) {
  const std::size_t whole = n / kLanes * kLanes;
  const double atol = rule.atol, rtol = rule.rtol;
  // Doubles only (the mismatch count too: exact far beyond a chunk), so the lanes vectorize.
  double bad[kLanes] = {}, max_abs[kLanes] = {}, max_rel[kLanes] = {}, sumsq[kLanes] = {}, dot[kLanes] = {},
         na[kLanes] = {}, nb[kLanes] = {};
  for (std::size_t k = 0; k < whole; k += kLanes) {
    for (std::size_t l = 0; l < kLanes; ++l) {
      const double xv = static_cast<double>(x[k + l]), yv = static_cast<double>(y[k + l]);
      const double d = std::fabs(xv - yv), ay = std::fabs(yv);
      bad[l] += d <= atol + rtol * ay ? 0.0 : 1.0;
      max_abs[l] = d > max_abs[l] ? d : max_abs[l];
      const double rel = d / ay;  // d > 0 over 0 is inf; 0 / 0 is NaN, which `>` skips
      max_rel[l] = rel > max_rel[l] ? rel : max_rel[l];
      sumsq[l] += d * d;
      dot[l] += xv * yv;
      na[l] += xv * xv;
      nb[l] += yv * yv;
    }
  }
  for (std::size_t k = whole; k < n; ++k) {
    const std::size_t l = k - whole;
    const double xv = static_cast<double>(x[k]), yv = static_cast<double>(y[k]);
    const double d = std::fabs(xv - yv), ay = std::fabs(yv);
    bad[l] += d <= atol + rtol * ay ? 0.0 : 1.0;
    max_abs[l] = d > max_abs[l] ? d : max_abs[l];
    const double rel = d / ay;
    max_rel[l] = rel > max_rel[l] ? rel : max_rel[l];
    sumsq[l] += d * d;
    dot[l] += xv * yv;
    na[l] += xv * xv;
    nb[l] += yv * yv;
  }
  Partial q;
  double mismatched = 0;
  for (std::size_t l = 0; l < kLanes; ++l) {
    mismatched += bad[l];
    q.max_abs = std::max(q.max_abs, max_abs[l]);
    q.max_rel = std::max(q.max_rel, max_rel[l]);
    q.sumsq += sumsq[l];
    q.dot += dot[l];
    q.norm_a += na[l];
    q.norm_b += nb[l];
  }
  // A NaN or an infinity (or squares past double's range) shows in the norms: then the
  // chunk goes pair by pair through add_pair, the reference rules.
  if (!std::isfinite(q.norm_a) || !std::isfinite(q.norm_b) || !std::isfinite(q.sumsq)) {
    for (std::size_t k = 0; k < n; ++k)
      add_pair<double>(p, rule, static_cast<double>(x[k]), static_cast<double>(y[k]),
                       start + static_cast<std::int64_t>(k), -1);
    return;
  }
  q.mismatched = static_cast<std::int64_t>(mismatched);
  if (q.mismatched)
    for (std::size_t k = 0; k < n; ++k)
      if (!(std::fabs(static_cast<double>(x[k]) - static_cast<double>(y[k])) <=
            atol + rtol * std::fabs(static_cast<double>(y[k])))) {
        q.first_mismatch = start + static_cast<std::int64_t>(k);
        break;
      }
  q.counted = static_cast<std::int64_t>(n);
  q.all_equal_finite = q.max_abs == 0;
  p.fold(q);
}

// The same loop compiled for AVX2 where the CPU has it: twice the lanes per instruction, the
// same operations in the same order (no FMA: the products round as in the portable loop), so
// the figures are the same bits (half the time of a local float32 diff).
template <class T>
void fold_float_values_portable(Partial& p, const Rule& rule, const T* x, const T* y, std::size_t n,
                                std::int64_t start) {
  fold_float_values(p, rule, x, y, n, start);
}
template <class T>
__attribute__((target("avx2"))) void fold_float_values_avx2(Partial& p, const Rule& rule, const T* x, const T* y,
                                                            std::size_t n, std::int64_t start) {
  fold_float_values(p, rule, x, y, n, start);
}
template <class T>
void fold_float_values_dispatch(Partial& p, const Rule& rule, const T* x, const T* y, std::size_t n,
                                std::int64_t start) {
  if (cpu_has_avx2_f16c()) fold_float_values_avx2(p, rule, x, y, n, start);
  else fold_float_values_portable(p, rule, x, y, n, start);
}

}  // namespace

void fold_floats(Partial& p, const Rule& rule, const ValueChunk& a, const ValueChunk& b) {
  fold_float_values_dispatch(p, rule, a.f, b.f, a.size, a.start);
}

void fold_float32(Partial& p, const Rule& rule, const float* x, const float* y, std::size_t n, std::int64_t start) {
  fold_float_values_dispatch(p, rule, x, y, n, start);
}

long double exact_value(const ValueChunk& c, std::size_t k) {
  if (c.f) return c.f[k];
  if (c.i) return static_cast<long double>(c.i[k]);
  return static_cast<long double>(c.u[k]);
}

void fold_chunk_pair(Partial& p, const Rule& rule, const ValueChunk& a, const ValueChunk& b, bool floats,
                     const ValueChunk* bits_a, const ValueChunk* bits_b) {
  if (floats) {
    fold_floats(p, rule, a, b);
    return;
  }
  for (std::size_t k = 0; k < a.size; ++k) {
    const int differ = bits_a != nullptr ? (bits_a->u[k] != bits_b->u[k] ? 1 : 0) : -1;
    add_pair<long double>(p, rule, exact_value(a, k), exact_value(b, k), a.start + static_cast<std::int64_t>(k),
                          differ);
  }
}

void finish_comparison(Comparison& c, const Partial& total) {
  c.mismatched = total.mismatched;
  if (total.first_mismatch >= 0) c.first_mismatch = total.first_mismatch;
  c.max_abs = total.max_abs;
  c.max_rel = total.max_rel;
  c.sum_sq_a = total.norm_a;
  c.sum_sq_diff = total.sumsq;
  c.rmse = total.counted ? std::sqrt(total.sumsq / static_cast<double>(total.counted)) : 0.0;
  // Rounding can carry the quotient just past 1 (identical tensors): clamp to [-1, 1].
  // Equal tensors have cosine 1 also where the squared norms overflow (1e300 squared is inf,
  // and inf / inf would say nan) and where both are zero.
  // A pair with an infinity that differs leaves the angle undefined (NumPy's dot over norms
  // says nan), however well the finite pairs agree.
  if (total.infinity_differs) c.cosine = std::nullopt;
  else if (total.all_equal_finite) c.cosine = 1.0;
  else if (total.norm_a > 0 && total.norm_b > 0)
    c.cosine = std::clamp(total.dot / (std::sqrt(total.norm_a) * std::sqrt(total.norm_b)), -1.0, 1.0);
}

}  // namespace tensor_inspect::compare_detail
