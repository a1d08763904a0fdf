// view_reads.hpp — the byte ranges of a buffer one view reads, for fetching a remote Load's
// windows without the bytes between its reads: x[::7] of a remote file read one row in seven
// and fetched all seven (a window spans from its first read to its last).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "tensor_inspect/view.hpp"

namespace tensor_inspect::realize_detail {

/// The byte ranges [first, second) of its buffer that view `v` (no mask; elements of `itemsize`
/// bytes) reads, ascending, ranges less than `gap` bytes apart joined into one. nullopt when the
/// view has a mask, when it reads more than `max_runs` runs of adjacent elements, or when the
/// joined ranges cover at least 3/4 of the span from the first byte read to the last (fetching
/// the whole span then costs little more).
std::optional<std::vector<std::pair<std::uint64_t, std::uint64_t>>> view_reads(const View& v, std::size_t itemsize,
                                                                              std::uint64_t gap,
                                                                              std::uint64_t max_runs);

}  // namespace tensor_inspect::realize_detail
