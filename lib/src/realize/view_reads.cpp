// view_reads.cpp — view_reads (see view_reads.hpp).
#include "realize/view_reads.hpp"

#include <algorithm>

namespace tensor_inspect::realize_detail {

std::optional<std::vector<std::pair<std::uint64_t, std::uint64_t>>> view_reads(const View& v, std::size_t itemsize,
                                                                              std::uint64_t gap,
                                                                              std::uint64_t max_runs) {
  if (v.mask || v.strides.empty() || v.strides.size() != v.shape.size()) return std::nullopt;
  // Axes that move (size > 1, stride not 0), innermost (smallest |stride|) first.
  std::vector<std::pair<std::int64_t, std::int64_t>> axes;  // (|stride|, size)
  std::int64_t base = v.offset;  // the lowest element read
  for (std::size_t d = 0; d < v.shape.size(); ++d) {
    if (v.shape[d] == 0) return std::nullopt;
    if (v.shape[d] == 1 || v.strides[d] == 0) continue;
    if (v.strides[d] < 0) base += v.strides[d] * (v.shape[d] - 1);
    axes.emplace_back(v.strides[d] < 0 ? -v.strides[d] : v.strides[d], v.shape[d]);
  }
  std::sort(axes.begin(), axes.end());
  // The run: the inner axes whose steps leave less than `gap` between one copy of the run and the
  // next (end to end, overlapping, or a small step: x[:, ::3] of float32 reads 4 bytes in 12, and
  // fetching those 12 costs nothing more), as one range from its first element to its last.
  std::int64_t run = 1;
  std::size_t k = 0;
  const auto size = static_cast<std::uint64_t>(itemsize);
  const auto bytes = [&](std::int64_t elements) { return static_cast<std::uint64_t>(elements) * size; };
  while (k < axes.size() && bytes(axes[k].first) <= bytes(run) + gap) {
    run += (axes[k].second - 1) * axes[k].first;
    ++k;
  }
  std::uint64_t runs = 1;
  for (std::size_t j = k; j < axes.size(); ++j) {
    runs *= static_cast<std::uint64_t>(axes[j].second);
    if (runs > max_runs) return std::nullopt;
  }
  // Each run's first element (from base), by counting through the outer axes.
  std::vector<std::int64_t> starts{0};
  for (std::size_t j = k; j < axes.size(); ++j) {
    const std::size_t n = starts.size();
    for (std::int64_t i = 1; i < axes[j].second; ++i)
      for (std::size_t s = 0; s < n; ++s) starts.push_back(starts[s] + i * axes[j].first);
  }
  std::sort(starts.begin(), starts.end());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for (const std::int64_t s : starts) {
    const auto first = static_cast<std::uint64_t>(base + s) * size;
    const std::uint64_t last = first + static_cast<std::uint64_t>(run) * size;
    if (!out.empty() && first <= out.back().second + gap) {  // near, or overlapping (a stride under the run)
      out.back().second = std::max(out.back().second, last);
      continue;
    }
    out.emplace_back(first, last);
  }
  std::uint64_t covered = 0;
  for (const auto& [first, last] : out) covered += last - first;
  if (out.empty() || covered * 4 >= (out.back().second - out.front().first) * 3) return std::nullopt;
  return out;
}

}  // namespace tensor_inspect::realize_detail
