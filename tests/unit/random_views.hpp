// random_views.hpp — random movement steps on a View, as tinygrad's shrink, pad and flip make
// them, for the tests that check the lowering's index maps against element-by-element reads
// (view_order_test, view_merge_test).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "tensor_inspect/view.hpp"

namespace random_views {

/// A uniform integer in [lo, hi].
inline std::int64_t pick(std::mt19937& rng, std::int64_t lo, std::int64_t hi) {
  return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
}

/// `v` shrunk to a random non-empty range on each axis.
inline tensor_inspect::View shrink(std::mt19937& rng, const tensor_inspect::View& v) {
  tensor_inspect::Ranges r;
  for (const std::int64_t n : v.shape) {
    const std::int64_t b = pick(rng, 0, n - 1);
    r.push_back({b, pick(rng, b + 1, n)});
  }
  return v.shrink(r);
}

/// `v` padded by 0 to 2 elements at each end of each axis.
inline tensor_inspect::View pad(std::mt19937& rng, const tensor_inspect::View& v) {
  tensor_inspect::Ranges r;
  for (std::size_t d = 0; d < v.shape.size(); ++d) r.push_back({pick(rng, 0, 2), pick(rng, 0, 2)});
  return v.pad(r);
}

/// `v` flipped on a random set of axes.
inline tensor_inspect::View flip(std::mt19937& rng, const tensor_inspect::View& v) {
  std::vector<bool> axes;
  for (std::size_t d = 0; d < v.shape.size(); ++d) axes.push_back(pick(rng, 0, 1) == 1);
  return v.flip(axes);
}

}  // namespace random_views
