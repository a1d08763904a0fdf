#include <doctest/doctest.h>

#include "tensor_inspect/view.hpp"

namespace ti = tensor_inspect;
using ti::View;

TEST_CASE("View::make gives C strides, zero on size-1 axes") {
  View v = View::make({2, 3, 1});
  CHECK(v.strides == std::vector<std::int64_t>{3, 1, 0});
  CHECK(v.contiguous);
}

TEST_CASE("View::reshape of a permuted view needs a copy") {
  View t = View::make({2, 3}).permute({1, 0});
  CHECK(t.shape == ti::Shape{3, 2});
  CHECK(t.strides == std::vector<std::int64_t>{1, 3});
  CHECK_FALSE(t.reshape({6}));
  // Splitting an axis of a permuted view needs no copy.
  auto r = View::make({4, 6}).permute({1, 0}).reshape({2, 3, 4});
  REQUIRE(r);
  CHECK(r->strides == std::vector<std::int64_t>{3, 1, 6});
}

TEST_CASE("View movement ops map indices like NumPy's strided views") {
  View v = View::make({3, 4});
  // x[::-1] (flip axis 0): element (0, 1) is buffer element 2*4+1
  CHECK(v.flip({true, false}).index_of({0, 1}) == 9);
  // x[1:3, 2:4]
  View s = v.shrink({{1, 3}, {2, 4}});
  CHECK(s.shape == ti::Shape{2, 2});
  CHECK(s.index_of({1, 1}) == 11);
  // pad one row above: the new row 0 is masked (reads as 0)
  View p = v.pad({{1, 0}, {0, 0}});
  CHECK(p.shape == ti::Shape{4, 4});
  CHECK(p.index_of({0, 2}) == -1);
  CHECK(p.index_of({1, 2}) == 2);
  // expand a (3, 1) to (3, 5): stride 0
  View e = View::make({3, 1}).expand({3, 5});
  CHECK(e.index_of({2, 4}) == 2);
  // negative strides survive a reshape that splits an axis
  auto fr = View::make({6}).flip({true}).reshape({2, 3});
  REQUIRE(fr);
  CHECK(fr->index_of({0, 0}) == 5);
  CHECK(fr->index_of({1, 2}) == 0);
}

TEST_CASE("shape_repr prints Python tuples") {
  CHECK(ti::shape_repr({}) == "()");
  CHECK(ti::shape_repr({3}) == "(3,)");
  CHECK(ti::shape_repr({2, 3}) == "(2, 3)");
}
