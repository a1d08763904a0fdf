// A weak float committed at float64: the width tinygrad gives a weak subgraph a float64
// consumer asks for. A weak float node otherwise computes in float32 (the executor's
// compute_dtype), but a concrete cast over it "states the width the value will live at,
// a floor, never a narrowing" (tinygrad/uop/weak.py, cast_weak_srcs: the weak sources
// commit at least_upper_dtype(cast dtype, default float)), and the commit recurses through
// every weak node below. So `(x * 0.1).cast(dtypes.float64)` of an int x is x * 0.1 in
// double, while `(x * 0.1).cast(dtypes.float16)` rounds through float32.
#include <unordered_map>

#include "internal.hpp"

namespace tensor_inspect::tg::detail {

namespace {

NodePtr recommit_weak_node(const NodePtr& n, DType d, std::unordered_map<const Node*, NodePtr>& memo) {
  if (n->dtype != DType::WeakFloat) return n;
  if (auto it = memo.find(n.get()); it != memo.end()) return it->second;
  NodePtr out;
  if (n->op == Op::Buffer || (n->src.empty() && n->op != Op::Const)) {
    out = make_node(Op::Cast, d, n->shape, {n});  // stored weak values: a plain cast
  } else {
    std::vector<NodePtr> src;
    src.reserve(n->src.size());
    for (const NodePtr& s : n->src) src.push_back(recommit_weak_node(s, d, memo));
    out = make_node(n->op, d, n->shape, std::move(src), n->arg);
  }
  memo.emplace(n.get(), out);
  return out;
}

}  // namespace

Tensor commit_weak_float(const Tensor& t, DType d) {
  std::unordered_map<const Node*, NodePtr> memo;
  return Tensor(recommit_weak_node(t.node(), d, memo));
}

}  // namespace tensor_inspect::tg::detail
