// tinygrad's symbolic (uop/symbolic.py) regroups float adds and products around constants,
// which changes how the result rounds:
//   - "two stage ALU folding": (x op c1) op c2 -> x op (c1 op c2), so `(x + 0.1) + 0.2` is
//     x + 0.3 in one rounding and `(x * 2) / 2` is x * 1, which is x;
//   - "move add/mul consts to end": (x op c1) op y -> (x op y) op c1 for a y that is no constant;
//   - "combine terms": x*c0 + x*c1 -> x*(c0 + c1), x + x*c -> x*(c + 1), x + x -> x*2.
// The patterns match either order of a commutative op's operands. tinygrad has no subtraction
// in its graph: `a - b` is `a + b*-1` (mixin/elementwise.py, sub), a constant b negated at once,
// and `-(x + c)` is `-x + -c` ("-(x+c) -> -x + -c"), so subtractions regroup as the sums they
// are: `(x - 3) + 0.1` is x + -2.9 and `x - (x - -2.0)` is -2.0. Ints give the same value
// either way (their wrap is exact); only float dtypes are regrouped.
// A constant these rules make from a weak one and an op ("-(x+c) -> -x + -c", "x*c0 + x*c1 ->
// x*(c0+c1)", "x + x*c -> x*(c+1)", "1/(x*c) -> (1/x)*(1/c)") is built with UOp's arithmetic
// (mixin/elementwise.py, _broadcasted), which keeps a weak operand weak only when it is a bare
// CONST: -c, c0+c1, 1/c are still ops of CONSTs there, so they are cast to the op's dtype and
// fold rounded to it, and every later fold with them rounds to it too: bfloat16
// `2.5 - (x + 3.4)` is -x + (2.5 - 3.40625), not -x + bfloat16(-0.9) (committed()).
#include <unordered_set>

#include "internal.hpp"
#include "tensor/late_fold.hpp"

namespace tensor_inspect::tg::detail {

namespace {

// Whether `t` is computed from a reduction (its value comes out of another kernel in
// tinygrad's schedule); true as well past a few thousand nodes, where the walk gives up.
bool after_reduce(const Tensor& t) {
  std::vector<const Node*> todo{t.node().get()};
  std::unordered_set<const Node*> seen;
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    if (!seen.insert(n).second) continue;
    if (is_reduce(n->op) || is_scan(n->op) || seen.size() > 4096) return true;
    if (n->op == Op::Pad) continue;  // a cat's piece: a reduction under it is realized and loaded
    for (const auto& s : n->src) todo.push_back(s.get());
  }
  return false;
}

// `c`, a constant, as the concrete CONST of its dtype tinygrad casts it to: a weak double rounded.
Tensor committed(const Tensor& c) {
  if (std::optional<double> v = late_fold::weak_valued_of(c))
    return Tensor::full(c.shape(), cast_scalar(Scalar::from_float(*v), c.dtype()), c.dtype());
  return c;
}

// `t` as `sign * x + c` (c a constant) when it is an add or a subtraction of a constant and a
// value, under reshapes (tinygrad's kernel indexes through them: the mean's `sum * (1/n)` sits
// over a reshape of the sum); x and c are reshaped to t's shape. For a product, `x * c`.
struct Split {
  Tensor x, c;
  bool negative = false;
};
std::optional<Split> split(const Tensor& t, bool sums) {
  const Node* n = t.node().get();
  while (n->op == Op::Reshape) n = n->src[0].get();
  if (sums && n->op == Op::Neg && n->src.size() == 1) {  // -(±x + c) -> ∓x + -c, -c committed
    std::optional<Split> s = split(Tensor(n->src[0]).reshape(t.shape()), true);
    if (!s) return std::nullopt;
    return Split{s->x, committed(s->c).unary(Op::Neg), !s->negative};
  }
  if (n->src.size() != 2 || (sums ? n->op != Op::Add && n->op != Op::Sub : n->op != Op::Mul)) return std::nullopt;
  Tensor l = Tensor(n->src[0]).reshape(t.shape()), r = Tensor(n->src[1]).reshape(t.shape());
  const bool lc = const_value(l).has_value(), rc = const_value(r).has_value();
  if (lc == rc) return std::nullopt;
  // What follows a reduction is computed in its kernel and loaded by the consumer's, where
  // symbolic sees a load, not the op: `1.7 * x.mean(axis=-1, keepdim=True)` stays (s/3)*1.7.
  // A whole reduction to a 0-d value stays in its consumer's kernel (as in realize/mulacc.cpp).
  // Only the value side can hold one; the walk comes after the cheap test above.
  if (t.ndim() > 0 && after_reduce(rc ? l : r)) return std::nullopt;
  if (n->op == Op::Sub) {
    if (rc) return Split{l, r.unary(Op::Neg), false};  // x - c = x + (-c)
    return Split{r, l, true};                          // c - x = -x + c
  }
  return rc ? Split{l, r, false} : Split{r, l, false};
}

// sign * x + c rebuilt: x + c, or c - x.
Tensor rebuild(const Tensor& x, bool negative, const Tensor& c) {
  return negative ? folded_binary(Op::Sub, c, x) : folded_binary(Op::Add, x, c);
}

std::optional<Tensor> regroup_products(const Tensor& a, const Tensor& b, bool a_const, bool b_const) {
  if (a_const != b_const) {  // (x * c1) * c2 -> x * (c1 * c2)
    const Tensor& other = a_const ? b : a;
    const Tensor& c2 = a_const ? a : b;
    if (auto s = split(other, false)) return folded_binary(Op::Mul, s->x, Tensor::binary(Op::Mul, s->c, c2));
    return std::nullopt;
  }
  if (a_const) return std::nullopt;
  for (int side = 0; side < 2; ++side)  // (x * c1) * y -> (x * y) * c1
    if (auto s = split(side == 0 ? a : b, false))
      return folded_binary(Op::Mul, folded_binary(Op::Mul, s->x, side == 0 ? b : a), s->c);
  return std::nullopt;
}

// `t` as x * c (c a constant; 1 when t is no product by a constant), under reshapes.
std::pair<Tensor, std::optional<Tensor>> term(const Tensor& t) {
  if (auto s = split(t, false)) return {s->x, s->c};
  return {t, std::nullopt};
}

// "combine terms": x*c0 + x*c1 -> x*(c0 + c1), x + x*c -> x*(c + 1), x + x -> x*2; a subtraction
// is the sum with the second term negated (x*c0 - x*c1 is x*(c0 - c1)), so its rounding is the
// product's alone: bfloat16 `(x * 0.9) - x` is x * -0.1.
std::optional<Tensor> combine_terms(Op op, const Tensor& a, const Tensor& b) {
  const auto [xa, ca] = term(a);
  const auto [xb, cb] = term(b);
  if (xa.node() != xb.node() || (!ca && !cb && op == Op::Sub)) return std::nullopt;
  const Tensor one = Tensor::full(a.shape(), Scalar::from_float(1.0), a.dtype());
  return folded_binary(Op::Mul, xa, committed(Tensor::binary(op, ca.value_or(one), cb.value_or(one))));
}

std::optional<Tensor> regroup_sums(Op op, const Tensor& a, const Tensor& b, bool a_const, bool b_const) {
  const bool sub = op == Op::Sub;
  if (!a_const && !b_const)
    if (auto t = combine_terms(op, a, b)) return t;
  if (a_const != b_const) {
    const Tensor& k = a_const ? a : b;
    auto s = split(a_const ? b : a, true);
    if (!s) return std::nullopt;
    if (!sub) return rebuild(s->x, s->negative, Tensor::binary(Op::Add, s->c, k));   // (±x + c) + k
    if (b_const) return rebuild(s->x, s->negative, Tensor::binary(Op::Sub, s->c, k)); // (±x + c) - k
    return rebuild(s->x, !s->negative, Tensor::binary(Op::Sub, k, committed(s->c)));  // k - (±x + c)
  }
  if (a_const) return std::nullopt;
  // y not a constant: the constant moves to the end
  if (auto s = split(a, true)) {
    // (±x + c) + y -> (±x + y) + c; (±x + c) - y -> (±x - y) + c, -x - y being -(x + y)
    Tensor xy = !sub          ? (s->negative ? folded_binary(Op::Sub, b, s->x) : folded_binary(Op::Add, s->x, b))
                : s->negative ? folded_binary(Op::Add, s->x, b).unary(Op::Neg)
                              : folded_binary(Op::Sub, s->x, b);
    return folded_binary(Op::Add, xy, s->c);
  }
  if (auto s = split(b, true)) {
    // y + (±x + c) -> (y ± x) + c; y - (±x + c) -> (y ∓ x) - c
    Tensor yx = folded_binary((s->negative != sub) ? Op::Sub : Op::Add, a, s->x);
    return sub ? folded_binary(Op::Sub, yx, committed(s->c)) : folded_binary(Op::Add, yx, s->c);
  }
  return std::nullopt;
}

}  // namespace

// tinygrad's symbolic (`sym`, uop/symbolic.py) rewrites the reciprocal of a product within a kernel:
// 1/(x*x) -> (1/x)*(1/x), 1/(x*x*x) -> (1/x)*(1/x)*(1/x), 1/(x*c) -> (1/x)*(1/c), each 1/x again so.
namespace {
// Of a MUL m of two sources: false when it is x*x, true when (x*x)*x, nullopt otherwise; x is its
// second source. "1/(x*x)" and "1/(x*x*x)" make its reciprocal a product of 1/x (reciprocal_power).
std::optional<bool> repeated_factor(const Node* m) {
  const Node* ln = m->src[0].get();
  if (ln->op == Op::Mul && ln->src.size() == 2 && ln->src[0] == ln->src[1] && ln->src[1] == m->src[1]) return true;
  if (m->src[0] == m->src[1]) return false;
  return std::nullopt;
}

// (1/x)*(1/x), and *(1/x) again for a cube, of q = 1/x.
Tensor reciprocal_power(const Tensor& q, bool cube) {
  const Tensor qq = folded_binary(Op::Mul, q, q);
  return cube ? folded_binary(Op::Mul, qq, q) : qq;
}

// 1/b of an int product b as tinygrad rewrites it: its RECIPROCAL takes the int op itself, of the
// float's dtype (uop/ops.py), so "1/(x*x)" and "1/(x*c)" (uop/symbolic.py) match it and compute in
// the float, past the int's wrap: uint8 `x.neg().reciprocal()` (x * -1) of 255 is -1/255, not 1/1.
// An explicit `.float()` first is a CAST those rules do not see through. Nullopt where none matches.
std::optional<Tensor> int_product_reciprocal(const Tensor& b, DType f, int depth) {
  const Node* m = b.node().get();
  while (m->op == Op::Reshape) m = m->src[0].get();
  auto as_int = [&](const NodePtr& p) { return Tensor(p).reshape(b.shape()); };
  auto as_float = [&](const NodePtr& p) { return cast_to(as_int(p), f); };
  // an int negation is x * -1 in tinygrad (mixin/elementwise.py, neg): (1/x) * (1/-1)
  if (m->op == Op::Neg) return int_reciprocal(as_int(m->src[0]), f, depth + 1).unary(Op::Neg);
  if (m->op != Op::Mul || m->src.size() != 2) return std::nullopt;
  if (const std::optional<bool> cube = repeated_factor(m)) {
    if (b.ndim() > 0 && after_reduce(Tensor(m->src[1]))) return std::nullopt;
    return reciprocal_power(int_reciprocal(as_int(m->src[1]), f, depth + 1), *cube);
  }
  const bool lc = const_value(Tensor(m->src[0])).has_value(), rc = const_value(Tensor(m->src[1])).has_value();
  if (lc == rc) return std::nullopt;
  const NodePtr& x = rc ? m->src[0] : m->src[1];
  if (b.ndim() > 0 && after_reduce(Tensor(x))) return std::nullopt;
  return folded_binary(Op::Mul, int_reciprocal(as_int(x), f, depth + 1),
                       as_float(rc ? m->src[1] : m->src[0]).unary(Op::Recip));
}
}  // namespace

Tensor int_reciprocal(const Tensor& b, DType f, int depth) {
  if (depth <= 16 && is_int(b.dtype()) && !is_weak(b.dtype()))
    if (auto r = int_product_reciprocal(b, f, depth)) return *r;
  return rewritten_reciprocal(cast_to(b, f), depth);
}

Tensor rewritten_reciprocal(const Tensor& d, int depth) {
  const Node* n = d.node().get();
  while (n->op == Op::Reshape) n = n->src[0].get();
  if (!is_float(d.dtype()) || depth > 16 || n->op != Op::Mul || n->src.size() != 2) return d.unary(Op::Recip);
  const Tensor r = Tensor(n->src[1]).reshape(d.shape());
  if (const std::optional<bool> cube = repeated_factor(n); cube && !(d.ndim() > 0 && after_reduce(r)))
    return reciprocal_power(rewritten_reciprocal(r, depth + 1), *cube);
  if (auto s = split(d, false))
    return folded_binary(Op::Mul, rewritten_reciprocal(s->x, depth + 1), committed(s->c.unary(Op::Recip)));
  return d.unary(Op::Recip);
}

std::optional<Tensor> self_difference(const Tensor& x) {
  if (!is_float(x.dtype()) || !split(x, false)) return std::nullopt;
  return combine_terms(Op::Sub, x, x);
}

std::optional<Tensor> reassociate(Op op, const Tensor& a, const Tensor& b, bool a_const, bool b_const) {
  if (!is_float(a.dtype())) return std::nullopt;
  if (op == Op::Mul) return regroup_products(a, b, a_const, b_const);
  if (op == Op::Add || op == Op::Sub) return regroup_sums(op, a, b, a_const, b_const);
  return std::nullopt;
}

}  // namespace tensor_inspect::tg::detail
