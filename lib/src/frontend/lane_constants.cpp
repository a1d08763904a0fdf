// lane_constants.cpp — what is a CONST at a lane of an upcast kernel (lane_keys.hpp): ops whose
// operands are all CONSTs fold as uop/symbolic.py's exec_alu folds them, and a where's condition
// of the index alone that one value holds over the whole loop is that CONST (symbolic folds it by
// its bounds before the optimizer looks for masks: codegen/opt/heuristic.py).
#include <exception>

#include "frontend/lane_keys.hpp"
#include "realize/scalar_ops.hpp"

namespace tensor_inspect::tg::detail {

int LaneKeys::folded_constants(const Node* n, const std::vector<int>& ch) {
  if (n->src.empty() || n->src.size() > 2 || n->op == Op::Bitcast) return -1;
  // arithmetic and comparisons; a transcendental of a CONST is left to the self folds (tinygrad
  // gives ((x < x) == 0.5).sin() / (...).flip(0) of a bool pair as 1.0, not 0 * (1/0))
  switch (n->op) {
    case Op::Exp: case Op::Exp2: case Op::Log: case Op::Log2: case Op::Sin: case Op::Cos: case Op::Tan:
    case Op::Sqrt: case Op::Tanh: case Op::Pow:
      return -1;
    default: break;
  }
  std::vector<Scalar> v;
  for (int c : ch) {
    const std::optional<Scalar>& s = const_scalar_[static_cast<std::size_t>(c)];
    if (!s) return -1;
    v.push_back(*s);
  }
  try {  // the reference arithmetic of one element (scalar_ops.hpp), as exec_alu folds two CONSTs
    const Scalar r = v.size() == 1 ? realize_detail::apply_unary(n->op, n->dtype, v[0])
                                   : realize_detail::apply_binary(n->op, n->src[0]->dtype, v[0], v[1]);
    return const_key(n->dtype, r);
  } catch (const std::exception&) {
    return -1;
  }
}

int LaneKeys::constant_over_loop(const NodePtr& cond, const LaneIndex& idx) {
  std::uint64_t axes = idx.flat ? idx.flat->axes() : 0;
  for (const Aff& a : idx.axes) axes |= a.axes();
  if (axes == 0) return -1;  // a constant index: the key is the value already
  std::vector<std::size_t> loop;
  std::int64_t count = 1;
  for (std::size_t a = 0; a < ndim_; ++a)
    if (axes >> a & 1) {
      loop.push_back(a);
      count *= extent_[a];
      if (count > kMaxLoopValues) return -1;
    }
  // the walk below must leave no trace: it reads the condition at points of the loop, not lanes
  const std::size_t n_loads = loads.size(), n_reaches = reaches.size();
  const std::uint64_t was_masked = masked;
  const bool was_failed = failed, was_reduce = reads_reduce;
  int found = -1;
  for (std::int64_t i = 0; i < count; ++i) {
    std::vector<std::int64_t> at(ndim_, 0);
    for (std::size_t j = loop.size(), rest = static_cast<std::size_t>(i); j-- > 0;) {  // i in C order
      const auto e = static_cast<std::size_t>(extent_[loop[j]]);
      at[loop[j]] = static_cast<std::int64_t>(rest % e);
      rest /= e;
    }
    auto fix = [&](Aff a) {
      for (std::size_t x = 0; x < a.k.size(); ++x) {
        a.c += a.k[x] * at[x];
        a.k[x] = 0;
      }
      return a;
    };
    LaneIndex point;
    if (idx.flat) point.flat = fix(*idx.flat);
    for (const Aff& a : idx.axes) point.axes.push_back(fix(a));
    const int c = key(cond, point);
    const bool is_const = c >= 0 && const_scalar_[static_cast<std::size_t>(c)].has_value();
    if (!is_const || (found >= 0 && c != found) || loads.size() != n_loads) {
      found = -1;
      break;
    }
    found = c;
  }
  loads.resize(n_loads);
  reaches.resize(n_reaches);
  masked = was_masked;
  failed = was_failed;
  reads_reduce = was_reduce;
  return found;
}

}  // namespace tensor_inspect::tg::detail
