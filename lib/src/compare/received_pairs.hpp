// compare/received_pairs.hpp — two remote tensors compared as their bytes arrive: each side's
// stored bytes stream from its server (stream_bytes) on a thread of its own, a range at a time,
// both sides on the same range of elements; the bytes land in one staging buffer per side,
// reused from range to range, and whichever thread finds whole chunks of 2048 elements on both
// sides folds them, in order. No page of either file is committed, zeroed or given back, and the
// two transfers run at once: `diff URL URL2` costs about the transfers, in memory of two ranges.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "compare/pair_fold.hpp"
#include "tensor_inspect/stored_elements.hpp"

namespace tensor_inspect::compare_detail {

/// The fold of every chunk pair of `a` and `b`, stored elements of remote files in C order (no
/// GGUF blocks, no decoder) of one element count, read as their dtypes; `floats` as for
/// fold_chunk_pair. `progress` gets the elements done, from either thread. nullopt when these
/// tensors are not streamed (a local file, a block cache open, too small: compare them in
/// memory). Throws Error(Io) as a fetch does.
std::optional<Partial> fold_received_pairs(const StoredElements& a, const StoredElements& b, const Rule& rule,
                                           bool floats, const std::function<void(std::int64_t done)>& progress);

}  // namespace tensor_inspect::compare_detail
