// lane_keys.cpp — keys of nodes at a lane of a kernel (see lane_keys.hpp). Movement ops map the
// index down to a load's flat index or a pad's constant 0, as tinygrad's rangeify makes INDEX
// UOps; x + 0 and x * 1 are seen through, as symbolic folds them first (uop/symbolic.py).
#include "frontend/lane_keys.hpp"

#include <bit>
#include <cstring>

#include "realize/fusion.hpp"

namespace tensor_inspect::tg::detail {

bool Aff::constant() const {
  for (std::int64_t v : k)
    if (v != 0) return false;
  return true;
}

std::uint64_t Aff::axes() const {
  std::uint64_t m = 0;
  for (std::size_t a = 0; a < k.size(); ++a)
    if (k[a] != 0) m |= std::uint64_t{1} << a;
  return m;
}

namespace lane_keys_impl {

enum Tag : std::int64_t { kConst, kLeaf, kElt, kPad, kPadRead };

Aff scaled(const Aff& a, std::int64_t s) {
  Aff r = a;
  r.c *= s;
  for (std::int64_t& v : r.k) v *= s;
  return r;
}

void add_to(Aff& a, const Aff& b) {
  a.c += b.c;
  for (std::size_t i = 0; i < a.k.size(); ++i) a.k[i] += b.k[i];
}

Aff constant_aff(std::int64_t c, std::size_t ndim) { return Aff{c, std::vector<std::int64_t>(ndim, 0)}; }

std::vector<std::int64_t> non_one(const Shape& s) {
  std::vector<std::int64_t> r;
  for (std::int64_t d : s)
    if (d != 1) r.push_back(d);
  return r;
}

// A constant flat index as one index per axis of `shape`.
std::vector<Aff> unflatten(std::int64_t flat, const Shape& shape, std::size_t ndim) {
  std::vector<Aff> r(shape.size(), constant_aff(0, ndim));
  for (std::size_t a = shape.size(); a-- > 0;) {
    if (shape[a] == 0) return r;
    r[a].c = flat % shape[a];
    flat /= shape[a];
  }
  return r;
}

// The index per axis, unflattening a constant flat index; nullopt where it cannot.
std::optional<std::vector<Aff>> axes_of(const LaneIndex& idx, const Shape& shape, std::size_t ndim) {
  if (!idx.flat) return idx.axes;
  if (!idx.flat->constant()) return std::nullopt;
  return unflatten(idx.flat->c, shape, ndim);
}

void push_aff(std::vector<std::int64_t>& v, const Aff& a) {
  v.push_back(a.c);
  v.insert(v.end(), a.k.begin(), a.k.end());
}

std::vector<std::int64_t> serialize(const LaneIndex& idx) {
  std::vector<std::int64_t> v{idx.flat ? 1 : 0};
  if (idx.flat) push_aff(v, *idx.flat);
  for (const Aff& a : idx.axes) push_aff(v, a);
  return v;
}

// Whether a cat (tinygrad's: pieces padded to the whole length and added) is below `n` within
// its kernel, looked for over at most `budget` nodes.
bool reads_cat(const Node* n, int budget = 64) {
  std::vector<const Node*> todo{n};
  while (!todo.empty() && budget-- > 0) {
    const Node* m = todo.back();
    todo.pop_back();
    if (realize_detail::is_boundary(*m)) continue;
    if (m->op == Op::Add)
      for (const NodePtr& s : m->src)
        if (s->op == Op::Pad || (s->op == Op::Bitcast && s->src[0]->op == Op::Pad)) return true;
    for (const NodePtr& s : m->src) todo.push_back(s.get());
  }
  return false;
}

// A producer whose element is a formula of its index alone, as tinygrad builds it from ranges
// (arange, eye, tril/triu's mask, linspace): a CONST wherever its index is. A Tensor.full or a
// literal is a buffer in tinygrad (constructors.cpp), whose loads no rewrite sees through.
bool index_only(const Node& n) {
  if (!realize_detail::is_formula(n)) return false;
  const std::string& l = std::get<std::shared_ptr<const Producer>>(n.arg)->label;
  return l == "arange" || l == "eye" || l == "tril" || l == "triu" || l == "linspace";
}

// The value of an index-only producer read at a constant index.
std::optional<Scalar> index_only_value(const Node& n, const LaneIndex& idx) {
  if (!index_only(n)) return std::nullopt;
  const Aff flat = flat_of(idx, n.shape);
  if (!flat.constant() || flat.c < 0 || flat.c >= tensor_inspect::prod(n.shape)) return std::nullopt;
  return std::get<std::shared_ptr<const Producer>>(n.arg)->element(flat.c);
}

}  // namespace lane_keys_impl
using namespace lane_keys_impl;

std::optional<Scalar> self_fold_value(Op op, DType d) {
  if (op == Op::Max || op == Op::Min) return std::nullopt;
  return cast_scalar(Scalar::from_int(op == Op::FloorDiv || op == Op::Mul ? 1 : 0), d);
}

Aff flat_of(const LaneIndex& idx, const Shape& shape) {
  if (idx.flat) return *idx.flat;
  Aff f = constant_aff(0, idx.axes.empty() ? 0 : idx.axes[0].k.size());
  std::int64_t stride = 1;
  for (std::size_t a = shape.size(); a-- > 0;) {
    add_to(f, scaled(idx.axes[a], stride));
    stride *= shape[a];
  }
  return f;
}

bool LaneKeys::always_within(const Aff& a, std::int64_t n) const {
  std::int64_t lo = a.c, hi = a.c;
  for (std::size_t i = 0; i < a.k.size(); ++i) {
    const std::int64_t span = a.k[i] * (extent_[i] - 1);
    (span < 0 ? lo : hi) += span;
  }
  return lo >= 0 && hi < n;
}

int LaneKeys::intern(std::vector<std::int64_t> k, std::uint64_t ranges, const Node* leaf) {
  auto [it, fresh] = ids_.emplace(std::move(k), static_cast<int>(ranges_.size()));
  if (fresh) {
    ranges_.push_back(ranges);
    const_value_.emplace_back();
    const_scalar_.emplace_back();
    leaf_.push_back(leaf);
  }
  return it->second;
}

int LaneKeys::const_key(DType dtype, const Scalar& s) {
  std::int64_t bits = 0;
  std::memcpy(&bits, &s.u, sizeof bits);
  const int id = intern({kConst, static_cast<std::int64_t>(dtype), static_cast<std::int64_t>(s.kind),
                         s.wide ? s.hi : 0, bits},
                        0);
  const double v = s.kind == DKind::Float ? s.f : s.kind == DKind::Bool ? (s.b ? 1.0 : 0.0)
                   : s.kind == DKind::Signed ? static_cast<double>(s.as_wide()) : static_cast<double>(s.u);
  const_value_[static_cast<std::size_t>(id)] = v;
  const_scalar_[static_cast<std::size_t>(id)] = s;
  return id;
}

int LaneKeys::key(const NodePtr& np, const LaneIndex& idx) {
  const Node* n = np.get();
  auto memo_key = std::make_pair(n, serialize(idx));
  if (auto it = memo_.find(memo_key); it != memo_.end()) return it->second;
  int r = -1;
  if (n->op == Op::Const) {
    r = const_key(n->dtype, std::get<Scalar>(n->arg));
  } else if (const std::optional<Scalar> v = index_only_value(*n, idx)) {
    r = const_key(n->dtype, *v);
  } else if (realize_detail::is_boundary(*n) || n->op == Op::Producer) {
    const Aff flat = flat_of(idx, n->shape);
    loads.push_back(flat);
    reads_reduce = reads_reduce || is_reduce(n->op) || is_scan(n->op);
    std::vector<std::int64_t> k{kLeaf, static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(n))};
    push_aff(k, flat);
    r = intern(std::move(k), flat.axes(), n);
  } else if (n->op == Op::Reshape) {
    const Shape& in = n->src[0]->shape;
    LaneIndex sub;
    const Aff flat = flat_of(idx, n->shape);
    if (flat.constant()) {
      sub.axes = unflatten(flat.c, in, ndim_);
    } else if (!idx.flat && non_one(in) == non_one(n->shape)) {
      std::size_t j = 0;
      for (std::int64_t d : in) {
        while (j < n->shape.size() && n->shape[j] == 1) ++j;
        sub.axes.push_back(d == 1 ? constant_aff(0, ndim_) : idx.axes[j++]);
      }
    } else {
      sub.flat = flat;
    }
    r = key(n->src[0], sub);
  } else if (is_movement(n->op)) {
    std::optional<std::vector<Aff>> ax = axes_of(idx, n->shape, ndim_);
    if (!ax) {
      failed = true;
    } else {
      std::vector<Aff> s = *ax;
      const Shape& in = n->src[0]->shape;
      bool in_pad = false;
      std::uint64_t pad_axes = 0;
      switch (n->op) {
        case Op::Permute: {
          const Shape& order = std::get<Shape>(n->arg);
          for (std::size_t a = 0; a < order.size(); ++a) s[static_cast<std::size_t>(order[a])] = (*ax)[a];
          break;
        }
        case Op::Expand:
          for (std::size_t a = 0; a < in.size(); ++a)
            if (in[a] == 1) s[a] = constant_aff(0, ndim_);
          break;
        case Op::Shrink: {
          const Ranges& rg = std::get<Ranges>(n->arg);
          for (std::size_t a = 0; a < rg.size(); ++a) s[a].c += rg[a].first;
          break;
        }
        case Op::Flip:
          // a flip of a flip: tinygrad's index of it is not always the plain one again (over a cat,
          // x.cat(y).flip(0).flip(0) is no longer the same load as x.cat(y)), so no lane is told apart
          if (n->src[0]->op == Op::Flip && reads_cat(n->src[0].get())) failed = true;
          for (std::int64_t a : std::get<Shape>(n->arg)) {
            const auto u = static_cast<std::size_t>(a);
            s[u] = scaled((*ax)[u], -1);
            s[u].c += in[u] - 1;
          }
          break;
        case Op::Pad: {
          const Ranges& rg = std::get<Ranges>(n->arg);
          for (std::size_t a = 0; a < rg.size(); ++a) {
            if (rg[a].first == 0 && rg[a].second == 0) continue;
            s[a].c -= rg[a].first;
            // the valid folds to True where the index stays inside over the loop (symbolic's
            // vmin/vmax of `idx >= 0 & idx < n`): a pad a shrink cuts away masks nothing
            if (always_within(s[a], in[a])) continue;
            if (!s[a].constant()) pad_axes |= s[a].axes();
            else in_pad = true;
          }
          break;
        }
        default: failed = true; break;
      }
      if (in_pad) {
        Scalar zero = is_float(n->dtype) ? Scalar::from_float(0.0) : n->dtype == DType::Bool
                      ? Scalar::from_bool(false) : Scalar::from_int(0);
        r = const_key(n->dtype, zero);
      } else if (!failed) {
        int child = key(n->src[0], LaneIndex{s, std::nullopt});
        bool varies = false;  // the source index along a padded axis changes from lane to lane
        if (n->op == Op::Pad)
          for (std::size_t a = 0; a < in.size(); ++a)
            varies = varies || (in[a] > 1 && (std::get<Ranges>(n->arg)[a].first != 0 ||
                                              std::get<Ranges>(n->arg)[a].second != 0));
        if (varies && child >= 0 && !const_value_[static_cast<std::size_t>(child)]) {
          // A load read through a pad is that pad's: cat pieces of one tensor (two pads) stay two
          // loads in tinygrad (x.cat(x) / x.cat(x).flip(0) of zeros is all nan), one pad twice
          // is one UOp (tinygrad hash-conses UOps); a source of one element along the padded axis
          // is one load at every lane (x.cat(x) // x.cat(x).flip(0) of [0.0] is [1.0, 1.0]).
          std::vector<std::int64_t> k{kPadRead, child};
          for (const auto& [lo, hi] : std::get<Ranges>(n->arg)) k.insert(k.end(), {lo, hi});
          child = intern(std::move(k), ranges_[static_cast<std::size_t>(child)],
                         leaf_[static_cast<std::size_t>(child)]);
        }
        if (pad_axes == 0 || child < 0) {
          r = child;
        } else {  // a valid that depends on loop variables: the pad stays in the UOp
          masked |= pad_axes;
          std::vector<std::int64_t> k{kPad, static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(n)), child};
          for (const Aff& a : s) push_aff(k, a);
          r = intern(std::move(k), ranges_[static_cast<std::size_t>(child)] | pad_axes);
        }
      }
    }
  } else if (is_elementwise(n->op)) {
    r = elementwise(np, idx);
  } else {
    failed = true;
  }
  memo_.emplace(std::move(memo_key), r);
  return r;
}

int LaneKeys::elementwise(const NodePtr& np, const LaneIndex& idx) {
  const Node* n = np.get();
  std::vector<int> ch;
  for (const NodePtr& s : n->src) ch.push_back(key(s, idx));
  for (int c : ch)
    if (c < 0) return -1;
  auto is_const = [&](int c, double v) {
    const std::optional<double>& cv = const_value_[static_cast<std::size_t>(c)];
    return cv && *cv == v;
  };
  if (n->op == Op::Cast && ch.size() == 1 && const_scalar_[static_cast<std::size_t>(ch[0])]) {
    // a CAST of a CONST is a CONST (uop/symbolic.py): int pad zeros made float are 0.0
    return const_key(n->dtype, cast_scalar(*const_scalar_[static_cast<std::size_t>(ch[0])], n->dtype));
  }
  if (n->op == Op::Where) {
    // a condition of the index alone that holds or fails over the whole loop is a CONST: symbolic
    // folds it by its bounds before the optimizer looks for masks ((arange(3) < 3).where(x, 0))
    if (const int c = constant_over_loop(n->src[0], idx); c >= 0) ch[0] = c;
    masked |= ranges_[static_cast<std::size_t>(ch[0])];
    if (const_value_[static_cast<std::size_t>(ch[0])]) return is_const(ch[0], 0) ? ch[2] : ch[1];
  }
  const DType d = n->src.empty() ? n->dtype : n->src[0]->dtype;
  bool foldable = false, same = ch.size() == 2 && ch[0] == ch[1];
  switch (n->op) {
    case Op::Add:  // x+0 -> x
      if (is_const(ch[1], 0)) return ch[0];
      if (is_const(ch[0], 0)) return ch[1];
      break;
    case Op::Mul:  // x*1 -> x; x*(1/x) -> 1 (not over a reduce, folding.cpp)
      if (is_const(ch[1], 1)) return ch[0];
      if (is_const(ch[0], 1)) return ch[1];
      if (is_float(d)) {
        for (std::size_t side = 0; side < 2; ++side) {
          const Node* rcp = n->src[side].get();
          // one node on both sides is left as fold_binary left it (folding.cpp decides there)
          if (rcp->op != Op::Recip || rcp->src[0] == n->src[1 - side]) continue;
          foldable = true;
          const int x = ch[1 - side], y = key(rcp->src[0], idx);
          const Node* leaf = x >= 0 ? leaf_[static_cast<std::size_t>(x)] : nullptr;
          same = x >= 0 && x == y && !(leaf && is_reduce(leaf->op)) && !const_value_[static_cast<std::size_t>(x)];
          break;
        }
      }
      break;
    case Op::Sub: foldable = d != DType::Bool && n->src[0] != n->src[1]; break;
    case Op::FloorDiv: case Op::Mod: case Op::Xor: case Op::Max: case Op::Min: case Op::CmpLt:
      foldable = n->src[0] != n->src[1];
      break;
    case Op::CmpNe: foldable = !is_float(d) && n->src[0] != n->src[1]; break;
    default: break;
  }
  // Two CONSTs fold as constants first (0 * (1/0) is nan); only an int x // x comes before
  // (folding.cpp): a float // is a floor of a product, whose CONSTs fold first.
  const bool int_div = n->op == Op::FloorDiv && !is_float(d);
  if (n->op != Op::Mul && !int_div && same && const_value_[static_cast<std::size_t>(ch[0])]) same = false;
  if (foldable) reaches.push_back(Reach{n, idx, same});
  if (foldable && same) {  // the folded op is a CONST to the ops above it (chained folds)
    const std::optional<Scalar> v = self_fold_value(n->op, n->dtype);
    return v ? const_key(n->dtype, *v) : ch[0];
  }
  if (const int c = folded_constants(n, ch); c >= 0) return c;
  std::vector<std::int64_t> k{kElt, static_cast<std::int64_t>(n->op), static_cast<std::int64_t>(n->dtype)};
  std::uint64_t ranges = 0;
  for (int c : ch) {
    k.push_back(c);
    ranges |= ranges_[static_cast<std::size_t>(c)];
  }
  return intern(std::move(k), ranges);
}

}  // namespace tensor_inspect::tg::detail
