// A kernel of four elements, computed as four lanes of constants, folds each lane's op with a
// weak float constant in double. tinygrad's kernel optimizer ends with "if nothing at all is
// upcasted and it's easy to, do an upcast" (codegen/opt/heuristic.py, hand_coded_optimizations):
// UPCAST by 4 of the last upcastable dim when its size is a multiple of 4; before it, "if there are
// small dims with lots of valid masks, upcast them" upcasts whole a dim of at most 7 that a WHERE
// gates (a pad's valid, a where on the index). Either way one such dim leaves no range: every
// index is a lane's constant, so a value derived from the index alone (arange, linspace, the
// constants around them) is a CONST per lane, and uop/symbolic.py's fold_const_alu folds
// CONST(float32) * CONST(weakfloat 0.333..) with the Python double, rounding once to float32:
// Tensor.arange(10, 0, -3) / 3 is [10/3 rounded, ...], not 10 * float32(1/3). A kernel with
// more elements (or 5 to 7 ungated) keeps a range in the index and commits the weak CONST to float32 first.
// Only the op meeting the weak CONST differs: the ops of two float32 CONSTs fold in double and
// round once, as float32 arithmetic does (+, -, *).
#include <cmath>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "internal.hpp"
#include "realize/fusion.hpp"
#include "tensor_inspect/realize.hpp"
#include "tensor_inspect/view.hpp"

namespace tensor_inspect::tg {

namespace {

using realize_detail::is_boundary;
using realize_detail::is_formula;

// Nodes walked per kernel before giving up (the expressions this follows are small).
constexpr std::size_t kLaneMaxNodes = 512;

// Whether `n` reads a buffer (a kernel input) within its kernel.
bool lf_reads_buffer(const Node* n, std::size_t& budget) {
  if (budget == 0) return true;
  --budget;
  if (is_boundary(*n)) return true;
  for (const NodePtr& s : n->src)
    if (lf_reads_buffer(s.get(), budget)) return true;
  return false;
}

// Whether a bool or float node of the kernel's lanes has two different values.
bool lf_varies(const NodePtr& n) {
  std::vector<double> v;
  try {
    for_each_chunk(n, 8, [&](const ValueChunk& c) {
      for (std::size_t k = 0; k < c.size; ++k) v.push_back(c.at(k).as_double());
    });
  } catch (const Error&) {
    return false;
  }
  for (double e : v)
    if (!(e == v.front())) return true;
  return false;
}

// The valid masks (bool, true where a value is read) of the pads below `n` in its kernel, carried
// up to `n`'s shape through the movement ops above each pad; `gated` is set by a WHERE whose
// condition reads a buffer or varies over the lanes.
std::vector<NodePtr> lf_masks(const NodePtr& n, bool& gated, std::size_t& budget) {
  std::vector<NodePtr> out;
  if (budget == 0 || gated || is_boundary(*n)) return out;
  --budget;
  if (n->op == Op::Where) {
    std::size_t reads = kLaneMaxNodes;
    if (lf_reads_buffer(n->src[0].get(), reads)) gated = true;
  }
  for (const NodePtr& s : n->src)
    for (NodePtr& m : lf_masks(s, gated, budget)) out.push_back(std::move(m));
  if (is_movement(n->op))
    for (NodePtr& m : out) m = make_node(n->op, DType::Bool, n->shape, {m}, n->arg);
  if (n->op == Op::Pad) {
    NodePtr all = make_node(Op::Const, DType::Bool, n->src[0]->shape, {}, Scalar::from_bool(true));
    out.push_back(make_node(Op::Pad, DType::Bool, n->shape, {all}, n->arg));
  }
  if (n->op == Op::Where && !gated && n->src[0]->shape == n->shape) out.push_back(n->src[0]);
  return out;
}

// Whether the kernel below `root` gates its one dim with a WHERE (uop.src[0].ranges of a WHERE in
// heuristic.py): a pad whose padding reaches the output (its valid), or a where on the index. A
// pad shrunk away has a valid that folds to True.
bool lf_masked(const NodePtr& root) {
  bool gated = false;
  std::size_t budget = kLaneMaxNodes;
  const std::vector<NodePtr> masks = lf_masks(root, gated, budget);
  if (gated) return true;
  for (const NodePtr& m : masks)
    if (lf_varies(m)) return true;
  return false;
}

// Whether the kernel ending at `root` is one dim (dims of 1 aside) that tinygrad upcasts whole: a
// dim of 4 by the last rule, one of at most 7 that a WHERE gates by the "masked small dims" rule.
bool lf_all_lanes(const NodePtr& root) {
  std::int64_t dims = 0, size = 1;
  for (std::int64_t d : root->shape)
    if (d != 1) ++dims, size = d;
  if (dims != 1) return false;
  return size == 4 || (size <= 7 && lf_masked(root));
}

// Whether the kernel below `n` reads nothing but buffers: a reduce or scan it reads may be fused
// into tinygrad's kernel, whose reduce range then takes the upcast (an unrolled reduce counts as
// upcasted) and leaves the output dim a range (`x.sum() + Tensor.arange(10, 0, -3) / 3` is float32
// arithmetic there).
bool lf_reads_buffers_only(const Node* n, std::unordered_set<const Node*>& seen) {
  if (!seen.insert(n).second) return true;
  if (seen.size() > kLaneMaxNodes) return false;
  if (is_boundary(*n)) return n->op == Op::Buffer || n->op == Op::Contiguous || n->op == Op::Producer;
  for (const NodePtr& s : n->src)
    if (!lf_reads_buffers_only(s.get(), seen)) return false;
  return true;
}

// Whether `n` is made from the index alone (formula producers, CONSTs, element-wise and movement
// ops over them, at least one producer): a lane's CONST once the index is. `producer` is set when
// one is found.
bool lf_index_only(const Node* n, std::unordered_set<const Node*>& seen, bool& producer) {
  if (!seen.insert(n).second) return true;
  if (seen.size() > kLaneMaxNodes) return false;
  if (n->op == Op::Const) return true;
  if (n->op == Op::Producer) return producer = is_formula(*n);
  if (!is_movement(n->op) && !(is_elementwise(n->op) && n->op != Op::Bitcast)) return false;
  for (const NodePtr& s : n->src)
    if (!lf_index_only(s.get(), seen, producer)) return false;
  return true;
}

// The value of a weak float CONST committed to float32 (CAST float32 of CONST weakfloat, under
// reshapes and expands), as the Python float it still is in tinygrad's graph.
std::optional<double> lf_weak_value(const Node* n) {
  while (n->op == Op::Reshape || n->op == Op::Expand) n = n->src[0].get();
  if (n->op != Op::Cast || n->dtype != DType::Float32) return std::nullopt;
  n = n->src[0].get();
  while (n->op == Op::Reshape || n->op == Op::Expand) n = n->src[0].get();
  if (n->op != Op::Const || n->dtype != DType::WeakFloat) return std::nullopt;
  return std::get<Scalar>(n->arg).as_double();
}

// The lane values of an index-only node, as the executor computes them, or nullopt.
std::optional<std::vector<double>> lf_lanes(const NodePtr& n) {
  std::unordered_set<const Node*> seen;
  bool producer = false;
  const std::int64_t count = tensor_inspect::prod(n->shape);
  if (n->dtype != DType::Float32 || count > 7 || !lf_index_only(n.get(), seen, producer) || !producer)
    return std::nullopt;
  std::vector<double> v;
  try {
    for_each_chunk(n, 8, [&](const ValueChunk& c) { v.insert(v.end(), c.f, c.f + c.size); });
  } catch (const Error&) {
    return std::nullopt;  // the kernel raises: leave that to realization
  }
  if (v.size() != static_cast<std::size_t>(count)) return std::nullopt;
  return v;
}

// fold_const_alu of lane value `a` and the weak `w` (order as in the op), after symbolic's
// "x+0 -> x" and "x*1 -> x", which keep a zero's sign and skip the rounding of the weak side's
// double until the store; nullopt where float32 overflows (left to the executor).
std::optional<double> lf_fold(Op op, double a, double w, bool weak_first) {
  double r;
  if (op == Op::Mul) {
    r = w == 1 ? a : a == 1 ? w : a * w;
  } else if (op == Op::Add) {
    r = w == 0 ? a : a == 0 ? w : a + w;
  } else {  // Sub: tinygrad's a - b is a + (-b)
    const double p = weak_first ? w : a, q = weak_first ? -a : -w;
    r = q == 0 ? p : p == 0 ? q : p + q;
  }
  const float f = static_cast<float>(r);
  if (std::isfinite(r) && !std::isfinite(f)) return std::nullopt;
  return static_cast<double>(f);
}

struct LaneFolder {
  std::unordered_map<const Node*, NodePtr> memo;

  // `n` with each float32 +, -, * of an index-only value and a weak float CONST replaced by its
  // lanes' folds, inside a four-lane kernel (`lanes`); kernels below a Contiguous are judged alone.
  NodePtr run(const NodePtr& n, bool lanes) {
    if (auto it = memo.find(n.get()); it != memo.end()) return it->second;
    NodePtr out = n;
    if (n->op == Op::Contiguous) {
      std::unordered_set<const Node*> seen;
      const bool inner = lf_all_lanes(n->src[0]) && lf_reads_buffers_only(n->src[0].get(), seen);
      NodePtr s = run(n->src[0], inner);
      if (s != n->src[0]) out = make_node(n->op, n->dtype, n->shape, {s}, n->arg);
    } else if (!is_boundary(*n) && lanes) {
      // Sources first: an op over a folded lane reads the folded values ((a / 3) + 1).
      std::vector<NodePtr> src;
      bool changed = false;
      for (const NodePtr& s : n->src) {
        src.push_back(run(s, lanes));
        changed = changed || src.back() != s;
      }
      if (changed) out = make_node(n->op, n->dtype, n->shape, std::move(src), n->arg);
      out = fold_here(out);
    }
    memo.emplace(n.get(), out);
    return out;
  }

  // The lanes' folds of `n`, or `n`.
  static NodePtr fold_here(const NodePtr& n) {
    if (n->dtype != DType::Float32 || (n->op != Op::Mul && n->op != Op::Add && n->op != Op::Sub)) return n;
    for (int side = 0; side < 2; ++side) {
      const std::optional<double> w = lf_weak_value(n->src[static_cast<std::size_t>(side)].get());
      if (!w) continue;
      const std::optional<std::vector<double>> a = lf_lanes(n->src[static_cast<std::size_t>(1 - side)]);
      if (!a) return n;
      std::vector<double> folded;
      for (double v : *a) {
        const std::optional<double> r = lf_fold(n->op, v, *w, side == 0);
        if (!r) return n;
        folded.push_back(*r);
      }
      return detail::produced(n->shape, DType::Float32, "lanes", [folded](std::int64_t i) {
               return Scalar::from_float(folded[static_cast<std::size_t>(i)]);
             }).node();
    }
    return n;
  }
};

}  // namespace

Tensor fold_upcast_lanes(const Tensor& t) {
  const NodePtr& root = t.node();
  std::unordered_set<const Node*> seen;
  LaneFolder f;
  const bool lanes = !is_boundary(*root) && lf_all_lanes(root) && lf_reads_buffers_only(root.get(), seen);
  NodePtr out = f.run(root, lanes);
  return out == root ? t : Tensor(out);
}

}  // namespace tensor_inspect::tg
