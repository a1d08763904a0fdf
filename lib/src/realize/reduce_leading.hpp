// reduce_leading.hpp — a reduction over the leading axes of a tensor read from a file, folded
// in the file's order (reduce_leading.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "realize/program.hpp"
#include "realize/reduce_fold.hpp"
#include "realize/release_behind.hpp"

namespace tensor_inspect::realize_detail {

/// Whether a reduction of shape `in` to `out` (keepdim, same rank) reduces only leading axes and
/// keeps some: ignoring axes of size 1, every reduced axis comes before every kept one
/// (`sum(axis=0)` of a matrix), and the reduced ones are not already the last.
bool reduces_leading_axes(const Shape& in, const Shape& out);

/// Whether a lowered program loads from a file in place (mapped, or remote read as it goes).
bool reads_a_file(const Program& prog);

/// The `cols` outputs of `fold` over `rows` rows of `prog` lowered in C order (element r * cols + k
/// is row r of output k): equal bit for bit to reduce.cpp's fold of the permuted index space
/// (blocks of kChunk rows folded row after row, their partials met in tree_fold), reading the
/// elements in order and releasing them behind (`release`). Holds cols * ceil(rows / kChunk)
/// partials: the input's element count / 2048 Words at most.
std::vector<Word> fold_leading_axes(const Program& prog, const Fold& fold, std::int64_t rows, std::int64_t cols,
                                    ReleaseBehind& release);

}  // namespace tensor_inspect::realize_detail
