// reduce_file_order.hpp — a reduction whose kernel reads a file out of order (`x.T.sum()`), folded
// while the file is read in its own order (reduce_file_order.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "realize/program.hpp"
#include "realize/reduce_fold.hpp"

namespace tensor_inspect::realize_detail {

/// How to fold a reduction reading the file in order: the kernel's axis order, and how its
/// elements map back to the reduction's own order (reduce.cpp's, kept axes first).
struct FileOrderPlan {
  std::vector<std::int64_t> order;  ///< the input's axes in the order the kernel runs them
  /// For each kernel axis, the step of the index in the reduction's order when it steps.
  std::vector<std::int64_t> logical_step;
  std::int64_t per = 0, outputs = 0;  ///< elements per output, outputs
  std::int64_t passes = 0;            ///< scans of the file the fold takes
};

/// A plan when an axis order of `in` reads more of its file Loads in order than the reduction's
/// own order `standard` (input axes, kept ones first; nullopt: as they are) does, and the fold
/// takes at most a few scans of the file with few partials; nullopt otherwise. Nothing fetched.
std::optional<FileOrderPlan> plan_file_order(const NodePtr& in, const BufferMap& buffers, const Shape& out_shape,
                                             const std::optional<std::vector<std::int64_t>>& standard);

/// The outputs of `fold` over `prog` (lowered in plan.order): equal bit for bit to reduce.cpp's
/// fold in its own order (blocks of kChunk elements, each folded left to right, their partials
/// met in tree_fold), the file read front to back plan.passes times, released behind each scan.
std::vector<Word> fold_in_file_order(const Program& prog, const Fold& fold, const FileOrderPlan& plan);

}  // namespace tensor_inspect::realize_detail
