// view_order.cpp — scan_order, scan_position, scan_reach: see view_order.hpp.
//
// A view maps its multi-index c to offset + sum(c[d] * stride[d]) where c lies in the box
// its mask leaves (each axis d in [first_d, last_d]). Over that box in C order, stepping axis d
// by one (the axes after it back to their first) never goes down when stride[d] is at least
// what the axes after it reach, either way; when the first axes all step so, the view reads up
// the buffer a block of the other axes at a time (all of them: element by element). Views
// stacked (a reshape a view cannot express) compose: the order is the product of theirs, and a
// bound in the space between two views is carried down through the lower one as a bound on its
// own indices.
#include "realize/view_order.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdlib>

namespace tensor_inspect::realize_detail {
namespace {

struct Box {
  std::vector<std::int64_t> first, last, stride;
  bool empty = false;
};

Box box_of(const View& v) {
  const std::size_t nd = v.shape.size();
  Box b{std::vector<std::int64_t>(nd), std::vector<std::int64_t>(nd), std::vector<std::int64_t>(nd), false};
  std::int64_t c_stride = 1;
  for (std::size_t d = nd; d-- > 0;) {
    b.first[d] = 0, b.last[d] = v.shape[d] - 1;
    if (v.mask) {
      b.first[d] = std::max<std::int64_t>(b.first[d], (*v.mask)[d].first);
      b.last[d] = std::min<std::int64_t>(b.last[d], (*v.mask)[d].second - 1);
    }
    b.empty = b.empty || b.last[d] < b.first[d];
    b.stride[d] = v.strides.size() == nd ? v.strides[d] : c_stride;  // no strides: C order
    c_stride *= v.shape[d];
  }
  return b;
}

// The view's order over its outer axes: +1 or -1 when its first `outer` axes step that way
// past every read of the axes after them (stride[d] >= the reach of the axes after d, either
// way: sum over e > d of |stride[e]| * (last_e - first_e), negated for -1), 0 when its first axis
// does not. The axes after them (a row `x.flip(0)` reads forwards, a broadcast row) may read in
// any order: the scan goes on a block of them at a time.
struct Order {
  int sign = 0;
  std::size_t outer = 0;
  std::int64_t inner_reach = 0;  ///< the reach of the axes after the outer ones, either way
};

Order view_order(const Box& b) {
  const std::size_t nd = b.first.size();
  std::vector<std::int64_t> reach(nd + 1, 0);  // reach[d]: of the axes from d on, either way
  for (std::size_t d = nd; d-- > 0;) reach[d] = reach[d + 1] + std::abs(b.stride[d]) * (b.last[d] - b.first[d]);
  Order o{0, 0};
  for (std::size_t d = 0; d < nd; ++d) {
    if (b.last[d] == b.first[d]) {  // one element: no step
      o.outer = d + 1;
      continue;
    }
    const std::int64_t s = b.stride[d], inner = reach[d + 1];
    const bool up = s >= inner, down = -s >= inner;  // both: a broadcast over nothing that moves
    if (!up && !down) break;
    if (o.sign == 0 && up != down) o.sign = up ? 1 : -1;
    if ((o.sign > 0 && !up) || (o.sign < 0 && !down)) break;
    o.outer = d + 1;
  }
  if (o.sign == 0 && o.outer == nd) o.sign = 1;  // reads one element, or the same ones again
  if (o.outer == 0) o.sign = 0;
  o.inner_reach = reach[o.outer];
  return o;
}

// A bound on the buffer indices the view reads at its linear indices on one side of `c` (at c
// and after it when `after`, at c and before it otherwise): c up to the first outer axis out of
// its range, then that axis and every outer one after it at the end of its range on c's side
// (first when c is below the range, last when above); the axes after the outer ones at the end
// of their range that reads the lowest index (`low`) or the highest. On its outer axes the view
// is in order, so every read on that side lies on one side of it: at or above the lowest read
// of the block of inner axes it names, or at or below the highest.
std::int64_t bound(const View& v, const Box& b, std::size_t outer, std::int64_t c, bool low) {
  const std::size_t nd = v.shape.size();
  std::vector<std::int64_t> at(nd);
  for (std::size_t d = nd; d-- > 0;) at[d] = c % v.shape[d], c /= v.shape[d];
  std::int64_t out = v.offset;
  int fill = 0;  // after the first axis out of its range: -1 every outer axis at its first, +1 at its last
  for (std::size_t d = 0; d < outer; ++d) {
    if (fill == 0 && at[d] < b.first[d]) fill = -1;
    if (fill == 0 && at[d] > b.last[d]) fill = 1;
    out += (fill == 0 ? at[d] : fill < 0 ? b.first[d] : b.last[d]) * b.stride[d];
  }
  for (std::size_t d = outer; d < nd; ++d)
    out += ((b.stride[d] >= 0) == low ? b.first[d] : b.last[d]) * b.stride[d];
  return out;
}

// Kernel index `at` carried down the views: a bound on the reads at `at` and after it (`after`)
// or at it and before, on the scan's far side of which they all lie (at or above for a view
// stack of order +1 reading after `at`).
std::int64_t carried(const std::vector<View>& views, std::int64_t at, bool after) {
  for (std::size_t j = views.size(); j-- > 0;) {
    const Box b = box_of(views[j]);
    const Order o = view_order(b);
    at = bound(views[j], b, o.outer, at, after == (o.sign > 0));
    if (o.sign < 0) after = !after;  // reads after `at` lie below the bound: the next view reads before it
  }
  return at;
}

}  // namespace

int scan_order(const std::vector<View>& views) {
  int order = 1;
  for (const View& v : views) order *= view_order(box_of(v)).sign;
  return order;
}

std::int64_t scan_block(const std::vector<View>& views) {
  std::int64_t block = 0;
  for (const View& v : views) {
    const Order o = view_order(box_of(v));
    if (o.sign == 0) return 0;
    block = std::max(block, o.inner_reach);
  }
  return block;
}

std::int64_t scan_position(const std::vector<View>& views, std::int64_t at) { return carried(views, at, true); }

std::optional<std::pair<std::int64_t, std::int64_t>> scan_reach(const std::vector<View>& views, int order) {
  if (views.empty()) return std::nullopt;
  std::int64_t top = 1;
  for (const std::int64_t d : views.back().shape) top *= d;
  if (top == 0) return std::nullopt;
  for (const View& v : views)
    if (box_of(v).empty) return std::nullopt;
  // Every read is at kernel index 0 or after it, and at the last one or before it.
  const std::int64_t from_first = carried(views, 0, true), to_last = carried(views, top - 1, false);
  return order >= 0 ? std::pair{from_first, to_last} : std::pair{to_last, from_first};
}

}  // namespace tensor_inspect::realize_detail
