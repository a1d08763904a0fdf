// view_reads_test.cpp — view_reads (realize/view_reads.hpp) against element-by-element reads: for
// random strided views (steps, flips, permutes, broadcasts), the byte ranges it gives are those
// of the elements map_index reads, joined where closer than the gap; when it gives none, the
// joined ranges cover 3/4 of their span or more, or need more runs than allowed.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "realize/program.hpp"
#include "realize/view_reads.hpp"
#include "random_views.hpp"

namespace rd = tensor_inspect::realize_detail;
using tensor_inspect::View;
using Ranges = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

namespace {

// The bytes of every element `v` reads (elements of `size` bytes), joined where under `gap` apart.
Ranges brute_force(const View& v, std::uint64_t size, std::uint64_t gap) {
  std::int64_t n = 1;
  for (const std::int64_t d : v.shape) n *= d;
  std::vector<std::int64_t> at;
  for (std::int64_t i = 0; i < n; ++i) at.push_back(rd::map_index(v, i));
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  Ranges out;
  for (const std::int64_t e : at) {
    const auto first = static_cast<std::uint64_t>(e) * size;
    if (!out.empty() && first <= out.back().second + gap) out.back().second = std::max(out.back().second, first + size);
    else out.emplace_back(first, first + size);
  }
  return out;
}

}  // namespace

TEST_CASE("view_reads gives the bytes a strided view reads, joined across small gaps") {
  std::mt19937 rng(21);
  int given = 0, none = 0, wrong = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    // A random strided view of up to 3 axes over a buffer: steps, negative strides, a broadcast.
    const auto ndim = static_cast<std::size_t>(random_views::pick(rng, 1, 3));
    tensor_inspect::Shape shape;
    std::vector<std::int64_t> strides;
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < ndim; ++d) {
      shape.push_back(random_views::pick(rng, 1, 12));
      const std::int64_t kind = random_views::pick(rng, 0, 9);
      std::int64_t stride = kind == 0 ? 0 : random_views::pick(rng, 1, 400);
      if (kind == 1) stride = 1;
      if (random_views::pick(rng, 0, 3) == 0) stride = -stride;
      strides.push_back(stride);
      if (stride < 0) offset -= stride * (shape.back() - 1);
    }
    const View v = View::make(shape, strides, offset);
    const std::uint64_t size = std::uint64_t{1} << random_views::pick(rng, 0, 3);
    const std::uint64_t gap = static_cast<std::uint64_t>(random_views::pick(rng, 0, 64));
    const std::uint64_t max_runs = static_cast<std::uint64_t>(random_views::pick(rng, 4, 2000));
    const Ranges want = brute_force(v, size, gap);
    const auto got = rd::view_reads(v, static_cast<std::size_t>(size), gap, max_runs);
    if (got) {
      ++given;
      wrong += *got != want;
    } else {
      ++none;
      std::uint64_t covered = 0;
      for (const auto& [a, b] : want) covered += b - a;
      std::uint64_t runs = 1;  // runs of adjacent elements, at most one per element read
      for (const std::int64_t d : v.shape) runs *= static_cast<std::uint64_t>(d);
      wrong += !(covered * 4 >= (want.back().second - want.front().first) * 3 || runs > max_runs);
    }
  }
  CHECK(wrong == 0);
  CHECK(given > 300);  // both outcomes are exercised
  CHECK(none > 300);
  // A masked view (a pad) gives none.
  CHECK_FALSE(rd::view_reads(View::make({4}, {}, 0).pad({{1, 1}}), 4, 0, 100));
  // x[::7] of (150, 1000) float32: 22 rows of 4,000 bytes, 28,000 apart.
  const auto rows = rd::view_reads(View::make({22, 1000}, {7000, 1}, 0), 4, 1024, 100);
  REQUIRE(rows);
  CHECK(rows->size() == 22);
  CHECK(rows->at(1) == std::pair<std::uint64_t, std::uint64_t>{28000, 32000});
}
