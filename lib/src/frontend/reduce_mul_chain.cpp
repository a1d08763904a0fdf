// frontend/reduce_mul_chain.cpp — tinygrad's symbolic moves products out of a sum before it
// computes one (uop/symbolic.py, `sym`, applied to each kernel in codegen's "initial symbolic"):
//   - "move const multiply after REDUCE": (x * c).reduce(ADD) -> x.reduce(ADD) * c;
//   - reduce_mul_chain: of a MUL chain under an ADD reduce of the same dtype, every factor whose
//     value holds none of the reduce's ranges moves after it: sum(x * m) -> sum(x) * m for an m
//     broadcast along the reduced axes (a mean, a keepdim sum, a constant).
//   - the same for a MAX reduce, with the factors never negative (int_max_chain below).
// So float32 `(x * 1.7).mean()` is sum(x) * (1.7 * (1/n)), rounded three times, not n products
// and a sum of them. A float16 or bfloat16 sum reduces a cast to float32, not the product, and
// is left alone, as are ints, whose wrap gives the same value either way.
#include <vector>

#include "internal.hpp"

namespace tensor_inspect::tg::detail {

namespace {

// The factors of t's product chain, each reshaped to `shape` (tinygrad's split_uop(Ops.MUL)):
// through products under reshapes (a kernel indexes through a reshape), in the order
// split_uop yields them, left operand first.
void chain_factors(const Tensor& t, const Shape& shape, std::vector<Tensor>& out, int depth) {
  const Node* n = t.node().get();
  while (n->op == Op::Reshape) n = n->src[0].get();
  if (n->op != Op::Mul || n->src.size() != 2 || depth > 32) {
    out.push_back(t.reshape(shape));
    return;
  }
  for (const NodePtr& s : n->src) chain_factors(Tensor(s), shape, out, depth + 1);
}

// f, which holds one value along the reduced axes, at the sum's keepdim shape `kept`: what it
// broadcasts, when that is one value or already of that shape (so a Python scalar stays the
// weak CONST it is, under movement ops alone), else its first element along those axes.
Tensor at_sum_shape(const Tensor& f, const Shape& kept, const Ranges& first) {
  NodePtr m = f.node();
  while (m->op == Op::Reshape || m->op == Op::Expand) {
    if (m->shape == kept) return Tensor(m);
    const NodePtr& below = m->src[0];
    if (below->shape.size() == kept.size() && m->op == Op::Expand && below->shape == kept) return Tensor(below);
    m = below;
    if (Tensor(m).numel() == 1) return Tensor(m).reshape(Shape(kept.size(), 1)).expand(kept);
  }
  return f.shrink(first);
}

Tensor product(const std::vector<Tensor>& factors) {
  Tensor p = factors.front();
  for (std::size_t i = 1; i < factors.size(); ++i) p = Tensor::binary(Op::Mul, p, factors[i]);
  return p;
}

}  // namespace

namespace {
// reduce_mul_chain of a MAX: a factor moves out only where its bounds say it is never negative
// (`m.vmin >= 0`), so max(x * c) is max(x) * c for a constant c >= 0. Over floats that is the
// same value; over ints it is not where x * c wraps: int64 `(x * 256).max()` of 2**63 - 1 is
// (2**63 - 1) * 256, -256, not the largest wrapped product. Only constant factors are moved here.
std::optional<Tensor> int_max_chain(const Tensor& t, const std::vector<std::int64_t>& axes, bool keepdim) {
  std::vector<Tensor> factors, inside, outside;
  chain_factors(t, t.shape(), factors, 0);
  if (factors.size() < 2) return std::nullopt;
  for (const Tensor& f : factors) {
    const std::optional<Scalar> c = const_value(f);
    (c && c->kind != DKind::Float && c->as_double() >= 0 ? outside : inside).push_back(f);
  }
  if (outside.empty()) return std::nullopt;
  const Tensor rest = inside.empty() ? Tensor::full(t.shape(), Scalar::from_int(1), t.dtype()) : product(inside);
  const Tensor r = reduce_axes(rest, Op::ReduceMax, axes, keepdim);
  Tensor c = Tensor::full(r.shape(), *const_value(outside.front()), t.dtype());
  for (std::size_t i = 1; i < outside.size(); ++i)
    c = Tensor::binary(Op::Mul, c, Tensor::full(r.shape(), *const_value(outside[i]), t.dtype()));
  return Tensor::binary(Op::Mul, r, c);
}
}  // namespace

std::optional<Tensor> reduce_mul_chain(const Tensor& t, Op op, const std::vector<std::int64_t>& axes, bool keepdim) {
  if (op == Op::ReduceMax && is_int(t.dtype()) && !is_weak(t.dtype()) && t.numel() > 0)
    return int_max_chain(t, axes, keepdim);
  if (op != Op::ReduceSum || !is_float(t.dtype()) || is_weak(t.dtype()) || t.numel() == 0) return std::nullopt;
  std::vector<Tensor> factors, inside, outside;
  chain_factors(t, t.shape(), factors, 0);
  if (factors.size() < 2) return std::nullopt;  // no product
  for (const Tensor& f : factors) (uniform_along(f, axes) ? outside : inside).push_back(f);
  if (outside.empty()) return std::nullopt;
  // The moved factors hold one value along the reduced axes: their first, at the sum's shape.
  Ranges first(t.ndim());
  for (std::size_t a = 0; a < t.ndim(); ++a) first[a] = {0, t.shape()[a]};
  for (std::int64_t a : axes) first[uz(a)] = {0, 1};
  Shape kept = t.shape();
  for (std::int64_t a : axes) kept[uz(a)] = 1;
  for (Tensor& f : outside) f = at_sum_shape(f, kept, first);
  // With no factor left inside, the sum is of ones: the count, as tinygrad's reduce of a const.
  const Tensor rest = inside.empty() ? Tensor::full(t.shape(), Scalar::from_float(1.0), t.dtype()) : product(inside);
  // At the sum's own shape, so what follows regroups with it as in tinygrad's kernel.
  const Tensor r = reduce_axes(rest, op, axes, keepdim);
  return folded_binary(Op::Mul, r, product(outside).reshape(r.shape()));
}

}  // namespace tensor_inspect::tg::detail
