// view_merge_test.cpp — merge_views (realize/view_merge.hpp): the merged View reads, at every
// kernel index, the buffer index the two stacked Views read (-1 where a mask hides it), over
// random stacks built as the lowering builds them, and x.T[::2]'s stack merges into one View
// that reads in order.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "realize/program.hpp"
#include "realize/view_merge.hpp"
#include "realize/view_order.hpp"
#include "random_views.hpp"

namespace ti = tensor_inspect;
using ti::View;
namespace rd = ti::realize_detail;

namespace {

// The buffer index kernel index i reads through `views` (bottom first), -1 where a mask hides it.
std::int64_t read(const std::vector<View>& views, std::int64_t i) {
  for (std::size_t j = views.size(); j-- > 0 && i >= 0;) i = rd::map_index(views[j], i);
  return i;
}

// A random View of `shape` over a buffer: a permute, a shrink, a flip, a pad, a broadcast.
View random_view(std::mt19937& rng, ti::Shape shape) {
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  View v = View::make(shape);
  const std::size_t nd = shape.size();
  for (int step = 0; step < 3; ++step) {
    switch (pick(0, 4)) {
      case 0: {
        std::vector<std::int64_t> order(nd);
        for (std::size_t d = 0; d < nd; ++d) order[d] = static_cast<std::int64_t>(d);
        std::shuffle(order.begin(), order.end(), rng);
        v = v.permute(order);
        break;
      }
      case 1: v = random_views::shrink(rng, v); break;
      case 2: v = random_views::flip(rng, v); break;
      case 3: v = random_views::pad(rng, v); break;
      default: break;
    }
  }
  return v;
}

}  // namespace

TEST_CASE("merge_views reads what the two views read, at every index") {
  std::mt19937 rng(11);
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  int merged = 0, trials = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const View bottom = random_view(rng, {pick(1, 6), pick(1, 6), pick(1, 4)});
    const std::int64_t n = ti::prod(bottom.shape);
    if (n == 0) continue;
    // On top: bottom's index space as a new shape (a split of it, or a stride over it), then a
    // random view of that.
    View top = View::make({n});
    if (n % 2 == 0 && pick(0, 1)) top = *top.reshape({n / 2, 2});
    if (n % 3 == 0 && pick(0, 1)) top = *View::make({n}).reshape({n / 3, 3});
    if (pick(0, 2) == 0) {  // every k-th: x[::k] of the flat index space
      const std::int64_t k = pick(2, 3);
      top = View::make({(n + k - 1) / k}, {k});
    }
    if (top.strides.size() == top.shape.size() && top.shape.size() == 2 && pick(0, 1))
      top = top.permute({1, 0});
    if (pick(0, 1)) {
      ti::Ranges r;
      for (std::size_t d = 0; d < top.shape.size(); ++d) r.push_back({pick(0, 1), pick(0, 1)});
      top = top.pad(r);
    }
    ++trials;
    const std::vector<View> stack = {bottom, top};
    const std::optional<View> one = rd::merge_views(bottom, top);
    if (!one) continue;
    ++merged;
    CHECK(one->shape == top.shape);
    std::int64_t wrong = 0;
    for (std::int64_t i = 0; i < ti::prod(top.shape); ++i) wrong += read({*one}, i) != read(stack, i);
    CHECK(wrong == 0);
  }
  CHECK(trials > 2000);
  CHECK(merged > 300);  // the merges are many
}

TEST_CASE("x.T[::2] of an (8, 6) file: the pad-reshape-shrink stack merges into one view, read in order") {
  // tinygrad's x.T[::2] as the lowering stacks it: x.T padded on the stepped axis (a mask the
  // reshape to (4, 2, 8) cannot carry: a new view on top), shrunk to (3, 1, 8), reshaped to (3, 8).
  View x = View::make({8, 6}).permute({1, 0});  // (6, 8): x.T
  x = x.pad({{0, 2}, {0, 0}});                   // (8, 8), masked rows 6 and 7
  const View top = View::make({3, 8}, {16, 1});  // the reshape to (4, 2, 8), shrunk to (3, 1, 8)
  const std::vector<View> stack = {x, top};
  const std::optional<View> one = rd::merge_views(x, top);
  REQUIRE(one);
  for (std::int64_t i = 0; i < 24; ++i) CHECK(read({*one}, i) == read(stack, i));
  // In the file's order (rows outer: the kernel permuted to (8, 4)) it reads up the buffer.
  CHECK(rd::scan_order({one->permute({1, 0})}) == 1);
  CHECK(rd::scan_order({x, top.permute({1, 0})}) == 0);  // the stack, view by view: no order
}
