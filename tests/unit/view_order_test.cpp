// view_order_test.cpp — scan_order, scan_position and scan_reach (realize/view_order.hpp) against
// the reads a kernel makes, element by element, under views built as the lowering builds them.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "realize/program.hpp"
#include "realize/view_order.hpp"
#include "random_views.hpp"

namespace ti = tensor_inspect;
using ti::View;
namespace rd = ti::realize_detail;

namespace {

// The buffer index each kernel index reads, -1 where a mask hides it.
std::vector<std::int64_t> reads(const std::vector<View>& views) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(ti::prod(views.back().shape)));
  for (std::size_t i = 0; i < out.size(); ++i) {
    auto idx = static_cast<std::int64_t>(i);
    for (std::size_t j = views.size(); j-- > 0 && idx >= 0;) idx = rd::map_index(views[j], idx);
    out[i] = idx;
  }
  return out;
}

// Checks the three functions against the reads of `views`; returns the scan order.
int check_against_reads(const std::vector<View>& views) {
  const std::vector<std::int64_t> r = reads(views);
  const int order = rd::scan_order(views);
  std::vector<std::int64_t> valid;
  for (const std::int64_t x : r)
    if (x >= 0) valid.push_back(x);
  if (order == 0 || valid.empty()) return order;
  const auto reach = rd::scan_reach(views, order);
  REQUIRE(reach);
  CHECK(reach->first <= *std::min_element(valid.begin(), valid.end()));
  CHECK(reach->second >= *std::max_element(valid.begin(), valid.end()));
  if (views.size() == 1) {  // one view: its reach is exact
    CHECK(reach->first == *std::min_element(valid.begin(), valid.end()));
    CHECK(reach->second == *std::max_element(valid.begin(), valid.end()));
  }
  for (std::size_t at = 0; at < r.size(); ++at) {
    const std::int64_t p = rd::scan_position(views, static_cast<std::int64_t>(at));
    for (std::size_t i = at; i < r.size(); ++i) {  // reads at or after `at`: on the scan's side of p
      if (r[i] < 0) continue;
      if (order > 0) CHECK(r[i] >= p);
      else CHECK(r[i] <= p);
    }
  }
  return order;
}

}  // namespace

TEST_CASE("scan_order: a step, a shrink, a pad read in order; a flip backwards; a permute, a broadcast row neither") {
  const View x = View::make({6, 8});
  CHECK(check_against_reads({View::make({3, 8}, {16, 1})}) == 1);                // x[::2]
  CHECK(check_against_reads({View::make({6, 3}, {8, 3})}) == 1);                 // x[:, ::3]
  CHECK(check_against_reads({x.shrink({{1, 6}, {2, 8}})}) == 1);                 // x[1:, 2:]
  CHECK(check_against_reads({x.pad({{1, 2}, {0, 3}})}) == 1);                    // a pad
  CHECK(check_against_reads({x.flip({true, false})}) == -1);                     // rows backwards, each forwards
  CHECK(check_against_reads({x.flip({false, true})}) == 1);                      // rows forwards, each backwards
  CHECK(check_against_reads({x.flip({true, true})}) == -1);                      // x.flip((0, 1))
  CHECK(check_against_reads({View::make({48}, {-1}, 47)}) == -1);                // x.flip(0) of a vector
  CHECK(check_against_reads({x.permute({1, 0})}) == 0);                          // x.T
  CHECK(check_against_reads({View::make({6, 1}).expand({6, 4})}) == 1);          // each element 4 times
  CHECK(check_against_reads({View::make({1, 8}).expand({3, 8})}) == 0);          // the row 3 times
  CHECK(check_against_reads({x.shrink({{0, 6}, {0, 4}}), View::make({24})}) != 0);  // a reshape on top
  // Element by element in order: the scan stands at the element it reads next.
  const std::vector<View> step{View::make({3, 8}, {16, 1})};
  for (std::int64_t at = 0; at < 24; ++at) CHECK(rd::scan_position(step, at) == (at / 8) * 16 + at % 8);
  // Backwards by rows: at the end of the row it reads.
  const std::vector<View> flip{x.flip({true, false})};
  for (std::int64_t at = 0; at < 48; ++at) CHECK(rd::scan_position(flip, at) == (5 - at / 8) * 8 + 7);
}

TEST_CASE("scan_order and scan_position agree with the reads of random views") {
  std::mt19937 rng(7);
  auto pick = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  int ordered = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::vector<View> views;
    View v = View::make({pick(1, 5), pick(1, 6), pick(1, 4)});
    for (int step = 0; step < 3; ++step) {
      const std::size_t nd = v.shape.size();
      switch (pick(0, 5)) {
        case 0: v = random_views::shrink(rng, v); break;
        case 1: v = random_views::pad(rng, v); break;
        case 2: v = random_views::flip(rng, v); break;
        case 3: {  // a stride: every k-th element of an axis (x[::k] as a view of its own)
          const auto d = static_cast<std::size_t>(pick(0, static_cast<std::int64_t>(nd) - 1));
          const std::int64_t k = pick(1, 3);
          ti::Shape shape = v.shape;
          shape[d] = (shape[d] + k - 1) / k;
          std::vector<std::int64_t> strides(nd, 1);
          for (std::size_t e = nd - 1; e-- > 0;) strides[e] = strides[e + 1] * v.shape[e + 1];
          strides[d] *= k;
          views.push_back(v);
          v = View::make(shape, strides);
          break;
        }
        case 4: {  // a reshape to one axis, a new view when the view cannot express it
          if (auto r = v.reshape({ti::prod(v.shape)})) {
            v = *r;
          } else {
            views.push_back(v);
            v = View::make({ti::prod(v.shape)});
          }
          break;
        }
        default: break;  // none
      }
      if (v.shape.size() == 1 && step < 2) {  // back to three axes when it can
        const std::int64_t n = v.shape[0];
        if (n % 2 == 0) {
          if (auto r = v.reshape({n / 2, 2, 1})) v = *r;
        }
      }
    }
    views.push_back(v);
    std::erase_if(views, [](const View& w) { return w.contiguous; });
    if (views.empty() || ti::prod(views.back().shape) == 0) continue;
    ordered += check_against_reads(views) != 0;
  }
  CHECK(ordered > 50);  // the cases in order are many
}
