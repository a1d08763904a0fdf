// stats/histogram_bins.cpp — HistogramBins: see histogram_bins.hpp.
#include "stats/histogram_bins.hpp"

#include <cmath>
#include <string>

#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

Histogram histogram_frame(std::size_t bins, double lo, double hi) {
  if (bins == 0) throw Error(ErrorCode::Usage, "--hist: the number of bins must be at least 1");
  if (!std::isfinite(lo) || !std::isfinite(hi) || lo > hi)
    throw Error(ErrorCode::Usage,
                "histogram range [" + std::to_string(lo) + ", " + std::to_string(hi) + "] is not a finite interval");
  if (lo == hi) {
    lo -= 0.5;
    hi += 0.5;
  }
  Histogram h;
  h.lo = lo;
  h.hi = hi;
  h.counts.assign(bins, 0);
  return h;
}

HistogramBins::HistogramBins(const Histogram& frame)
    : bins_(frame.counts.size()), lo_(frame.lo), hi_(frame.hi), edges_(bins_ + 1) {
  for (std::size_t i = 0; i <= bins_; ++i) edges_[i] = frame.edge(i);
  // Values are scaled by 1/2 when the range overflows a double, as the edges are (edge()).
  scale_ = std::isfinite(hi_ - lo_) ? 1.0 : 0.5;
  lo_scaled_ = lo_ * scale_;
  denom_ = hi_ * scale_ - lo_ * scale_;
}

std::size_t HistogramBins::slot(double v) const {
  if (std::isnan(v)) return bins_;
  if (std::isinf(v)) return v > 0 ? bins_ + 1 : bins_ + 2;
  if (v < lo_ || v > hi_) return bins_ + 3;
  const auto last_bin = static_cast<std::int64_t>(bins_) - 1;
  auto k = static_cast<std::int64_t>((v * scale_ - lo_scaled_) / denom_ * static_cast<double>(bins_));
  if (k > last_bin) k = last_bin;
  if (v < edges_[static_cast<std::size_t>(k)]) --k;
  if (k != last_bin && v >= edges_[static_cast<std::size_t>(k) + 1]) ++k;
  return static_cast<std::size_t>(k);
}

void HistogramBins::add_to(Histogram& h, const std::vector<std::uint64_t>& by_slot) const {
  for (std::size_t i = 0; i < bins_; ++i) h.counts[i] += by_slot[i];
  h.nan += by_slot[bins_];
  h.posinf += by_slot[bins_ + 1];
  h.neginf += by_slot[bins_ + 2];
  h.outside += by_slot[bins_ + 3];
}

}  // namespace tensor_inspect
