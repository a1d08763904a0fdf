// pad_region.cpp — element-wise ops pushed into a pad's where (see pad_region.hpp).
#include "tensor/pad_region.hpp"

#include <unordered_map>
#include <vector>

#include "tensor/const_fold.hpp"
#include "tensor/late_fold.hpp"

namespace tensor_inspect::pad_region {
namespace {

// Elements of a kernel whose pad region the tool folds on the exact constant. tinygrad's optimizer
// upcasts whole a small dim a pad's valid gates ("if there are small dims with lots of valid masks,
// upcast them", codegen/opt/heuristic.py: at most 7), so every lane's mask is a constant and the
// where folds to its CONST; in a larger kernel the mask stays a range's comparison and the where's
// value is computed, wrapped to the dtype, before the op (uint8 `x.pad(((40, 0),), value=300) // 7`
// is 6 at the pad, 42 over 4 elements). Which lanes of a larger kernel fold depends on its upcast
// and each lane's bounds (a 1-D 16 upcast by 4 folds lane 0 only): not followed.
constexpr std::int64_t kPadRegionMaxElements = 7;

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
  if (t.numel() > kPadRegionMaxElements) return std::nullopt;
  std::vector<const Node*> moves;
  const Node* n = t.node().get();
  while (is_movement(n->op) && n->op != Op::Pad) {
    moves.push_back(n);
    n = n->src[0].get();
  }
  if (n->op != Op::Where || !is_pad_mask(n->src[0].get())) return std::nullopt;
  // An fp8 pad region is left as stored: DEV=PYTHON emulates fp8 through float
  // (codegen/decomp/dtype.py), and its nan and inf pads are neither inf nor -inf there (fp8e4m3
  // `x.pad(((1, 0),), value=float('nan')).isinf()` is False), which the exact CONST does not give.
  if (n->dtype == DType::FP8E4M3 || n->dtype == DType::FP8E5M2) return std::nullopt;
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

// Each pushed where (key) with the node the op would have made without the push (its plain form),
// both held alive so that an interned pointer is never reused while it is a key.
std::unordered_map<const Node*, std::pair<NodePtr, NodePtr>>& plain_forms() {
  static std::unordered_map<const Node*, std::pair<NodePtr, NodePtr>> table;
  return table;
}

NodePtr unpushed(const NodePtr& n, std::unordered_map<const Node*, NodePtr>& memo) {
  if (auto it = memo.find(n.get()); it != memo.end()) return it->second;
  NodePtr r;
  const auto& table = plain_forms();
  if (auto it = table.find(n.get()); it != table.end()) {
    r = unpushed(it->second.second, memo);
  } else {
    std::vector<NodePtr> src;
    bool changed = false;
    for (const NodePtr& s : n->src) {
      src.push_back(unpushed(s, memo));
      changed = changed || src.back() != s;
    }
    r = changed ? make_node(n->op, n->dtype, n->shape, std::move(src), n->arg) : n;
  }
  memo.emplace(n.get(), r);
  return r;
}

}  // namespace

bool splits(const Tensor& t) { return split(t).has_value(); }

void remember(const Tensor& pushed, const NodePtr& plain) {
  if (pushed.node() != plain) plain_forms().try_emplace(pushed.node().get(), pushed.node(), plain);
}

NodePtr plain_binary(Op op, const Tensor& a, const Tensor& b) {
  if (auto folded = const_fold::binary(op, a, b)) return folded->node();
  return make_node(op, is_comparison(op) ? DType::Bool : a.dtype(), a.shape(), {a.node(), b.node()});
}

Tensor unpushed(const Tensor& t) {
  if (plain_forms().empty()) return t;
  std::unordered_map<const Node*, NodePtr> memo;
  return Tensor(unpushed(t.node(), memo));
}

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
