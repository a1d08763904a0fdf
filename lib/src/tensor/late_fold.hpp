// late_fold.hpp — what tinygrad folds only inside the kernel of a graph of constants (internal).
//
// tinygrad folds constants twice. The scheduler's `symbolic` pass (schedule/rangeify.py,
// get_kernel_graph) folds every ALU op over CONSTs at the op's dtype (uop/symbolic.py,
// fold_const_alu: a weak float stays a Python double, a float32 is rounded), and a CAST over a
// CONST only to a concrete dtype (`UPat(Ops.CAST, dtypes.all, ...)`: dtypes.all holds no weak
// dtype). A weak cast of a concrete constant — `Tensor(-1, dtype=dtypes.int16).tanh()` starts
// with `2.0 * x`, `Tensor(0.1).cos()` ends with `.cast(weakfloat)` — stays, and so does every
// weak op over it. The kernel then commits that weak graph to a width (uop/weak.py,
// cast_weak_srcs and lower_weak_node: the default float32 unless a float64 consumer asks
// for more) and folds it again, op by op at that width, before any transcendental is
// decomposed (codegen/__init__.py: "lower all index dtypes" and "final symbolic" run before
// "late decompositions"). So `Tensor(0.1).tan()` is float32(float32(sin 0.1) * float32(1 /
// cos)), not the double quotient rounded once.
//
// Our executor computes a weak graph the same way (float32 ops, DEV=PYTHON's per-op rounding),
// so the tensor-level fold leaves such a cast alone and the kernel computes it. What the
// kernel's fold does beyond IEEE arithmetic is redone here: its CONSTs compare as ConstFloat
// does (dtype.py), two nans equal.
#pragma once

#include <optional>

#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect::late_fold {

/// `CAST(to)` of `a`, a constant of value `v`, left unfolded as tinygrad's scheduler leaves it
/// when `to` is weak and a's dtype is not; nullopt otherwise (fold it). An int constant outside
/// its dtype's range (a 0-d literal keeps its unwrapped Python int) is cast from a 64-bit int
/// constant of the same value instead, so the kernel does not wrap it.
std::optional<Tensor> weak_cast(const Scalar& v, const Tensor& a, DType to);

/// `CAST(to)` of `a`, a weak cast weak_cast kept, as tinygrad's symbolic collapses two casts
/// (`x.cast(a).cast(b) -> x.cast(b)` when can_lossless_cast(x.dtype, a), dtype.py: a bool, or an
/// int to the weak int): the cast of the constant itself, folded; nullopt for anything else.
std::optional<Tensor> collapse_kept_cast(const Tensor& a, DType to);

/// Whether `t` is a graph of CONSTs under casts, element-wise ops, reshapes, expands and
/// permutes alone (no buffer, pad, shrink, reduction or bitcast; a few hundred nodes at most):
/// one value everywhere, which tinygrad's kernel folds to a CONST.
bool is_constant_graph(const Tensor& t);

/// The one value of `t`, a float graph of constants (is_constant_graph) of at most a few
/// thousand elements, as the executor computes it, which is the CONST tinygrad's kernel folds it
/// to; nullopt for anything else or where the kernel raises.
std::optional<double> constant_graph_value(const Tensor& t);

/// CMPEQ/CMPNE of two graphs of constants alone (casts, element-wise ops and reshapes or
/// expands over CONSTs, so one value each) that are both nan: tinygrad's kernel folds each
/// to a CONST first, and ConstFloat's == holds for two nans, so == is True and != is False
/// (`(x - nan).isfinite()` of an int16 0-d is True). Nullopt for anything else, including
/// graphs of more than a few thousand elements. Evaluates both sides with the executor.
std::optional<Tensor> nan_compare(Op op, const Tensor& a, const Tensor& b);

/// Records `t`, a 0-d literal of a weak dtype (`Tensor(0.1)`), as the bare weak CONST tinygrad's
/// Tensor holds: unlike a weak constant our Tensor ops folded (tinygrad folds none when a Tensor
/// is made), _broadcasted keeps it weak under a concrete op (weak_const_fold.cpp).
void note_weak_literal(const Tensor& t);
/// Whether `t` is a tensor note_weak_literal recorded (the same interned CONST node).
bool is_weak_literal(const Tensor& t);

/// Whether a weak double can stay weak under an op of dtype `d`: the floats narrower than float64
/// (float32, float16, bfloat16, the fp8s), which a kernel commits it to only at the end.
bool holds_weak_value(DType d);

/// A tensor of dtype `d` whose one value `v` is still tinygrad's weak double: what symbolic's
/// "x*1 -> x" and "x+0 -> x" leave when they hand back a weak CONST in place of an op of dtype d,
/// after which the ops above re-derive a weak dtype (uop/ops.py, _rebuild_dtype) and fold in
/// double until a cast or a concrete operand rounds them. The tensor's dtype stays `d`, as
/// tinygrad's Tensor's does: the node is CAST(d) of a weak float CONST, which a kernel computes
/// through float32. For float64 (exact already) it is the constant rounded to `d`.
Tensor weak_valued(const Shape& shape, double v, DType d = DType::Float32);
/// `v` when `t` (under reshapes and expands) is a weak_valued tensor, else nullopt.
std::optional<double> weak_valued_of(const Tensor& t);
/// A unary op (Cast included, giving `out`) over a weak_valued tensor: weak_valued again (Python's
/// math on the double), or the cast rounded once; nullopt when `a` is not weak_valued.
std::optional<Tensor> weak_valued_unary(Op op, DType out, const Tensor& a);
/// A binary op over a weak_valued tensor and a constant of the same shape and dtype: weak_valued
/// where both are weak or "x*1", "x+0" hand the weak one back, else the exact result rounded to
/// the dtype (a bool for a comparison); nullopt otherwise.
std::optional<Tensor> weak_valued_binary(Op op, const Tensor& a, const Tensor& b);
/// where(cond, a, b) with a constant cond and a weak_valued branch: the branch it takes, a
/// weak_valued one rounded to the dtype (fold_const_where commits it); nullopt otherwise.
std::optional<Tensor> weak_valued_where(const Tensor& cond, const Tensor& a, const Tensor& b);

}  // namespace tensor_inspect::late_fold
