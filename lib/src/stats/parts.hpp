// stats/parts.hpp — the two halves of compute_stats, shared with the streamed scan of
// computed tensors (streamed.cpp): the moments of one fixed chunk, and the fixed combine
// tree over every chunk's moments that ends in a TensorStats.
//
//   std::vector<Moments> parts(chunks);
//   parts[c] = chunk_moments(source, lane_of(source), c);    // any thread, any order
//   TensorStats st = stats_of_parts(parts, lane, dtype, numel);
#pragma once

#include <cstdint>
#include <vector>

#include "decode/lanes.hpp"
#include "stats/moments.hpp"
#include "tensor_inspect/stats.hpp"

namespace tensor_inspect {

/// The moments of chunk `chunk` (elements [chunk, chunk + 1) × kStatsChunk) of `source`:
/// its blocks decoded and folded in index order.
Moments chunk_moments(const StoredElements& source, Lane lane, std::int64_t chunk);

/// The moments of every chunk of a remote `source` into `parts` (one per chunk), each
/// taken as its bytes arrive (stats/received.cpp), equal to chunk_moments' of them; progress
/// reported with the bytes of each finished request. False, with `parts` untouched, when
/// the source's bytes are not streamed (local, decoded, under --cache, or already fetched):
/// scan them in place. Throws Error(Io) as a fetch does.
bool receive_chunk_moments(const StoredElements& source, Lane lane, const ScanOptions& options,
                           std::vector<Moments>& parts);

/// Combines `parts` (one per chunk, in chunk order; merged in place) in the fixed pairwise
/// tree and gives the statistics of `count` elements of `dtype` (bool/signed/unsigned
/// decide how integer extrema are spelled).
TensorStats stats_of_parts(std::vector<Moments>& parts, Lane lane, DType dtype, std::int64_t count);

}  // namespace tensor_inspect
