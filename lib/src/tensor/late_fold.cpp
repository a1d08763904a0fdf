// late_fold.cpp — tinygrad's fold inside a kernel of constants (see late_fold.hpp).
#include "tensor/late_fold.hpp"

#include <cmath>
#include <cstdint>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/realize.hpp"

namespace tensor_inspect::late_fold {
namespace {

// Above this many elements a graph of constants is not evaluated twice: its compare is left to
// the executor (the random expressions this follows are small; a large one is rarely all nan).
constexpr std::int64_t kLateFoldMaxElements = 4096;
// Nodes walked per side before giving up.
constexpr std::size_t kLateFoldMaxNodes = 512;

bool late_fold_same_scalar(const Scalar& a, const Scalar& b) {
  if ((a.kind == DKind::Float) != (b.kind == DKind::Float)) return false;
  if (a.kind == DKind::Float) return std::isnan(a.f) ? std::isnan(b.f) : a.f == b.f;
  return a.as_wide() == b.as_wide();
}

// Whether `n` is a graph of CONSTs under element-wise ops, reshapes and expands alone: one value
// everywhere, which tinygrad's kernel folds to a CONST before it emits code.
bool is_constant_graph(const Node* n, std::unordered_set<const Node*>& seen) {
  if (!seen.insert(n).second) return true;
  if (seen.size() > kLateFoldMaxNodes) return false;
  if (n->op == Op::Const) return true;
  const bool allowed = n->op == Op::Reshape || n->op == Op::Expand || n->op == Op::Permute ||
                       (is_elementwise(n->op) && n->op != Op::Bitcast);
  if (!allowed) return false;
  for (const NodePtr& s : n->src)
    if (!is_constant_graph(s.get(), seen)) return false;
  return true;
}

}  // namespace

std::optional<double> constant_graph_value(const Tensor& t) {
  if (!is_float(t.dtype()) || t.numel() == 0 || t.numel() > kLateFoldMaxElements) return std::nullopt;
  std::unordered_set<const Node*> seen;
  if (!is_constant_graph(t.node().get(), seen)) return std::nullopt;
  std::optional<double> v;
  try {
    for_each_chunk(t.node(), 1, [&](const ValueChunk& c) {
      if (!v && c.size > 0) v = c.f[0];
    });
  } catch (const Error&) {
    return std::nullopt;  // the kernel itself raises: leave that to realization
  }
  return v;
}

bool is_constant_graph(const Tensor& t) {
  std::unordered_set<const Node*> seen;
  return is_constant_graph(t.node().get(), seen);
}

std::optional<Tensor> collapse_kept_cast(const Tensor& a, DType to) {
  const Node* n = a.node().get();
  if (n->op != Op::Cast || !is_weak(n->dtype) || n->src[0]->op != Op::Const || is_weak(n->src[0]->dtype))
    return std::nullopt;
  const DType from = n->src[0]->dtype;
  if (!can_lossless_cast(from, n->dtype)) return std::nullopt;
  return Tensor(n->src[0]).cast(to);
}

std::optional<Tensor> weak_cast(const Scalar& v, const Tensor& a, DType to) {
  if (!is_weak(to) || is_weak(a.dtype())) return std::nullopt;
  NodePtr src = a.node();
  if (!late_fold_same_scalar(cast_scalar(v, a.dtype()), v)) {
    // A 0-d literal out of its int dtype's range keeps the Python int, which the kernel's commit
    // converts as it is: hold it in a 64-bit int, whose commit width is the same default float.
    const Scalar::Wide n = v.as_wide();
    if (v.kind == DKind::Float || v.kind == DKind::Bool) return std::nullopt;
    if (n >= INT64_MIN && n <= INT64_MAX)
      src = make_node(Op::Const, DType::Int64, a.shape(), {}, Scalar::from_int(static_cast<std::int64_t>(n)));
    else if (n >= 0 && n <= static_cast<Scalar::Wide>(UINT64_MAX))
      src = make_node(Op::Const, DType::UInt64, a.shape(), {}, Scalar::from_uint(static_cast<std::uint64_t>(n)));
    else
      return std::nullopt;
  }
  return Tensor(make_node(Op::Cast, to, a.shape(), {src}));
}

std::optional<Tensor> nan_compare(Op op, const Tensor& a, const Tensor& b) {
  if (op != Op::CmpEq && op != Op::CmpNe) return std::nullopt;
  if (!is_float(a.dtype()) || !is_float(b.dtype())) return std::nullopt;
  const std::optional<double> x = constant_graph_value(a);
  if (!x || !std::isnan(*x)) return std::nullopt;
  const std::optional<double> y = a.node() == b.node() ? x : constant_graph_value(b);
  if (!y || !std::isnan(*y)) return std::nullopt;
  return Tensor(make_node(Op::Const, DType::Bool, a.shape(), {}, Scalar::from_bool(op == Op::CmpEq)));
}

namespace {
struct WeakLiterals {
  std::mutex mutex;
  std::vector<NodePtr> nodes;  // held, so a node's address is never reused while listed
};
WeakLiterals& weak_literals() {
  static WeakLiterals w;
  return w;
}
// Literals recorded at most: a process parses a handful; beyond this the oldest are forgotten.
constexpr std::size_t kLateFoldMaxLiterals = 256;
}  // namespace

void note_weak_literal(const Tensor& t) {
  WeakLiterals& w = weak_literals();
  std::lock_guard<std::mutex> lock(w.mutex);
  if (w.nodes.size() >= kLateFoldMaxLiterals) w.nodes.erase(w.nodes.begin());
  w.nodes.push_back(t.node());
}

bool is_weak_literal(const Tensor& t) {
  WeakLiterals& w = weak_literals();
  std::lock_guard<std::mutex> lock(w.mutex);
  for (const NodePtr& n : w.nodes)
    if (n == t.node()) return true;
  return false;
}

}  // namespace tensor_inspect::late_fold
