// frontend/reduce_unparented.cpp — a reduction over axes its source does not vary along, as
// tinygrad's codegen drops it (codegen/simplify.py reduce_unparented: "remove any ranges from
// a REDUCE that aren't referenced in the reduce source"): MAX and MIN are the value itself, ADD
// multiplies it by each dropped range's size in turn, MUL raises it to that size. So the sum of
// an expanded x over the expanded axis is x * n, one rounding, not n - 1 additions; a sum of an
// expanded constant folds as constants do; `x.expand((2,)).max()` of a nan constant is that
// constant, equal to itself (ConstFloat).
// The same drop makes a reduce over a cat of k copies of one tensor the reduce of one copy
// (times k for a sum): reduce_stacked_copies below.
#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "internal.hpp"
#include "tensor/const_fold.hpp"

namespace tensor_inspect::tg::detail {

namespace {

// The operands of the tree of ADDs of top's shape at top (movement.cpp builds a cat or stack as
// one), or none past 64 of them.
std::vector<const Node*> add_leaves(const Node* top) {
  std::vector<const Node*> leaves, todo{top};
  while (!todo.empty()) {
    const Node* t = todo.back();
    todo.pop_back();
    if (t->op == Op::Add && t->shape == top->shape) {
      for (const NodePtr& s : t->src) todo.push_back(s.get());
    } else {
      leaves.push_back(t);
    }
    if (leaves.size() > 64) return {};
  }
  return leaves;
}

}  // namespace
namespace {

using AxisFlags = std::vector<bool>;

class Uniformity {
 public:
  /// Whether n's value is the same at every index of each flagged axis.
  bool along(const Node* n, const AxisFlags& flags, int depth = 0) {
    bool any = false;
    for (std::size_t a = 0; a < flags.size(); ++a) any |= flags[a] && n->shape[a] > 1;
    if (!any) return true;
    if (depth > 64) return false;
    const auto key = std::make_pair(n, flags);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    const bool r = decide(n, flags, depth);
    memo_.emplace(key, r);
    return r;
  }

 private:
  bool decide(const Node* n, const AxisFlags& flags, int depth) {
    switch (n->op) {
      case Op::Const: return true;
      case Op::Expand: {  // an axis grown from size 1 repeats one value
        AxisFlags rest = flags;
        for (std::size_t a = 0; a < rest.size(); ++a) rest[a] = rest[a] && n->src[0]->shape[a] != 1;
        return along(n->src[0].get(), rest, depth + 1);
      }
      case Op::Permute: {
        const Shape& order = std::get<Shape>(n->arg);
        AxisFlags inner(flags.size(), false);
        for (std::size_t i = 0; i < order.size(); ++i) inner[static_cast<std::size_t>(order[i])] = flags[i];
        return along(n->src[0].get(), inner, depth + 1);
      }
      case Op::Pad: {  // padding along a flagged axis adds other values
        const Ranges& pads = std::get<Ranges>(n->arg);
        for (std::size_t a = 0; a < flags.size(); ++a)
          if (flags[a] && (pads[a].first != 0 || pads[a].second != 0)) return false;
        return along(n->src[0].get(), flags, depth + 1);
      }
      case Op::ScanSum:
        if (flags[static_cast<std::size_t>(std::get<Shape>(n->arg)[0])]) return false;
        return along(n->src[0].get(), flags, depth + 1);
      case Op::Add:
        if (std::optional<const Node*> copy = stacked_copy(n, flags)) return along(*copy, flags, depth + 1);
        break;
      case Op::Shrink: case Op::Flip: case Op::Contiguous:
      case Op::ReduceSum: case Op::ReduceProd: case Op::ReduceMax: case Op::ReduceMin:
        return along(n->src[0].get(), flags, depth + 1);
      default: break;
    }
    if (!is_elementwise(n->op)) return false;  // a buffer, a producer, a reshape
    for (const NodePtr& s : n->src)
      if (s->shape != n->shape || !along(s.get(), flags, depth + 1)) return false;  // a bitcast of other width
    return true;
  }

  // A cat or stack of copies of one value (Tensor.stack(x, x), x.cat(x) of a size-1 axis): an int
  // add of pads of the same node along one flagged axis, each a size-1 slice at its own place,
  // together covering it (frontend/movement.cpp adds the pads of a float through its bits, of a
  // weak float as they are). Its
  // value repeats along that axis, as tinygrad's unrolled reduce finds: each lane's gates fold
  // and the lanes are one UOp. The node repeated, or nullopt.
  static std::optional<const Node*> stacked_copy(const Node* n, const AxisFlags& flags) {
    if (is_float(n->dtype) && !is_weak(n->dtype)) return std::nullopt;
    const std::vector<const Node*> leaves = add_leaves(n);
    if (leaves.empty()) return std::nullopt;
    const Node* source = leaves.front()->op == Op::Pad ? leaves.front()->src[0].get() : nullptr;
    if (source == nullptr) return std::nullopt;
    std::optional<std::size_t> axis;
    std::vector<bool> placed;
    for (const Node* leaf : leaves) {
      if (leaf->op != Op::Pad || leaf->src[0].get() != source) return std::nullopt;
      const Ranges& pads = std::get<Ranges>(leaf->arg);
      for (std::size_t a = 0; a < pads.size(); ++a) {
        if (pads[a].first == 0 && pads[a].second == 0) continue;
        if (!flags[a] || source->shape[a] != 1 || (axis && *axis != a)) return std::nullopt;
        axis = a;
      }
      if (!axis) return std::nullopt;
      if (placed.empty()) placed.assign(static_cast<std::size_t>(n->shape[*axis]), false);
      const auto at = static_cast<std::size_t>(pads[*axis].first);
      if (at >= placed.size() || placed[at]) return std::nullopt;
      placed[at] = true;
    }
    if (std::find(placed.begin(), placed.end(), false) != placed.end()) return std::nullopt;
    return source;
  }

  std::map<std::pair<const Node*, AxisFlags>, bool> memo_;
};

// A cat of k copies of one node along `axis` (x.cat(x), x.sin().cat(x.sin())): tinygrad's cat of
// pieces of one length is stack(...).flatten(dim, dim+1) (mixin/op.py cat), its STACK a WHERE on
// the leading range (schedule/indexing.py convert_stack_to_where); the range of the flattened
// axis, used as r // n and r % n, splits into (k, n) (codegen/simplify.py pm_split_ranges), and the
// k range, no longer referenced once the copies are one UOp, is dropped by reduce_unparented.
// The node with that axis cut to one copy (the graph below it rebuilt over the copy), or nullptr.
class FirstCopy {
 public:
  explicit FirstCopy(std::int64_t len) : len_(len) {}

  NodePtr of(const NodePtr& n, std::size_t axis, int depth = 0) {
    if (depth > 64) return nullptr;
    const auto key = std::make_pair(n.get(), axis);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    NodePtr r = rebuild(n, axis, depth);
    memo_.emplace(key, r);
    return r;
  }

 private:
  NodePtr rebuild(const NodePtr& n, std::size_t axis, int depth) {
    if (n->shape[axis] == 1) return n;  // broadcast along the axis: every copy alike
    Shape cut = n->shape;
    cut[axis] = len_;
    if (NodePtr piece = cat_piece(n, axis)) return piece;
    switch (n->op) {
      case Op::Const: return make_node(Op::Const, n->dtype, cut, {}, n->arg);
      case Op::Expand: {
        NodePtr s = n->src[0]->shape[axis] == 1 ? n->src[0] : of(n->src[0], axis, depth + 1);
        return s ? make_node(Op::Expand, n->dtype, cut, {s}, cut) : nullptr;
      }
      case Op::Permute: {
        NodePtr s = of(n->src[0], uz(std::get<Shape>(n->arg)[axis]), depth + 1);
        return s ? make_node(Op::Permute, n->dtype, cut, {s}, n->arg) : nullptr;
      }
      case Op::Reshape: {  // only one that adds or drops axes of size 1
        Shape a, b;
        std::size_t before = 0;
        for (std::size_t i = 0; i < n->shape.size(); ++i)
          if (n->shape[i] != 1) { a.push_back(n->shape[i]); before += i < axis; }
        std::optional<std::size_t> inner;
        for (std::size_t i = 0; i < n->src[0]->shape.size(); ++i)
          if (n->src[0]->shape[i] != 1) {
            if (b.size() == before) inner = i;
            b.push_back(n->src[0]->shape[i]);
          }
        if (a != b || !inner) return nullptr;
        NodePtr s = of(n->src[0], *inner, depth + 1);
        return s ? make_node(Op::Reshape, n->dtype, cut, {s}, cut) : nullptr;
      }
      default: break;
    }
    if (!is_elementwise(n->op)) return nullptr;
    std::vector<NodePtr> src;
    for (const NodePtr& s : n->src) {
      if (s->shape != n->shape) return nullptr;  // a bitcast of other width
      NodePtr c = of(s, axis, depth + 1);
      if (!c) return nullptr;
      src.push_back(std::move(c));
    }
    return make_node(n->op, n->dtype, cut, std::move(src), n->arg);
  }

  // The node p when n is frontend/movement.cpp's cat of copies of p: an add of pads of p, each
  // one piece long at its own place along the axis and covering it (a float's through its bits).
  NodePtr cat_piece(const NodePtr& n, std::size_t axis) const {
    const Node* top = n.get();
    const bool bits = n->op == Op::Bitcast;
    if (bits) top = n->src[0].get();
    else if (is_float(n->dtype)) return nullptr;  // a float's pads added by hand, not a cat
    const std::vector<const Node*> leaves = add_leaves(top);
    if (leaves.empty()) return nullptr;
    if (leaves.size() < 2 || leaves.front()->op != Op::Pad) return nullptr;
    const NodePtr& source = leaves.front()->src[0];
    if (source->shape[axis] != len_ || top->shape[axis] % len_ != 0) return nullptr;
    std::vector<bool> placed(static_cast<std::size_t>(top->shape[axis] / len_), false);
    for (const Node* leaf : leaves) {
      if (leaf->op != Op::Pad || leaf->src[0] != source) return nullptr;
      const Ranges& pads = std::get<Ranges>(leaf->arg);
      for (std::size_t a = 0; a < pads.size(); ++a)
        if (a != axis && (pads[a].first != 0 || pads[a].second != 0)) return nullptr;
      const std::int64_t at = pads[axis].first;
      if (at % len_ != 0 || placed[static_cast<std::size_t>(at / len_)]) return nullptr;
      placed[static_cast<std::size_t>(at / len_)] = true;
    }
    if (std::find(placed.begin(), placed.end(), false) != placed.end()) return nullptr;
    if (!bits) return source;
    if (source->op != Op::Bitcast || source->src[0]->dtype != n->dtype) return nullptr;
    return source->src[0];
  }

  std::int64_t len_;
  std::map<std::pair<const Node*, std::size_t>, NodePtr> memo_;
};

// The piece length of a cat of copies along `axis` somewhere below n (elementwise ops, expands),
// or 0: the first cat found decides it.
std::int64_t copy_length(const Node* n, std::size_t axis, int depth = 0) {
  if (depth > 64 || n->shape[axis] == 1) return 0;
  const Node* top = n->op == Op::Bitcast ? n->src[0].get() : n;
  if (top->op == Op::Add && top->src[0]->op == Op::Pad) return top->src[0]->src[0]->shape[axis];
  if (top->op == Op::Add && top->src[0]->op == Op::Add && top->src[0]->src[0]->op == Op::Pad)
    return top->src[0]->src[0]->src[0]->shape[axis];
  if (n->op == Op::Expand) return copy_length(n->src[0].get(), axis, depth + 1);
  if (n->op == Op::Permute)
    return copy_length(n->src[0].get(), uz(std::get<Shape>(n->arg)[axis]), depth + 1);
  if (n->op == Op::Reshape) {  // the source's axis of the same length, when only ones move
    for (std::size_t i = 0; i < n->src[0]->shape.size(); ++i)
      if (n->src[0]->shape[i] == n->shape[axis])
        if (std::int64_t l = copy_length(n->src[0].get(), i, depth + 1)) return l;
    return 0;
  }
  if (!is_elementwise(n->op)) return 0;
  for (const NodePtr& s : n->src)
    if (s->shape == n->shape)
      if (std::int64_t l = copy_length(s.get(), axis, depth + 1)) return l;
  return 0;
}

}  // namespace

bool uniform_along(const Tensor& t, const std::vector<std::int64_t>& axes) {
  AxisFlags flags(t.ndim(), false);
  for (std::int64_t a : axes) flags[uz(a)] = true;
  Uniformity u;
  return u.along(t.node().get(), flags);
}

std::optional<Tensor> reduce_unparented(const Tensor& t, Op op, const std::vector<std::int64_t>& axes) {
  if (t.numel() == 0) return std::nullopt;
  AxisFlags flags(t.ndim(), false);
  for (std::int64_t a : axes) flags[uz(a)] = t.shape()[uz(a)] > 1;
  if (std::find(flags.begin(), flags.end(), true) == flags.end()) return std::nullopt;  // Tensor::reduce's reshape
  Uniformity u;
  if (!u.along(t.node().get(), flags)) return std::nullopt;
  Ranges first(t.ndim());
  for (std::size_t a = 0; a < t.ndim(); ++a) first[a] = {0, flags[a] ? 1 : t.shape()[a]};
  Shape kept = t.shape();  // the reduce's own shape: 1 on every reduced axis
  for (std::int64_t a : axes) kept[uz(a)] = 1;
  Tensor r = t.shrink(first).reshape(kept);
  // A bool product is an AND: the value itself, as True ** n folds to True in a bool CONST.
  if (op == Op::ReduceMax || op == Op::ReduceMin || (op == Op::ReduceProd && r.dtype() == DType::Bool)) return r;
  for (std::int64_t a : axes) {
    const std::int64_t n = t.shape()[uz(a)];
    if (n == 1) continue;
    if (op == Op::ReduceSum) {
      if (t.dtype() == DType::Bool) return std::nullopt;
      r = Tensor::binary(Op::Mul, r, Tensor::full(r.shape(), Scalar::from_int(n), r.dtype()));
    } else if (op == Op::ReduceProd) {
      // x ** n lowers through simplify_pow in a float kernel; an int power only folds exactly
      // over constants (tinygrad's int lowering of POW is not the exact power).
      if (!is_float(r.dtype()) && !const_fold::constant_of(r)) return std::nullopt;
      r = pow(r, Scalar::from_int(n));
    } else {
      return std::nullopt;
    }
  }
  return r;
}

std::optional<Tensor> reduce_stacked_copies(const Tensor& t, Op op, const std::vector<std::int64_t>& axes,
                                            bool keepdim) {
  if (t.numel() == 0 || (op != Op::ReduceSum && op != Op::ReduceMax && op != Op::ReduceMin)) return std::nullopt;
  if (op == Op::ReduceSum && t.dtype() == DType::Bool) return std::nullopt;
  for (std::int64_t a : axes) {
    const std::size_t ax = uz(a);
    const std::int64_t len = copy_length(t.node().get(), ax);
    if (len <= 0 || len >= t.shape()[ax] || t.shape()[ax] % len != 0) continue;
    FirstCopy f(len);
    NodePtr one = f.of(t.node(), ax);
    if (!one) continue;
    // codegen/simplify.py reduce_unparented: MAX is the reduce of one copy, ADD that times k.
    Tensor r = reduce_axes(Tensor(one), op, axes, true);
    if (op == Op::ReduceSum)
      r = Tensor::binary(Op::Mul, r, Tensor::full(r.shape(), Scalar::from_int(t.shape()[ax] / len), r.dtype()));
    if (keepdim) return r;
    Shape s;
    for (std::size_t i = 0; i < t.ndim(); ++i)
      if (!std::binary_search(axes.begin(), axes.end(), sz(i))) s.push_back(t.shape()[i]);
    return r.reshape(s);
  }
  return std::nullopt;
}

}  // namespace tensor_inspect::tg::detail
