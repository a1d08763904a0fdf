// A weak float committed at float64: the width tinygrad gives a weak subgraph a float64
// consumer asks for. A weak float node otherwise computes in float32 (the executor's
// compute_dtype), but a concrete cast over it "states the width the value will live at,
// a floor, never a narrowing" (tinygrad/uop/weak.py, cast_weak_srcs: the weak sources
// commit at least_upper_dtype(cast dtype, default float)), and the commit recurses through
// every weak node below. So `(x * 0.1).cast(dtypes.float64)` of an int x is x * 0.1 in
// double, while `(x * 0.1).cast(dtypes.float16)` rounds through float32.
// A weak int ALU under a uint64 cast commits at least_upper_dtype(uint64, int32), a weak float
// the kernel lowers at float32: `(x + 16777217).cast(dtypes.uint64)` of a bool True is 16777216.
#include <optional>
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

// The weak int graph under n re-typed at float32; nullopt where it holds an op that is not plain
// arithmetic (a division, a power: not followed). A bitwise op raises as tinygrad's verifier does.
std::optional<NodePtr> int_as_float_node(const NodePtr& n, std::unordered_map<const Node*, NodePtr>& memo) {
  if (n->dtype != DType::WeakInt) return n;
  if (auto it = memo.find(n.get()); it != memo.end()) return it->second;
  NodePtr out;
  if (n->op == Op::And || n->op == Op::Or || n->op == Op::Xor)
    expr_error("a bitwise op over a Python int and a bool, cast to uint64: tinygrad commits it at a float "
               "(least_upper_dtype(uint64, int32)) and its verifier rejects the op");
  if (n->op == Op::Const) {
    out = make_node(Op::Const, DType::Float32, n->shape, {}, Scalar::from_float(std::get<Scalar>(n->arg).as_double()));
  } else if (n->op == Op::Add || n->op == Op::Sub || n->op == Op::Mul || n->op == Op::Neg || n->op == Op::Max ||
             n->op == Op::Min || n->op == Op::Where || n->op == Op::Cast || (is_movement(n->op) && n->op != Op::Pad)) {
    std::vector<NodePtr> src;
    for (const NodePtr& s : n->src) {
      std::optional<NodePtr> f = int_as_float_node(s, memo);
      if (!f) return std::nullopt;
      src.push_back(*f);
    }
    out = make_node(n->op, DType::Float32, n->shape, std::move(src), n->arg);
  } else if (is_reduce(n->op) || n->op == Op::Buffer || n->op == Op::Contiguous) {
    out = make_node(Op::Cast, DType::Float32, n->shape, {n});  // another kernel's stored value
  } else {
    return std::nullopt;
  }
  memo.emplace(n.get(), out);
  return out;
}

}  // namespace

std::optional<Tensor> commit_weak_int_at_float(const Tensor& t) {
  const Op op = t.node()->op;
  if (t.dtype() != DType::WeakInt || op == Op::Const || is_movement(op) || op == Op::Cast) return std::nullopt;
  std::unordered_map<const Node*, NodePtr> memo;
  std::optional<NodePtr> f = int_as_float_node(t.node(), memo);
  if (!f) return std::nullopt;
  return Tensor(*f);
}

Tensor commit_weak_float(const Tensor& t, DType d) {
  std::unordered_map<const Node*, NodePtr> memo;
  return Tensor(recommit_weak_node(t.node(), d, memo));
}

}  // namespace tensor_inspect::tg::detail
