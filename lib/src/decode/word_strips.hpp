// decode/word_strips.hpp — a few logical rows' packed words, copied out of a transposed
// code part (GPTQ's and AWQ's qweight, stored [in, out] under a logical [out, in]) in the
// part's stored order, and kept per thread while a scan decodes those rows.
//
// Decoding a logical row straight from such a part reads one word of every stored row:
// words a row of the part apart (16 KiB for 4096 outputs), each on a page of its own, so
// every read misses the TLB and the caches. A strip reads each stored row once for many
// logical rows — one cache line's worth of columns — and the row decodes from contiguous
// words. The values are the same; only the order the part's bytes are read in changes.
//
//   WordStrip& s = thread_strip(owner, first_row);            // owner: new_strip_owner()
//   if (s.first_row != first_row) { copy_word_columns(...); s.first_row = first_row; }
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tensor_inspect {

/// One thread's copy of some logical rows of one tensor (see the file comment).
struct WordStrip {
  std::uint64_t owner = 0;      ///< the tensor's new_strip_owner() id, 0 when empty
  std::int64_t first_row = -1;  ///< the first logical row held
  std::uint64_t used = 0;       ///< when last handed out, for the least-recently-used choice
  std::vector<std::uint32_t> words;  ///< the copied words, a scheme's layout
  std::vector<float> scales;         ///< per row and group, a scheme's layout
  std::vector<std::int32_t> zeros;   ///< per row and group, a scheme's layout
};

/// A fresh id (never 0) for a tensor whose decode keeps strips: a strip is only reused by
/// the decode that made it, even when another tensor later lies at the same address.
std::uint64_t new_strip_owner();

/// This thread's strip holding `owner`'s rows from `first_row`, when it has one; otherwise
/// the least recently used of its strips (a thread keeps two, so a diff of two such tensors
/// does not rebuild one per call), for the caller to fill and stamp with `owner` and
/// `first_row`.
WordStrip& thread_strip(std::uint64_t owner, std::int64_t first_row);

/// Columns [col0, col0 + ncols) of a row-major matrix of little-endian 32-bit words
/// [rows, cols] at `words`, copied transposed: out[j * rows + w] = word (w, col0 + j). Reads
/// each stored row's columns once, row after row, with the rows ahead prefetched.
void copy_word_columns(const std::byte* words, std::int64_t rows, std::int64_t cols, std::int64_t col0,
                       std::int64_t ncols, std::uint32_t* out);

/// The most bytes of words a strip may hold; a wider strip (a tensor with millions of
/// inputs) is not kept, and its rows decode from the part directly.
inline constexpr std::int64_t kStripMaxBytes = std::int64_t{4} << 20;

}  // namespace tensor_inspect
