// A constant of a concrete float dtype combined with a Python scalar, folded as tinygrad's
// scheduler folds it. tinygrad's _broadcasted keeps a weak CONST operand weak under the
// promoted op (mixin/elementwise.py, `promote`: "keep weak CONST weak"), so
// `Tensor(-5, dtype=dtypes.float16) * (-1/ln 2)` is MUL(half)(CONST half -5, CONST weakfloat
// -1.4426950408889634), and uop/symbolic.py's fold_const_alu computes exec_alu on the two
// Python values, rounding only the result to half (dtype.const). Casting the scalar to half
// first, as a kernel's commit of the weak constant does, rounds twice. The same holds for a
// comparison: float16 0.1 < 0.1 compares the half value with the exact double.
#include <cmath>

#include "internal.hpp"
#include "tensor/late_fold.hpp"

namespace tensor_inspect::tg::detail {

namespace {

// The Scalar of a CONST under reshapes and expands (tinygrad's CONST has no view), or nullopt.
std::optional<Scalar> bare_const(const Tensor& t) {
  const Node* n = t.node().get();
  while (n->op == Op::Reshape || n->op == Op::Expand) n = n->src[0].get();
  if (n->op != Op::Const) return std::nullopt;
  return std::get<Scalar>(n->arg);
}

// The exact value of a Python int or float operand, or of a 0-d weak literal tensor. Another weak
// tensor is not one: tinygrad keeps a weak operand weak only when its Tensor is a bare CONST, and
// its Tensor ops are not folded when made (a clip of a 0-d literal is a WHERE there, which
// _broadcasted casts), while ours are.
std::optional<double> weak_value(const Operand& v) {
  if (const Scalar* s = std::get_if<Scalar>(&v)) {
    if (s->kind == DKind::Bool) return std::nullopt;
    return s->as_double();
  }
  const Tensor& t = std::get<Tensor>(v);
  if (!is_weak(t.dtype()) || !late_fold::is_weak_literal(t)) return std::nullopt;
  return std::get<Scalar>(t.node()->arg).as_double();
}

struct StrongValue {
  double v;
  bool late;  // a graph of constants the scheduler leaves, folded only in the kernel
};

// The value of a constant of a concrete float dtype `d`: a CONST, or a graph of constants the
// scheduler leaves (late_fold.hpp), which the kernel folds to a CONST before it folds this op
// with the weak one (symbolic_simple's fold_const_alu comes before pm_lower_index_dtype commits
// a weak CONST to the op's dtype).
std::optional<StrongValue> strong_float_value(const Operand& v, DType d) {
  const Tensor* t = std::get_if<Tensor>(&v);
  if (t == nullptr || t->dtype() != d) return std::nullopt;
  const std::optional<Scalar> c = bare_const(*t);
  if (!c) {
    const std::optional<double> late = late_fold::constant_graph_value(*t);
    if (!late) return std::nullopt;
    return StrongValue{*late, true};
  }
  if (c->kind != DKind::Float) return std::nullopt;
  return StrongValue{c->f, false};
}

}  // namespace

std::optional<Tensor> fold_weak_const(Op op, const Operand& a, const Operand& b, const Tensor& ta, const Tensor& tb) {
  const DType d = ta.dtype();
  if (!is_float(d) || is_weak(d) || tb.dtype() != d) return std::nullopt;
  std::optional<StrongValue> sa = strong_float_value(a, d);
  std::optional<double> wb = weak_value(b);
  bool a_weak = false;
  double u = 0, v = 0;
  bool late = false;
  if (sa && wb) {
    u = sa->v, v = *wb, late = sa->late;
  } else {
    const std::optional<double> wa = weak_value(a);
    const std::optional<StrongValue> sb = wa ? strong_float_value(b, d) : std::nullopt;
    if (!sb) return std::nullopt;
    u = *wa, v = sb->v, late = sb->late, a_weak = true;
  }
  // Over a graph the scheduler left, the result is not a CONST to the scheduler either (its
  // value-blind folds, x/x -> 1, still see through it): the exact double, cast in the kernel.
  auto value = [&](double r) {
    if (!late || d == DType::Float64) return Tensor::full(ta.shape(), Scalar::from_float(r), d);
    NodePtr exact = make_node(Op::Const, DType::Float64, ta.shape(), {}, Scalar::from_float(r));
    return Tensor(make_node(Op::Cast, d, ta.shape(), {exact}));
  };
  auto truth = [&](bool r) { return Tensor::full(ta.shape(), Scalar::from_bool(r), DType::Bool); };
  // symbolic_simple's "x+0 -> x" and "x*1 -> x" come before the fold and match either source
  // (src[1] first): a zero of either sign is dropped, so -0.0 + 0 stays -0.0. What they return
  // may be the weak CONST, and the ops above it then re-derive a weak dtype (uop/ops.py,
  // _rebuild_dtype) and fold in double until a cast or the store rounds them: kept here as a
  // weak float where the tensor is the default float32, which a weak float is at data().
  auto pick = [&](double r, bool weak) {
    if (weak && !late && d == DType::Float32) return Tensor::full(ta.shape(), Scalar::from_float(r), DType::WeakFloat);
    return value(r);
  };
  // tinygrad's a - b is a + (-b): -b of a weak CONST is weak, of a concrete 1 it is the weak -1
  // (b * -1 is "x*1 -> x" on the weak -1), of another concrete constant it is concrete.
  auto add = [&](double p, bool p_weak, double q, bool q_weak) {
    if (q == 0) return pick(p, p_weak);
    if (p == 0) return pick(q, q_weak);
    return pick(p + q, p_weak && q_weak);
  };
  switch (op) {
    case Op::Add: return add(u, a_weak, v, !a_weak);
    case Op::Sub: return add(u, a_weak, -v, !a_weak || v == 1);
    case Op::Mul:
      if (v == 1) return pick(u, a_weak);
      if (u == 1) return pick(v, !a_weak);
      return value(u * v);
    case Op::Max: return value(v > u ? v : u);  // Python's max(u, v)
    case Op::Min: return value(v < u ? v : u);  // tinygrad's -max(-u, -v)
    case Op::CmpLt: return truth(u < v);
    // ConstFloat's == (dtype.py) holds for two nans
    case Op::CmpEq: return truth(std::isnan(u) && std::isnan(v) ? true : u == v);
    case Op::CmpNe: return truth(std::isnan(u) && std::isnan(v) ? false : u != v);
    default: return std::nullopt;
  }
}

// A comparison over a graph of constants that tinygrad's scheduler left unfolded (a weak cast of a
// concrete constant, late_fold.hpp) still folds there when its bounds are one value
// (uop/symbolic.py, "ALU/variable min==max -> CONST" for CMPLT and CMPNE): `(x == -1) < 100` of a
// uint16 0-d is the CONST True that cos then sees.
std::optional<Tensor> fold_compare_bounds(const Tensor& r) {
  const Node* n = r.node().get();
  // tinygrad bounds a float cast by its dtype's range (UOp._min_max): only int and bool compares fold
  if (!is_comparison(n->op) || is_float(n->src[0]->dtype)) return std::nullopt;
  if (!late_fold::is_constant_graph(r)) return std::nullopt;
  const RewriteBounds b = rewrite_bounds(r);
  if (b.lo != b.hi) return std::nullopt;
  return Tensor::full(r.shape(), Scalar::from_bool(b.lo != 0), DType::Bool);
}

}  // namespace tensor_inspect::tg::detail
