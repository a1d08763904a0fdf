// compare/quant_error.hpp — how far one model is from another (a quantized one from its
// original): NMSE and SQNR per pair and parameter-weighted over all pairs, and
// torch.testing.assert_close's default tolerances per pair (`diff --tolerance torch`).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tensor_inspect/compare.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

/// The quantization error of a pair or of a whole model, from float64 sums: A is the reference.
struct QuantError {
  double sum_sq_a = 0;     ///< sum(a^2)
  double sum_sq_diff = 0;  ///< sum((a - b)^2)
  /// sum_sq_diff / sum_sq_a; nullopt where sum_sq_a is 0 (no reference energy to measure by).
  std::optional<double> nmse() const;
  /// 10 log10(sum_sq_a / sum_sq_diff) in dB (inf for equal tensors); nullopt where sum_sq_a is 0.
  std::optional<double> sqnr_db() const;
};

/// A comparison's error.
QuantError quant_error(const Comparison& c);

/// The parameter-weighted total: sums of a^2 and (a - b)^2 over every compared pair, so a
/// tensor weighs by its energy (its parameters' squares), not by one vote per tensor.
QuantError total_quant_error(const std::vector<const Comparison*>& pairs);

/// The dtype torch would hold `e` in, for its tolerance table: `e.dtype`'s name, except for
/// a quantization scheme's logical tensor, which counts as what its producer hands back
/// (EntryDetails::producer_dtype; bfloat16 where not known). Empty where values are not decoded.
std::string torch_dtype_of(const TensorEntry& e);

/// torch.testing.assert_close's default (rtol, atol) for a pair: the loosest of the two
/// dtypes' entries in torch's _DTYPE_PRECISIONS, (0, 0) for a dtype it does not list.
std::pair<double, double> torch_tolerance(const TensorEntry& a, const TensorEntry& b);

}  // namespace tensor_inspect
