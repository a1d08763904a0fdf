// lane_keys.hpp — what one element of a kernel computes, as tinygrad's UOps see it once its
// optimizer has upcast some output axes (internal; lane_keys.cpp, lane_constants.cpp, upcast_lanes.cpp).
//
// tinygrad's hand-coded optimizer (codegen/opt/heuristic.py) upcasts small masked output axes:
// each element of such an axis is its own copy of the kernel, its index a constant, so the
// loads of two views (x and x.flip(0) at the middle of an odd axis) become one UOp there and
// symbolic's self folds (uop/symbolic.py: x//x, x-x, x*(1/x), ...) apply to that element alone.
// A lane is one element's index: a constant on each upcast axis, the loop variable (r_a) on the
// others. A key interns what a node computes at a lane: equal keys are one UOp in tinygrad.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include "tensor_inspect/graph.hpp"

namespace tensor_inspect::tg::detail {

/// c + sum(k[a] * r_a) over the kernel's output axes a (k[a] is 0 on upcast axes).
struct Aff {
  std::int64_t c = 0;
  std::vector<std::int64_t> k;
  bool constant() const;
  std::uint64_t axes() const;  ///< bit a set where k[a] != 0
  bool operator==(const Aff&) const = default;
};

/// The index at which a node is read: one Aff per axis, or (below a reshape that does not split
/// into axes) only the C-order flat index.
struct LaneIndex {
  std::vector<Aff> axes;
  std::optional<Aff> flat;  ///< set when `axes` is not known
};

/// One op of a kernel that symbolic folds where its two sides are one UOp, reached at a lane.
struct Reach {
  const Node* node;
  LaneIndex index;
  bool same;  ///< both sides have one key at this lane
};

/// Interns keys of nodes at lanes of one kernel and records what the optimizer and the folds
/// need: masked axes, the leaves' flat indices, the foldable ops reached.
class LaneKeys {
 public:
  /// Keys over a kernel whose output has `shape` (its axes' extents bound the loop variables).
  explicit LaneKeys(const Shape& shape) : ndim_(shape.size()), extent_(shape) {}
  /// The key of `n` read at `idx` (movement ops followed down to loads and constants), or -1
  /// where it cannot tell (an index it cannot map): never equal to another.
  int key(const NodePtr& n, const LaneIndex& idx);
  /// Output axes the condition of a WHERE or a pad's valid depends on (heuristic.py:
  /// where_gate_rngs).
  std::uint64_t masked = 0;
  /// The flat index of every load reached (for the adjacent-range merge check).
  std::vector<Aff> loads;
  std::vector<Reach> reaches;
  bool failed = false;  ///< some index could not be followed
  /// A load of a reduction or a scan: tinygrad fuses it into the kernel, whose optimizer and folds
  /// the tool does not follow there (a softmax's middle element does not fold), so it is left alone.
  bool reads_reduce = false;

 private:
  int intern(std::vector<std::int64_t> k, std::uint64_t ranges, const Node* leaf = nullptr);
  int const_key(DType dtype, const Scalar& s);
  int elementwise(const NodePtr& n, const LaneIndex& idx);
  /// The CONST key of an op whose operands are all CONSTs at this lane, or -1.
  int folded_constants(const Node* n, const std::vector<int>& ch);
  /// The CONST key of `cond` when it has one value at every point of the loop `idx` ranges over
  /// (read by trying each, at most kMaxLoopValues), or -1.
  int constant_over_loop(const NodePtr& cond, const LaneIndex& idx);
  /// Points of a loop tried by constant_over_loop: the kernels this follows have at most 49 lanes.
  static constexpr std::int64_t kMaxLoopValues = 64;
  bool always_within(const Aff& a, std::int64_t n) const;
  std::size_t ndim_;
  Shape extent_;
  std::map<std::vector<std::int64_t>, int> ids_;
  std::vector<std::uint64_t> ranges_;   ///< per key: axes it depends on
  std::vector<std::optional<double>> const_value_;  ///< per key: a CONST's value (for x+0, x*1)
  std::vector<std::optional<Scalar>> const_scalar_;  ///< per key: a CONST's Scalar (CAST folds)
  std::vector<const Node*> leaf_;       ///< per key: the loaded node when it is a load
  std::map<std::pair<const Node*, std::vector<std::int64_t>>, int> memo_;
};

/// The CONST symbolic's self fold makes of op(x, x) (uop/symbolic.py), in dtype `d`: 1 for x // x
/// and x * (1/x), 0 (False) for x - x, x % x, x ^ x, x < x and x != x; nullopt for max and min,
/// which are x itself.
std::optional<Scalar> self_fold_value(Op op, DType d);

/// `idx` (of a node of `shape`) as the C-order flat index.
Aff flat_of(const LaneIndex& idx, const Shape& shape);

}  // namespace tensor_inspect::tg::detail
