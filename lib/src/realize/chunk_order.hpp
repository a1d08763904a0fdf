// chunk_order.hpp — the order a Loop kernel's chunks run in: the index space left to right, or
// band by band down a long last axis (loop tiling), so that a column walk reads each block once.
//
// A kernel that walks a file's columns (`x.T.contiguous()`, export -e 'x.T' of an embedding table
// of 152,064 rows) reads, in its own order, one element of every row of the file for each output
// row, then the next column from every row again. A block cache (block_reads.hpp) holds the rows'
// blocks between two columns only when they fit: at most 65,536 rows of 256 bytes in a thread's
// 16 MiB share of out_of_order_bytes. Past that it read each block again for every column, and gave
// up to the file map, whose pages stayed: x.T.contiguous() of a (262144, 256) float32 held the
// 256 MiB file beside its 256 MiB output.
//
// Banded, the kernel runs a band of L positions of the last axis for every row of the space before
// the next band: chunk (row j, band s) computes elements [j * R + s * L, + L) of a last axis of R.
// A column walk then reads, band after band, L rows of the file across all its columns: each block
// once, whatever the row count, in a cache of L blocks. L is kChunk, or less where a band of rows
// would not fit half a thread's cache: L times a row's bytes (or the smallest block, when a row is
// longer) at most half of it (--limit out_of_order_bytes=512K: 512 rows of 256 bytes). The values
// are the same, element for element: a Loop kernel's elements do not depend on one another.
//
// Only a kernel whose file reads all go through block caches (or memory) is banded: a Load read in
// order through the file map gives its pages back behind a scan in index order (release_behind.hpp),
// which banding would break, and reads its file's pages across the whole file in each band.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "realize/chunk.hpp"

namespace tensor_inspect::realize_detail {

struct Program;

/// The chunks of the space's rows [first_row, first_row + rows) (all of them when linear), in
/// the order they run. Linear: chunk c is elements [c * kChunk, + kChunk) of the whole space.
struct ChunkOrder {
  std::int64_t elements = 0;  ///< the space's element count
  std::int64_t row = 0;       ///< banded: the last axis' length R (at least kBandedRow); 0: linear
  std::int64_t first_row = 0, rows = 0;  ///< banded: the rows of the space these chunks cover
  std::int64_t band = static_cast<std::int64_t>(kChunk);  ///< banded: L, a chunk's length (at most kChunk)

  /// Last axes at least this long are banded (four chunks a row or more): shorter rows fit
  /// a chunk or two, and a chunk that spans rows walks kChunk / R columns at once.
  static constexpr std::int64_t kBandedRow = 4 * static_cast<std::int64_t>(kChunk);

  /// The order for `program`'s Loop kernel over its whole space: banded when its last axis is
  /// at least kBandedRow long, it has more than one row, some Load reads through block caches,
  /// and no Load reads a file in order (Instance::file) or fetches it as it reads.
  static ChunkOrder of(const Program& program);
  bool banded() const { return row > 0; }
  /// The same order over rows [first, first + count) of a banded space (a stream's batch).
  ChunkOrder rows_of(std::int64_t first, std::int64_t count) const { return {elements, row, first, count, band}; }
  /// Chunks to run.
  std::int64_t items() const {
    if (!banded()) return (elements + static_cast<std::int64_t>(kChunk) - 1) / static_cast<std::int64_t>(kChunk);
    return rows * bands();
  }
  /// Chunk `item`'s first element in the space and its length (at most kChunk).
  std::pair<std::int64_t, std::size_t> at(std::int64_t item) const {
    const auto chunk = static_cast<std::int64_t>(kChunk);
    if (!banded())
      return {item * chunk, static_cast<std::size_t>(std::min<std::int64_t>(chunk, elements - item * chunk))};
    const std::int64_t s = item / rows, j = first_row + item % rows;
    return {j * row + s * band, static_cast<std::size_t>(std::min(band, row - s * band))};
  }
  /// Linear: the first element of chunks [first, first + count) and their length together (they
  /// follow one another).
  std::pair<std::int64_t, std::size_t> run(std::int64_t first, std::int64_t count) const {
    const auto chunk = static_cast<std::int64_t>(kChunk);
    return {first * chunk, static_cast<std::size_t>(std::min(elements - first * chunk, count * chunk))};
  }

 private:
  std::int64_t bands() const { return (row + band - 1) / band; }
};

}  // namespace tensor_inspect::realize_detail
