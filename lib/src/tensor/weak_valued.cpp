// weak_valued.cpp — a float32 constant that tinygrad's rewrite has made weak again (see
// late_fold.hpp, weak_valued). The arithmetic is tinygrad's python_alu (uop/ops.py) on doubles.
#include <cmath>
#include <limits>

#include "tensor/late_fold.hpp"

namespace tensor_inspect::late_fold {
namespace {

constexpr double kWeakValuedInf = std::numeric_limits<double>::infinity();
constexpr double kWeakValuedNan = std::numeric_limits<double>::quiet_NaN();

// python_alu's unary ops on a double, or nullopt for an op it has none of here.
std::optional<double> weak_valued_alu1(Op op, double x) {
  switch (op) {
    case Op::Neg: return -x;
    case Op::Exp2: return std::pow(2.0, x);  // Python's 2 ** x; overflow gives inf (safe_exp2)
    case Op::Log2: return x > 0 ? std::log2(x) : x == 0 ? -kWeakValuedInf : kWeakValuedNan;
    case Op::Sqrt: return x >= 0 ? std::sqrt(x) : kWeakValuedNan;
    case Op::Recip: return x != 0 ? 1.0 / x : std::copysign(kWeakValuedInf, x);
    case Op::Sin: return std::isinf(x) ? kWeakValuedNan : std::sin(x);
    case Op::Trunc: return std::isfinite(x) ? std::trunc(x) + 0.0 : x;  // math.trunc: an int, no -0
    default: return std::nullopt;
  }
}

// The value of a CONST (under reshapes and expands) as a double, or nullopt.
std::optional<double> weak_valued_const(const Tensor& t) {
  const Node* n = t.node().get();
  while (n->op == Op::Reshape || n->op == Op::Expand) n = n->src[0].get();
  if (n->op != Op::Const) return std::nullopt;
  return std::get<Scalar>(n->arg).as_double();
}

}  // namespace

bool holds_weak_value(DType d) {
  return d == DType::Float32 || d == DType::Float16 || d == DType::BFloat16 || d == DType::FP8E4M3 ||
         d == DType::FP8E5M2;
}

Tensor weak_valued(const Shape& shape, double v, DType d) {
  if (!holds_weak_value(d)) return Tensor::full(shape, Scalar::from_float(v), d);
  NodePtr c = make_node(Op::Const, DType::WeakFloat, shape, {}, Scalar::from_float(v));
  return Tensor(make_node(Op::Cast, d, shape, {c}));
}

std::optional<double> weak_valued_of(const Tensor& t) {
  const Node* n = t.node().get();
  while (n->op == Op::Reshape || n->op == Op::Expand) n = n->src[0].get();
  if (n->op != Op::Cast || !holds_weak_value(n->dtype)) return std::nullopt;
  const Node* c = n->src[0].get();
  if (c->op != Op::Const || c->dtype != DType::WeakFloat) return std::nullopt;
  return std::get<Scalar>(c->arg).f;
}

std::optional<Tensor> weak_valued_unary(Op op, DType out, const Tensor& a) {
  const std::optional<double> v = weak_valued_of(a);
  if (!v) return std::nullopt;
  if (op == Op::Cast) {
    // a CAST over the weak CONST folds to the target at once (uop/symbolic.py)
    if (!is_float(out)) return std::nullopt;
    return Tensor::full(a.shape(), Scalar::from_float(*v), out);
  }
  const std::optional<double> r = weak_valued_alu1(op, *v);
  if (!r) return std::nullopt;
  return weak_valued(a.shape(), *r, a.dtype());
}

std::optional<Tensor> weak_valued_binary(Op op, const Tensor& a, const Tensor& b) {
  const std::optional<double> wa = weak_valued_of(a), wb = weak_valued_of(b);
  if (!wa && !wb) return std::nullopt;
  // The other side: a CONST, or a graph of constants the scheduler left, which the kernel folds
  // to a CONST first; a result over one stays a cast the kernel makes (late_fold.hpp).
  bool late = false;
  auto other = [&](const Tensor& t) -> std::optional<double> {
    if (std::optional<double> c = weak_valued_const(t)) return c;
    std::optional<double> g = constant_graph_value(t);
    late = g.has_value();
    return g;
  };
  const std::optional<double> x = wa ? wa : other(a), y = wb ? wb : other(b);
  const DType d = a.dtype();
  if (!x || !y || d != b.dtype()) return std::nullopt;
  const double u = *x, v = *y;
  auto pick = [&](double r, bool weak) {
    if (weak) return weak_valued(a.shape(), r, d);
    if (!late || d == DType::Float64) return Tensor::full(a.shape(), Scalar::from_float(r), d);
    NodePtr exact = make_node(Op::Const, DType::Float64, a.shape(), {}, Scalar::from_float(r));
    return Tensor(make_node(Op::Cast, d, a.shape(), {exact}));
  };
  auto truth = [&](bool r) { return Tensor::full(a.shape(), Scalar::from_bool(r), DType::Bool); };
  // "x+0 -> x" and "x*1 -> x" come before the fold and may hand back either source (src[1] first);
  // a - b is a + (-b), and -b of a concrete 1 is the weak -1.
  auto add = [&](double p, bool p_weak, double q, bool q_weak) {
    if (q == 0) return pick(p, p_weak);
    if (p == 0) return pick(q, q_weak);
    return pick(p + q, p_weak && q_weak);
  };
  const bool both = wa && wb;
  switch (op) {
    case Op::Add: return add(u, wa.has_value(), v, wb.has_value());
    case Op::Sub: return add(u, wa.has_value(), -v, wb.has_value() || v == 1);
    case Op::Mul:
      if (v == 1) return pick(u, wa.has_value());
      if (u == 1) return pick(v, wb.has_value());
      return pick(u * v, both);
    case Op::Max: return pick(v > u ? v : u, both);
    case Op::Min: return pick(v < u ? v : u, both);
    case Op::CmpLt: return truth(u < v);
    case Op::CmpEq: return truth(std::isnan(u) && std::isnan(v) ? true : u == v);
    case Op::CmpNe: return truth(std::isnan(u) && std::isnan(v) ? false : u != v);
    default: return std::nullopt;
  }
}

std::optional<Tensor> weak_valued_where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  const std::optional<double> wa = weak_valued_of(a), wb = weak_valued_of(b);
  if (!wa && !wb) return std::nullopt;
  const Node* n = cond.node().get();
  while (n->op == Op::Reshape || n->op == Op::Expand) n = n->src[0].get();
  if (n->op != Op::Const) return std::nullopt;
  const bool take_a = std::get<Scalar>(n->arg).as_bool();
  const std::optional<double> w = take_a ? wa : wb;
  // fold_const_where (uop/symbolic.py) commits a weak branch to the WHERE's concrete dtype
  if (w) return Tensor::full(a.shape(), Scalar::from_float(*w), a.dtype());
  return take_a ? a : b;
}

}  // namespace tensor_inspect::late_fold
