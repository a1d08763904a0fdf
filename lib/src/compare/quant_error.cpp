// compare/quant_error.cpp — NMSE, SQNR and torch's default tolerances for diff (quant_error.hpp).
#include "compare/quant_error.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace tensor_inspect {
namespace {

// (rtol, atol) per dtype, as torch/testing/_comparison.py's _DTYPE_PRECISIONS has them
// (pytorch/pytorch; default_tolerances takes the loosest over the inputs' dtypes, and a
// dtype the table lacks, every integer and bool, gets (0.0, 0.0)). complex32 is left
// out: no format this tool reads holds it.
struct Precision {
  std::string_view dtype;
  double rtol, atol;
};
constexpr Precision kTorchPrecisions[] = {
    {"float16", 0.001, 1e-5}, {"bfloat16", 0.016, 1e-5},   {"float32", 1.3e-6, 1e-5},
    {"float64", 1e-7, 1e-7},  {"complex64", 1.3e-6, 1e-5}, {"complex128", 1e-7, 1e-7},
};

std::pair<double, double> precision_of(const std::string& dtype) {
  for (const Precision& p : kTorchPrecisions)
    if (p.dtype == dtype) return {p.rtol, p.atol};
  return {0.0, 0.0};
}

}  // namespace

std::optional<double> QuantError::nmse() const {
  if (!(sum_sq_a > 0)) return std::nullopt;
  return sum_sq_diff / sum_sq_a;
}

std::optional<double> QuantError::sqnr_db() const {
  if (!(sum_sq_a > 0)) return std::nullopt;
  if (sum_sq_diff == 0) return INFINITY;
  return 10.0 * std::log10(sum_sq_a / sum_sq_diff);
}

QuantError quant_error(const Comparison& c) { return {c.sum_sq_a, c.sum_sq_diff}; }

QuantError total_quant_error(const std::vector<const Comparison*>& pairs) {
  QuantError t;
  for (const Comparison* c : pairs) {  // in row order: the same total on every run
    t.sum_sq_a += c->sum_sq_a;
    t.sum_sq_diff += c->sum_sq_diff;
  }
  return t;
}

std::string torch_dtype_of(const TensorEntry& e) {
  if (!e.details().scheme_parts.empty()) {
    // What the scheme's producer hands back (each row in lib/src/schemes/ says where from);
    // where that is not known (a config without torch_dtype), the bfloat16 these
    // checkpoints are nearly always made in.
    const auto d = e.details().producer_dtype;
    return d ? std::string(dtype_info(*d).name) : "bfloat16";
  }
  return e.dtype ? std::string(dtype_info(*e.dtype).name) : std::string();
}

std::pair<double, double> torch_tolerance(const TensorEntry& a, const TensorEntry& b) {
  const auto pa = precision_of(torch_dtype_of(a)), pb = precision_of(torch_dtype_of(b));
  return {std::max(pa.first, pb.first), std::max(pa.second, pb.second)};
}

}  // namespace tensor_inspect
