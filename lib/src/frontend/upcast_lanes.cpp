// upcast_lanes.cpp — symbolic's self folds at the elements of a kernel where tinygrad's
// optimizer makes both sides one UOp (lane_keys.hpp).
//
// tinygrad/codegen/opt/heuristic.py (hand_coded_optimizations): "if there are small dims with
// lots of valid masks, upcast them": an output axis of at most 7 whose index a WHERE's condition
// (or a pad's valid) reads is upcast, leading axes first, while the upcast elements number at most
// 49; if none is, an axis of 4 at the end is ("if nothing at all is upcasted and it's easy to").
// Adjacent axes that index every load contiguously are merged first (codegen/simplify.py,
// simplify_merge_adjacent), so such a kernel is left alone here. Each upcast element then folds on
// its own: `x // x.flip(0)` of three float zeros is [nan, 1.0, nan] (floor's where masks the axis),
// over 9 elements all nan. Kernels end where the tool's scheduler ends them (realize/fusion.hpp);
// ops read by a kernel that reduces are left as they are.
#include <algorithm>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "frontend/lane_keys.hpp"
#include "internal.hpp"
#include "realize/fusion.hpp"

namespace tensor_inspect::tg {
namespace upcast_lanes_impl {

using detail::Aff;
using detail::LaneIndex;
using detail::LaneKeys;
using realize_detail::is_boundary;

constexpr std::int64_t kMaxMaskWork = std::int64_t{1} << 20;

struct Decision {
  bool full = false;
  std::vector<bool> mask;  ///< per element of the node, when not full
};

LaneIndex lane(const Shape& shape, const std::vector<std::int64_t>& fixed) {
  LaneIndex idx;
  for (std::size_t a = 0; a < shape.size(); ++a) {
    Aff f{0, std::vector<std::int64_t>(shape.size(), 0)};
    if (fixed[a] >= 0) f.c = fixed[a];
    else f.k[a] = 1;
    idx.axes.push_back(f);
  }
  return idx;
}

// The output axes tinygrad upcasts whole, or nullopt where the tool cannot tell (merged axes, an
// index it cannot follow).
std::optional<std::vector<std::size_t>> upcast_axes(const NodePtr& root) {
  const Shape& s = root->shape;
  std::vector<std::int64_t> fixed(s.size(), -1);
  std::vector<std::size_t> dims;
  for (std::size_t a = 0; a < s.size(); ++a) {
    if (s[a] == 1) fixed[a] = 0;
    else dims.push_back(a);
  }
  LaneKeys keys(s);
  keys.key(root, lane(s, fixed));
  if (keys.failed || keys.reads_reduce) return std::nullopt;
  if (keys.loads.empty()) return std::vector<std::size_t>{};  // constants alone: every element alike
  for (std::size_t i = 0; i + 1 < dims.size(); ++i) {
    const std::size_t p = dims[i], q = dims[i + 1];
    bool merges = true;
    for (const Aff& l : keys.loads) merges = merges && l.k[p] == l.k[q] * s[q];
    if (merges) return std::nullopt;
  }
  std::vector<std::size_t> up;
  std::int64_t count = 1;
  for (std::size_t a : dims)
    if (s[a] <= 7 && (keys.masked >> a & 1) && count * s[a] <= 49) {
      up.push_back(a);
      count *= s[a];
    }
  if (up.empty() && !dims.empty() && s[dims.back()] == 4) up.push_back(dims.back());
  return up;
}

// Where the kernel rooted at `root` folds its ops, by node.
void analyze(const NodePtr& root, std::unordered_map<const Node*, Decision>& out) {
  const Shape& s = root->shape;
  if (tensor_inspect::prod(s) == 0) return;
  const std::optional<std::vector<std::size_t>> up = upcast_axes(root);
  if (!up) return;
  std::vector<std::int64_t> fixed(s.size(), -1);
  for (std::size_t a = 0; a < s.size(); ++a)
    if (s[a] == 1) fixed[a] = 0;
  LaneKeys keys(s);
  std::function<void(std::size_t)> each = [&](std::size_t i) {  // every value of the upcast axes
    if (i == up->size()) {
      keys.key(root, lane(s, fixed));
      return;
    }
    for (std::int64_t v = 0; v < s[(*up)[i]]; ++v) {
      fixed[(*up)[i]] = v;
      each(i + 1);
    }
  };
  each(0);
  if (keys.failed) return;
  std::unordered_map<const Node*, std::vector<const detail::Reach*>> by_node;
  for (const detail::Reach& r : keys.reaches) by_node[r.node].push_back(&r);
  std::vector<std::size_t> loop;  // the axes left as loops
  std::int64_t loop_count = 1;
  for (std::size_t a = 0; a < s.size(); ++a)
    if (fixed[a] < 0 && std::find(up->begin(), up->end(), a) == up->end()) {
      loop.push_back(a);
      loop_count *= s[a];
    }
  for (const auto& [node, reaches] : by_node) {
    std::size_t same = 0;
    for (const detail::Reach* r : reaches) same += r->same ? 1 : 0;
    if (same == 0) continue;
    if (same == reaches.size()) {
      out[node].full = true;
      continue;
    }
    if (loop_count * static_cast<std::int64_t>(reaches.size()) > kMaxMaskWork) continue;
    std::vector<signed char> seen(detail::uz(tensor_inspect::prod(node->shape)), -1);
    bool conflict = false;
    for (const detail::Reach* r : reaches) {
      const Aff flat = detail::flat_of(r->index, node->shape);
      std::vector<std::int64_t> val(s.size(), 0);
      for (std::int64_t n = 0; n < loop_count && !conflict; ++n) {
        std::int64_t rest = n, j = flat.c;
        for (std::size_t i = loop.size(); i-- > 0;) {
          val[loop[i]] = rest % s[loop[i]];
          rest /= s[loop[i]];
        }
        for (std::size_t a = 0; a < s.size(); ++a) j += flat.k[a] * val[a];
        if (j < 0 || j >= detail::sz(seen.size())) continue;
        signed char& m = seen[detail::uz(j)];
        if (m >= 0 && m != (r->same ? 1 : 0)) conflict = true;
        m = r->same ? 1 : 0;
      }
    }
    if (conflict) continue;
    Decision d;
    for (signed char m : seen) d.mask.push_back(m == 1);
    out[node] = std::move(d);
  }
}

NodePtr folded_value(const Node& n, const NodePtr& rebuilt) {
  const std::optional<Scalar> v = detail::self_fold_value(n.op, n.dtype);
  return v ? Tensor::full(n.shape, *v, n.dtype).node() : rebuilt->src[0];
}

struct Rewriter {
  std::unordered_map<const Node*, Decision> decisions;
  std::unordered_map<const Node*, NodePtr> memo;

  NodePtr rebuild(const NodePtr& n) {
    if (auto it = memo.find(n.get()); it != memo.end()) return it->second;
    std::vector<NodePtr> src;
    bool changed = false;
    for (const NodePtr& s : n->src) {
      src.push_back(rebuild(s));
      changed = changed || src.back() != s;
    }
    NodePtr m = changed ? make_node(n->op, n->dtype, n->shape, src, n->arg) : n;
    if (auto d = decisions.find(n.get()); d != decisions.end()) {
      const NodePtr f = folded_value(*n, m);
      if (d->second.full) {
        m = f;
      } else {
        std::vector<bool> mask = d->second.mask;
        Tensor lanes = detail::produced(n->shape, DType::Bool, "upcast lanes",
                                        [mask](std::int64_t i) { return Scalar::from_bool(mask[detail::uz(i)]); });
        m = Tensor::where(lanes, Tensor(f), Tensor(m)).node();
      }
    }
    memo.emplace(n.get(), m);
    return m;
  }
};

// The nodes a kernel rooted at `r` computes in its loop.
void region(const NodePtr& r, std::unordered_set<const Node*>& nodes) {
  if (is_boundary(*r) || !nodes.insert(r.get()).second) return;
  for (const NodePtr& s : r->src) region(s, nodes);
}

}  // namespace upcast_lanes_impl
using namespace upcast_lanes_impl;

Tensor fold_upcast_self_ops(const Tensor& t) {
  // Kernels: the root's and one per input of each boundary below it.
  std::vector<std::pair<NodePtr, bool>> roots;  // (root, elementwise: analyzed)
  std::unordered_map<const Node*, std::size_t> root_at;
  auto add_root = [&](const NodePtr& r, bool elementwise) {
    auto [it, fresh] = root_at.emplace(r.get(), roots.size());
    if (fresh) roots.emplace_back(r, elementwise);
    else roots[it->second].second = roots[it->second].second && elementwise;
  };
  std::unordered_set<const Node*> visited;
  std::function<void(const NodePtr&)> walk = [&](const NodePtr& n) {
    if (!visited.insert(n.get()).second) return;
    if (is_boundary(*n))
      for (const NodePtr& s : n->src)
        if (!is_boundary(*s)) add_root(s, n->op == Op::Contiguous);
    for (const NodePtr& s : n->src) walk(s);
  };
  if (!is_boundary(*t.node())) add_root(t.node(), true);
  walk(t.node());
  std::unordered_map<const Node*, int> kernels_of;
  for (const auto& [r, elementwise] : roots) {
    std::unordered_set<const Node*> nodes;
    region(r, nodes);
    for (const Node* n : nodes) ++kernels_of[n];
  }
  Rewriter rw;
  for (const auto& [r, elementwise] : roots) {
    if (!elementwise) continue;
    std::unordered_map<const Node*, Decision> found;
    analyze(r, found);
    for (auto& [n, d] : found)
      if (kernels_of[n] == 1) rw.decisions.emplace(n, std::move(d));
  }
  if (rw.decisions.empty()) return t;
  return Tensor(rw.rebuild(t.node()));
}

}  // namespace tensor_inspect::tg
