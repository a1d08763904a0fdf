// The algebraic folds tinygrad's graph rewrite applies to an element-wise op whatever the
// values (tinygrad/uop/symbolic.py, symbolic_simple: "self folding" and "zero folding").
// They run before any kernel does, on DEV=PYTHON and on compiled backends alike, so
// `x * 0` is 0 even where x is nan or inf, `x - x` is 0 and `x / x` is 1 for every x, and
// `x + 0.0` keeps a -0.0 that IEEE addition would turn into +0.0. Our graph interns its
// nodes as tinygrad's UOps are, so "the same x" is the same node here too.

#include <cmath>

#include "internal.hpp"
#include "tensor/late_fold.hpp"

namespace tensor_inspect::tg::detail {

std::optional<Scalar> const_value(const Tensor& t) {
  const Node* n = t.node().get();
  std::vector<DType> casts;
  for (;; n = n->src[0].get()) {
    if (n->op == Op::Cast) casts.push_back(n->dtype);
    else if (n->op != Op::Reshape && n->op != Op::Expand && n->op != Op::Permute && n->op != Op::Shrink &&
             n->op != Op::Flip)
      break;
  }
  if (n->op != Op::Const) return std::nullopt;
  Scalar v = std::get<Scalar>(n->arg);
  for (auto it = casts.rbegin(); it != casts.rend(); ++it) v = cast_scalar(v, *it);
  return v;
}

namespace {

bool is_value(const Scalar& v, double want) {
  switch (v.kind) {
    case DKind::Bool: return (v.b ? 1.0 : 0.0) == want;
    case DKind::Signed: return static_cast<double>(v.i) == want;
    case DKind::Unsigned: return static_cast<double>(v.u) == want;
    case DKind::Float: return v.f == want;  // -0.0 == 0, as Python's == that the patterns use
  }
  return false;
}

Tensor filled(const Tensor& like, DType d, double v) {
  Scalar s = is_float(d) ? Scalar::from_float(v) : d == DType::Bool ? Scalar::from_bool(v != 0) : Scalar::from_int(
      static_cast<std::int64_t>(v));
  return Tensor::full(like.shape(), s, d);
}

// Whether `n` is `x.logical_not()` as tinygrad and our frontend make it: x != True.
bool is_negation_of(const Tensor& n, const Tensor& x) {
  const Node* p = n.node().get();
  if (p->op != Op::CmpNe || p->src.size() != 2 || p->src[0] != x.node()) return false;
  const std::optional<Scalar> c = const_value(Tensor(p->src[1]));
  return c && c->kind == DKind::Bool && c->b;
}

// Whether `r` is RECIPROCAL(x), both under the same reshapes.
bool reciprocal_of(const Tensor& r, const Tensor& x) {
  const Node* p = r.node().get();
  const Node* q = x.node().get();
  while (p->op == Op::Reshape && q->op == Op::Reshape && p->shape == q->shape) p = p->src[0].get(), q = q->src[0].get();
  // Not a reduction's output: tinygrad's kernel loads it from a buffer, or (a sum the tool rebuilt
  // after moving factors out, reduce_mul_chain.cpp) reduces it anew as another UOp.
  return p->op == Op::Recip && p->src[0].get() == q && !is_reduce(q->op);
}

// symbolic_simple's "(x*x2)/x2 -> x" ("can be wrong if x or x2 is 0"), its division a product
// by the reciprocal: x when `m` is x*x2 (either order) and `r` is RECIPROCAL(x2), else nullopt.
// float64 `3.3 / ((x * x) / x)` is 3.3 * (1/x); `((x / y) * 0.5) / x`, its constant moved to
// the end first (reassociate.cpp), is (1/y) * 0.5.
std::optional<Tensor> product_over(const Tensor& m, const Tensor& r) {
  const Node* p = m.node().get();
  if (p->op != Op::Mul || p->src.size() != 2) return std::nullopt;
  for (std::size_t k = 0; k < 2; ++k) {
    const Tensor x2(p->src[k]);
    if (!const_value(x2) && reciprocal_of(r, x2)) return Tensor(p->src[1 - k]);
  }
  return std::nullopt;
}

}  // namespace

namespace {
// A CONST under reshapes and expands: what tinygrad's scheduler already sees as one.
bool is_bare_const(const Tensor& t) {
  const Node* n = t.node().get();
  while (n->op == Op::Reshape || n->op == Op::Expand) n = n->src[0].get();
  return n->op == Op::Const;
}
// A weak cast of a concrete CONST under reshapes and expands (late_fold::weak_cast keeps it): a
// constant to us, not yet one to tinygrad's scheduler, whose CAST fold takes only dtypes.all.
bool is_kept_weak_cast(const Tensor& t) {
  const Node* n = t.node().get();
  while (n->op == Op::Reshape || n->op == Op::Expand) n = n->src[0].get();
  return n->op == Op::Cast && is_weak(n->dtype) && !is_weak(n->src[0]->dtype) && is_bare_const(Tensor(n->src[0]));
}
// Whether `r` is `x` cast to the dtype a weak x commits to and back to weak (a reduction of a weak
// tensor: mixin/reduce.py _reduce casts it to strong_dtype, mean casts the result back), under
// reshapes and expands that keep the shape: tinygrad's weak lowering computes x at that dtype and
// drops the consumer's weak cast (uop/weak.py lower_weak_node), so both are one UOp there and
// `x - x.mean()` of a cat of copies of x folds to 0.
bool weak_round_trip_of(const Tensor& r, const Tensor& x) {
  const Node* p = r.node().get();
  while ((p->op == Op::Reshape || p->op == Op::Expand) && p->shape == p->src[0]->shape) p = p->src[0].get();
  if (p->op != Op::Cast || !is_weak(p->dtype) || p->dtype != x.dtype()) return false;
  const Node* c = p->src[0].get();
  const DType strong = x.dtype() == DType::WeakFloat ? DType::Float32 : DType::Int32;
  return c->op == Op::Cast && c->dtype == strong && c->src[0] == x.node();
}
}  // namespace

std::optional<Tensor> fold_binary(Op op, const Tensor& a, const Tensor& b) {
  const std::optional<Scalar> ca = const_value(a), cb = const_value(b);
  const DType d = a.dtype();
  auto is = [](const std::optional<Scalar>& c, double v) { return c && is_value(*c, v); };
  const bool same = a.node() == b.node();
  if (op == Op::FloorDiv && same) return filled(a, d, 1);  // x//x -> 1 even for a constant 0 (tinygrad's order)
  // x * (1/x) -> 1: symbolic's `x / x` (its division is a product by the reciprocal), whatever x is
  if (op == Op::Mul && is_float(d) && !ca && !cb && (reciprocal_of(b, a) || reciprocal_of(a, b)))
    return filled(a, d, 1);
  if (op == Op::Mul && is_float(d) && !ca && !cb) {
    if (std::optional<Tensor> x = product_over(a, b)) return *x;
    if (std::optional<Tensor> x = product_over(b, a)) return *x;
  }
  // x + 0 -> x comes before constant folding in tinygrad's list (symbolic_simple), and its 0
  // matches -0.0 (Python's ==): over two constants it keeps a -0.0 that IEEE addition would
  // make +0.0 (sub is a + (-b): -0.0 - 0.0 is -0.0, 0 - c is -c).
  if (ca && cb && is_float(d)) {
    if ((op == Op::Add || op == Op::Sub) && is(cb, 0)) return a;
    if (op == Op::Add && is(ca, 0)) return b;
    if (op == Op::Sub && is(ca, 0)) return b.unary(Op::Neg);
  }
  // x*0 -> 0 (uop/symbolic.py) meets x before any fold where x is a weak cast of a concrete
  // constant: its fresh 0 is +0.0 whatever the signs (`-0.0 * x` of an int 0-d, `x / inf` of a
  // negative one, a product by the folded reciprocal 0.0), where IEEE's product is -0.0.
  if (op == Op::Mul && ca && cb && is_float(d)) {
    if (is(cb, 0) && is_bare_const(b) && is_kept_weak_cast(a)) return filled(a, d, 0);
    if (is(ca, 0) && is_bare_const(a) && is_kept_weak_cast(b)) return filled(a, d, 0);
  }
  if (ca && cb) return std::nullopt;  // both constant: folded by Tensor::binary (tensor/const_fold.hpp)
  const bool lowered_same = same || weak_round_trip_of(a, b) || weak_round_trip_of(b, a);
  switch (op) {
    case Op::Add:  // x+0 -> x
      if (is(cb, 0)) return a;
      if (is(ca, 0)) return b;
      break;
    case Op::Mul:  // x*1 -> x, x*0 -> 0
      if (is(cb, 1)) return a;
      if (is(ca, 1)) return b;
      if (is(ca, 0) || is(cb, 0)) {
        // symbolic.py renders nan where x is a CONST inf or nan (a weak one our graph holds as a
        // cast, late_fold::weak_valued, is one). A 0 the scheduler leaves to the kernel (a weak
        // cast of a constant) is met there after x, folded bottom-up, is a CONST too: 2.5 % False
        // is 2.5 - floor(2.5 / 0) * 0, nan. A bare 0 is met first, and x*0 is 0 whatever x folds to.
        // The product is left for the kernel to compute (inf * 0): the scheduler's folds above it
        // see no CONST, so (2.5 % (x < x)) * 0 is still 0, as in tinygrad.
        const Tensor& x = is(cb, 0) ? a : b;
        const Tensor& zero = is(cb, 0) ? b : a;
        std::optional<double> v = late_fold::weak_valued_of(x);
        if (!v && !is_bare_const(zero) && late_fold::is_constant_graph(x)) v = late_fold::constant_graph_value(x);
        if (v && is_float(d) && !std::isfinite(*v))
          return Tensor(make_node(Op::Mul, d, a.shape(), {a.node(), b.node()}));
        return filled(a, d, 0);
      }
      break;
    case Op::Sub:  // tinygrad's sub is a + (-b): x-0 -> x, 0-x -> -x, x-x -> 0
      if (d == DType::Bool) break;
      if (is(cb, 0)) return a;
      if (is(ca, 0)) return b.unary(Op::Neg);
      if (same)
        if (std::optional<Tensor> t = self_difference(a)) return t;
      if (lowered_same) return filled(a, d, 0);
      break;
    case Op::FloorDiv:  // x//x -> 1, x//1 -> x
      if (same) return filled(a, d, 1);
      if (is(cb, 1)) return a;
      break;
    case Op::Mod:  // x%x -> 0
      if (same) return filled(a, d, 0);
      break;
    case Op::And:  // x&0 -> 0: a Python int over it then folds exactly (int8 `256 | (x & 0)` is 256)
      if (is(ca, 0) || is(cb, 0)) return filled(a, d, 0);
      break;
    case Op::Or:  // x|0 -> x; x|!x -> True (symbolic's boolean algebra), either order
      if (is(cb, 0)) return a;
      if (is(ca, 0)) return b;
      if (d == DType::Bool && (is_negation_of(b, a) || is_negation_of(a, b))) return filled(a, d, 1);
      break;
    case Op::Xor:  // x^0 -> x, x^x -> 0
      if (is(cb, 0)) return a;
      if (is(ca, 0)) return b;
      if (same) return filled(a, d, 0);
      break;
    case Op::Max:
    case Op::Min:  // idempotent
      if (same) return a;
      break;
    case Op::CmpLt:  // x<x -> False
      if (same) return filled(a, DType::Bool, 0);
      break;
    case Op::CmpNe:  // x!=x -> False, for ints and bool only (isnan relies on it for floats)
      if (same && !is_float(d)) return filled(a, DType::Bool, 0);
      break;
    default: break;
  }
  return reassociate(op, a, b, ca.has_value(), cb.has_value());
}

std::optional<Tensor> float32_under_half(const Tensor& t) {
  std::vector<const Node*> moves;  // reshapes and expands above the cast, outermost first
  const Node* n = t.node().get();
  while (n->op == Op::Reshape || n->op == Op::Expand) {
    moves.push_back(n);
    n = n->src[0].get();
  }
  if (n->op != Op::Cast || n->dtype != DType::Float16 || n->src[0]->dtype != DType::Float32) return std::nullopt;
  Tensor x(n->src[0]);
  for (auto it = moves.rbegin(); it != moves.rend(); ++it)
    x = (*it)->op == Op::Reshape ? x.reshape((*it)->shape) : x.expand((*it)->shape);
  return x;
}

}  // namespace tensor_inspect::tg::detail
