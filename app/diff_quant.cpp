// app/diff_quant.cpp — NMSE, SQNR and torch's default tolerances for diff (diff_quant.hpp).
#include "diff_quant.hpp"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace tensor_inspect::app {
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
    // GPTQ's and AWQ's kernels compute in float16 and hand back float16 (their scales are
    // F16); transformers dequantizes FP8 (fp8_cast_bf16), MXFP4, NVFP4, MLX and
    // compressed-tensors weights to the model's bfloat16.
    const std::string_view st = e.stored_type;
    // bitsandbytes hands back its quant state's dtype, which the note names (schemes/bnb.cpp).
    if (st.starts_with("bitsandbytes")) {
      const std::string_view note = e.note, key = "bitsandbytes hands back ";
      if (const auto at = note.find(key); at != std::string_view::npos) {
        const std::string_view rest = note.substr(at + key.size());
        return std::string(rest.substr(0, rest.find_first_of(";, ")));
      }
    }
    return st.starts_with("gptq") || st.starts_with("awq") ? "float16" : "bfloat16";
  }
  return e.dtype ? std::string(dtype_info(*e.dtype).name) : std::string();
}

std::pair<double, double> torch_tolerance(const TensorEntry& a, const TensorEntry& b) {
  const auto pa = precision_of(torch_dtype_of(a)), pb = precision_of(torch_dtype_of(b));
  return {std::max(pa.first, pb.first), std::max(pa.second, pb.second)};
}

}  // namespace tensor_inspect::app
