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
std::optional<Scalar> wcf_bare_const(const Tensor& t) {
  const Node* n = t.node().get();
  while (n->op == Op::Reshape || n->op == Op::Expand) n = n->src[0].get();
  if (n->op != Op::Const) return std::nullopt;
  return std::get<Scalar>(n->arg);
}

// The exact value of a Python int or float operand, or of a 0-d weak literal tensor. Another weak
// tensor is not one: tinygrad keeps a weak operand weak only when its Tensor is a bare CONST, and
// its Tensor ops are not folded when made (a clip of a 0-d literal is a WHERE there, which
// _broadcasted casts), while ours are.
std::optional<double> wcf_weak_value(const Operand& v) {
  if (const Scalar* s = std::get_if<Scalar>(&v)) {
    if (s->kind == DKind::Bool) return std::nullopt;
    return s->as_double();
  }
  const Tensor& t = std::get<Tensor>(v);
  if (!is_weak(t.dtype()) || !late_fold::is_weak_literal(t)) return std::nullopt;
  return std::get<Scalar>(t.node()->arg).as_double();
}

struct WcfStrongValue {
  double v;
  bool late;  // a graph of constants the scheduler leaves, folded only in the kernel
};

// The value of a constant of a concrete float dtype `d`: a CONST, or a graph of constants the
// scheduler leaves (late_fold.hpp), which the kernel folds to a CONST before it folds this op
// with the weak one (symbolic_simple's fold_const_alu comes before pm_lower_index_dtype commits
// a weak CONST to the op's dtype).
std::optional<WcfStrongValue> wcf_strong_float_value(const Operand& v, DType d) {
  const Tensor* t = std::get_if<Tensor>(&v);
  if (t == nullptr || t->dtype() != d) return std::nullopt;
  const std::optional<Scalar> c = wcf_bare_const(*t);
  if (!c) {
    const std::optional<double> late = late_fold::constant_graph_value(*t);
    if (!late) return std::nullopt;
    return WcfStrongValue{*late, true};
  }
  if (c->kind != DKind::Float) return std::nullopt;
  return WcfStrongValue{c->f, false};
}

}  // namespace

std::optional<Tensor> fold_weak_const(Op op, const Operand& a, const Operand& b, const Tensor& ta, const Tensor& tb) {
  const DType d = ta.dtype();
  if (!is_float(d) || is_weak(d) || tb.dtype() != d) return std::nullopt;
  // Each side: its value and whether it is weak (a Python scalar, the 0-d literal, or a float32
  // the rewrite made weak again, late_fold::weak_valued); a weak one meets a concrete one or a
  // weak_valued one.
  struct Side {
    double v;
    bool weak;
    bool late = false;
  };
  auto side = [&](const Operand& o) -> std::optional<Side> {
    if (std::optional<double> w = wcf_weak_value(o)) return Side{*w, true};
    const Tensor* t = std::get_if<Tensor>(&o);
    if (t != nullptr && t->dtype() == d)
      if (std::optional<double> w = late_fold::weak_valued_of(*t)) return Side{*w, true};
    if (std::optional<WcfStrongValue> s = wcf_strong_float_value(o, d)) return Side{s->v, false, s->late};
    return std::nullopt;
  };
  const std::optional<Side> sa = side(a), sb = side(b);
  if (!sa || !sb || (!sa->weak && !sb->weak)) return std::nullopt;
  if (sa->weak && sb->weak && std::holds_alternative<Scalar>(a) == std::holds_alternative<Scalar>(b))
    return std::nullopt;  // two Python scalars, or two weak_valued tensors: folded elsewhere
  const bool late = sa->late || sb->late;
  const double u = sa->v, v = sb->v;
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
  // _rebuild_dtype) and fold in double until a cast or a concrete operand rounds them: a
  // weak_valued tensor of the op's dtype.
  auto pick = [&](double r, bool weak) {
    if (weak) return late_fold::weak_valued(ta.shape(), r, d);
    return value(r);
  };
  // tinygrad's a - b is a + (-b): -b of a weak CONST is weak, of a concrete 1 it is the weak -1
  // (b * -1 is "x*1 -> x" on the weak -1), of another concrete constant it is concrete.
  auto add = [&](double p, bool p_weak, double q, bool q_weak) {
    if (q == 0) return pick(p, p_weak);
    if (p == 0) return pick(q, q_weak);
    return pick(p + q, p_weak && q_weak);
  };
  const bool both = sa->weak && sb->weak;
  switch (op) {
    case Op::Add: return add(u, sa->weak, v, sb->weak);
    case Op::Sub: return add(u, sa->weak, -v, sb->weak || v == 1);
    case Op::Mul:
      if (v == 1) return pick(u, sa->weak);
      if (u == 1) return pick(v, sb->weak);
      return pick(u * v, both);
    case Op::Max: return pick(v > u ? v : u, both);  // Python's max(u, v)
    case Op::Min: return pick(v < u ? v : u, both);  // tinygrad's -max(-u, -v)
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
  if (!is_comparison(n->op)) return std::nullopt;
  // The same over a float cast of such an int (UOp._min_max bounds a CAST by its source's bounds):
  // int8 200 of a uint8, bounded [0, 127], is not `< -0.0` for tinygrad, so clip(-0.0, 0.0) keeps -56.0.
  if (is_float(n->src[0]->dtype) && (unsound_bounds(Tensor(n->src[0])) || unsound_bounds(Tensor(n->src[1])))) {
    const RewriteBounds b = rewrite_bounds(r);
    if (b.lo == b.hi) return Tensor::full(r.shape(), Scalar::from_bool(b.lo != 0), DType::Bool);
  }
  // tinygrad bounds a float cast by its dtype's range (UOp._min_max, uop/ops.py): of float compares
  // only CMPLT with a nan CONST side folds (its bounds (vmax < vmin, vmin < vmax) are both False),
  // whatever the other side is: `nan > x.tanh()` is the CONST False, and `A % A.float()` of it
  // the constant 0 % 0, nan, not x % x.
  if (is_float(n->src[0]->dtype)) {
    auto nan_const = [](const Node* s) {
      while (s->op == Op::Reshape || s->op == Op::Expand) s = s->src[0].get();
      return s->op == Op::Const && std::isnan(std::get<Scalar>(s->arg).as_double());
    };
    if (n->op == Op::CmpLt && (nan_const(n->src[0].get()) || nan_const(n->src[1].get())))
      return Tensor::full(r.shape(), Scalar::from_bool(false), DType::Bool);
    return std::nullopt;
  }
  // Over values that are not all constants it folds too, and differs from computing them only
  // where a side's bounds leave its dtype's range: tinygrad bounds an unsigned negation or a
  // product by a negative without its wrap (uint32 `x.neg() < 3` is True for every x).
  if (!late_fold::is_constant_graph(r) && !unsound_rewrite_bounds(Tensor(n->src[0])) &&
      !unsound_rewrite_bounds(Tensor(n->src[1])))
    return std::nullopt;
  const RewriteBounds b = rewrite_bounds(r);
  if (b.lo != b.hi) return std::nullopt;
  return Tensor::full(r.shape(), Scalar::from_bool(b.lo != 0), DType::Bool);
}

}  // namespace tensor_inspect::tg::detail
