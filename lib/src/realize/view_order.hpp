// view_order.hpp — whether a Load under views reads its buffer in order, and how far behind
// the scan its finished elements lie (view_order.cpp).
//
// A kernel reads its index space in C order. Under a stepped slice (`x[::2]`, `x[:, ::3]`), a
// shrink (`x[10:]`), a pad, or reshapes of these, the buffer index it reads never decreases
// as the kernel index grows; under `x.flip((0, 1))` it never increases; under `x.flip(0)` of a
// matrix it goes down row by row, each row read forwards: in order by blocks of its last axes.
// Such a Load is released behind its scan and fetched in windows ahead like a contiguous one
// (release_behind.hpp). A permute (`x.T`) or a broadcast of rows reads back and forth: not in
// order.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "tensor_inspect/view.hpp"

namespace tensor_inspect::realize_detail {

/// The order in which a Load under `views` (bottom first, kernel space last, as
/// Instance::views) reads its buffer over the kernel's indices, ignoring the elements a mask
/// hides: +1 up the buffer, -1 down it (each by blocks of its inner axes: a row of `x.flip(0)`
/// is read forwards), 0 neither. No views: +1.
int scan_order(const std::vector<View>& views);

/// For a Load of scan order +1 or -1: how far back, in elements of its buffer, a read may lie
/// behind the furthest one before it: the reach of the block of inner axes each view reads in
/// any order (a row of `x.flip(0)`: its row; `x.reshape(2, -1).flip(1)`: half the buffer), the
/// largest of the views'. The pages of that many elements stay behind a scan. 0 for order 0.
std::int64_t scan_block(const std::vector<View>& views);

/// For a Load of scan order +1 (-1) and a kernel index `at` in its space: a buffer index that
/// every read by kernel index `at` or later is at or above (at or below): where the scan stands,
/// up to a block of inner axes behind it.
std::int64_t scan_position(const std::vector<View>& views, std::int64_t at);

/// The buffer indices [first, last] the views can read (the extreme ones they reach, within
/// their masks), or nullopt when they read none.
std::optional<std::pair<std::int64_t, std::int64_t>> scan_reach(const std::vector<View>& views, int order);

}  // namespace tensor_inspect::realize_detail
