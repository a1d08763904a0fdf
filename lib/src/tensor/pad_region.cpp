// pad_region.cpp — element-wise ops pushed into a pad's where (see pad_region.hpp).
#include "tensor/pad_region.hpp"

#include <unordered_map>
#include <vector>

#include "tensor/late_fold.hpp"

namespace tensor_inspect::pad_region {
namespace {

// Nodes of a region rebuilt at most (a region is a CONST and the few ops folded over it).
constexpr std::size_t kPadRegionMaxNodes = 256;

struct Split {
  Tensor mask, inside, region;
};

// Whether `n` is movement ops over a CONST True with at least one Pad among them: False exactly
// where a pad added elements.
bool is_pad_mask(const Node* n) {
  bool padded = false;
  while (is_movement(n->op)) {
    padded = padded || n->op == Op::Pad;
    n = n->src[0].get();
  }
  if (!padded || n->op != Op::Const || n->dtype != DType::Bool) return false;
  const Scalar* v = std::get_if<Scalar>(&n->arg);
  return v != nullptr && v->as_bits() != 0;
}

Tensor moved(const Node& m, const Tensor& x) {
  switch (m.op) {
    case Op::Reshape: return x.reshape(std::get<Shape>(m.arg));
    case Op::Expand: return x.expand(std::get<Shape>(m.arg));
    case Op::Permute: return x.permute(std::get<Shape>(m.arg));
    case Op::Flip: return x.flip(std::get<Shape>(m.arg));
    default: return x.shrink(std::get<Ranges>(m.arg));
  }
}

// `n`, a graph of constants (one value everywhere), rebuilt at `shape`: its movement ops dropped,
// its CONSTs and element-wise ops made at that shape. Nullopt for anything else.
using Memo = std::unordered_map<const Node*, NodePtr>;

std::optional<NodePtr> uniform_at(const NodePtr& n, const Shape& shape, Memo& memo) {
  if (auto it = memo.find(n.get()); it != memo.end()) return it->second;
  if (memo.size() > kPadRegionMaxNodes) return std::nullopt;
  NodePtr r;
  if (n->op == Op::Const) {
    r = make_node(Op::Const, n->dtype, shape, {}, n->arg);
  } else if (n->op == Op::Reshape || n->op == Op::Expand || n->op == Op::Permute) {
    std::optional<NodePtr> s = uniform_at(n->src[0], shape, memo);
    if (!s) return std::nullopt;
    r = *s;
  } else if (is_elementwise(n->op) && n->op != Op::Bitcast) {
    std::vector<NodePtr> src;
    for (const NodePtr& s : n->src) {
      std::optional<NodePtr> u = uniform_at(s, shape, memo);
      if (!u) return std::nullopt;
      src.push_back(*u);
    }
    r = make_node(n->op, n->dtype, shape, std::move(src), n->arg);
  } else {
    return std::nullopt;
  }
  memo.emplace(n.get(), r);
  return r;
}

// `t` as the where of a pad with a value under movement ops other than a pad: the mask, the
// inside and the region, each at t's shape.
std::optional<Split> split(const Tensor& t) {
  std::vector<const Node*> moves;
  const Node* n = t.node().get();
  while (is_movement(n->op) && n->op != Op::Pad) {
    moves.push_back(n);
    n = n->src[0].get();
  }
  if (n->op != Op::Where || !is_pad_mask(n->src[0].get())) return std::nullopt;
  Memo memo;
  std::optional<NodePtr> region = uniform_at(n->src[2], t.shape(), memo);
  if (!region) return std::nullopt;
  Tensor mask(n->src[0]), inside(n->src[1]);
  for (auto it = moves.rbegin(); it != moves.rend(); ++it) {
    mask = moved(**it, mask);
    inside = moved(**it, inside);
  }
  return Split{mask, inside, Tensor(*region)};
}

// The operands of an op with a pad's where among them, each as (inside, region), or nullopt when
// none is one, two masks differ, or another operand is no graph of constants.
std::optional<std::pair<Tensor, std::vector<std::pair<Tensor, Tensor>>>> operands(const std::vector<Tensor>& ts) {
  std::vector<std::optional<Split>> splits;
  std::optional<Tensor> mask;
  for (const Tensor& t : ts) {
    splits.push_back(split(t));
    if (!splits.back()) continue;
    if (mask && mask->node() != splits.back()->mask.node()) return std::nullopt;
    mask = splits.back()->mask;
  }
  if (!mask) return std::nullopt;
  std::vector<std::pair<Tensor, Tensor>> out;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    if (splits[i]) {
      out.emplace_back(splits[i]->inside, splits[i]->region);
      continue;
    }
    if (!late_fold::is_constant_graph(ts[i])) return std::nullopt;
    out.emplace_back(ts[i], ts[i]);
  }
  return std::pair{*mask, std::move(out)};
}

}  // namespace

std::optional<Tensor> map(const Tensor& a, const Unary& f) {
  std::optional<Split> s = split(a);
  if (!s) return std::nullopt;
  return Tensor::where(s->mask, f(s->inside), f(s->region));
}

std::optional<Tensor> binary(const Tensor& a, const Tensor& b, const Binary& f) {
  auto o = operands({a, b});
  if (!o) return std::nullopt;
  const auto& v = o->second;
  return Tensor::where(o->first, f(v[0].first, v[1].first), f(v[0].second, v[1].second));
}

std::optional<Tensor> where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  auto o = operands({cond, a, b});
  if (!o) return std::nullopt;
  const auto& v = o->second;
  return Tensor::where(o->first, Tensor::where(v[0].first, v[1].first, v[2].first),
                       Tensor::where(v[0].second, v[1].second, v[2].second));
}

}  // namespace tensor_inspect::pad_region
