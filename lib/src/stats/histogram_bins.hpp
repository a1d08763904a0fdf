// stats/histogram_bins.hpp — which bin of a Histogram a value falls in, as NumPy's np.histogram
// puts it: shared by the scan over the elements (scan.cpp) and the count of their bit patterns
// (value_counts.hpp), so the two cannot disagree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "decode/lanes.hpp"
#include "tensor_inspect/stats.hpp"

namespace tensor_inspect {

/// Values n of a decoded block (`buf`, in `lane`'s type) as doubles into `out`.
inline void lane_values(Lane lane, const void* buf, std::int64_t n, double* out) {
  for (std::int64_t i = 0; i < n; ++i) {
    switch (lane) {
      case Lane::F32: out[i] = static_cast<double>(static_cast<const float*>(buf)[i]); break;
      case Lane::F64: out[i] = static_cast<const double*>(buf)[i]; break;
      case Lane::I64: out[i] = static_cast<double>(static_cast<const std::int64_t*>(buf)[i]); break;
      case Lane::U64: out[i] = static_cast<double>(static_cast<const std::uint64_t*>(buf)[i]); break;
    }
  }
}

/// An empty histogram of `bins` bins over [lo, hi], lo == hi widened to lo - 0.5, hi + 0.5
/// (NumPy's rule). Throws Error(Usage) when bins is 0 or lo > hi or either is not finite.
Histogram histogram_frame(std::size_t bins, double lo, double hi);

/// The slot of a value in a histogram's counts: slot(v) < bins is a bin; bins, bins + 1,
/// bins + 2 and bins + 3 count nan, +inf, -inf and finite values outside [lo, hi].
class HistogramBins {
 public:
  explicit HistogramBins(const Histogram& frame);
  /// Slots a count needs: bins + 4.
  std::size_t slots() const { return bins_ + 4; }
  /// The slot of `v`: np.histogram's for equal bins (scale, truncate, then corrected by the edges).
  std::size_t slot(double v) const;
  /// Adds counts by slot (slots() of them) to `h`'s bins and its nan, inf and outside counts.
  void add_to(Histogram& h, const std::vector<std::uint64_t>& by_slot) const;

 private:
  std::size_t bins_;
  double lo_, hi_, scale_, lo_scaled_, denom_;
  std::vector<double> edges_;
};

}  // namespace tensor_inspect
