// tensor_inspect/compare.hpp — element-wise comparison of two tensors of one shape, as
// `diff` reports it: numpy.allclose's tolerance, h5diff's NaN policy, and the figures a
// converted checkpoint is judged by (max abs/rel difference, RMSE, cosine similarity).
//
// Both tensors stream side by side through the executor in one pass (for_each_chunk_zipped:
// loads, decoders and fused ops in typed chunk loops on all cores), nothing is
// materialized, so memory stays flat however large they are. Each fixed chunk of 2048
// elements folds into its own partial and partials fold in chunk order, so every figure
// is the same on any number of threads.
//
//   ti::CompareOptions opt;  opt.rtol = 1e-3;  opt.atol = 1e-5;
//   ti::Comparison c = ti::compare_tensors(a, b, opt);
//   c.mismatched;  c.first_mismatch;  c.max_abs;  c.cosine;   // 18, 4300, 0.0312, 0.99991
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect {

/// How two elements are judged equal.
struct CompareOptions {
  double rtol = 1e-05;      ///< numpy.allclose's default: |a - b| <= atol + rtol * |b|
  double atol = 1e-08;
  bool nan_equal = true;    ///< h5diff's default: NaN and NaN are equal; false: they differ
  bool exact = false;       ///< compare the bits of each element (same dtype), not values
  Defaults defaults;        ///< what weak dtypes (literals) commit to
};

/// The figures of one comparison. Values are compared as float64; integer pairs are
/// compared exactly (as int64/uint64). Pairs where either value is NaN count for
/// `mismatched` (per nan_equal) but not for the figures; infinities count where both are
/// equal (difference 0) and make max_abs/rmse inf where they differ.
struct Comparison {
  std::int64_t numel = 0;        ///< elements compared (of each tensor)
  std::int64_t mismatched = 0;   ///< elements over the tolerance (or with different bits)
  std::optional<std::int64_t> first_mismatch;  ///< C-order flat index of the first one
  double max_abs = 0;            ///< max |a - b|
  double max_rel = 0;            ///< max |a - b| / |b| (inf where b is 0 and a is not, or where an infinity differs)
  double rmse = 0;               ///< sqrt(mean((a - b)^2))
  /// a.b / (|a| |b|) over finite pairs; nullopt when a norm is 0 (1 when both are) and
  /// when a pair with an infinity differs (inf against 1 or -inf: no angle is defined).
  std::optional<double> cosine;
  /// sum(a^2) over finite pairs, in float64: the reference energy of NMSE and SQNR (a is
  /// the first tensor, the original of a quantized one). Summed like every figure: fixed
  /// chunks folded in order, the same on any number of threads.
  double sum_sq_a = 0;
  /// sum((a - b)^2) over pairs without NaN, in float64 (inf where an infinity differs).
  double sum_sq_diff = 0;
};

/// Compares `a` with `b`, which must have the same shape (Error(BadShape) otherwise); the
/// dtypes may differ (values widen to float64; --exact then compares values exactly).
/// `progress` (may be empty) is called on the calling thread after each batch of 2**23
/// elements with the elements done. Throws what realizing the tensors throws (corrupt data).
Comparison compare_tensors(const Tensor& a, const Tensor& b, const CompareOptions& options,
                           const std::function<void(std::int64_t done)>& progress = {});

}  // namespace tensor_inspect
