// pad_region.hpp — the pad region of a pad with a value: tinygrad's exact Python scalar (internal).
//
// tinygrad pads with a value v as `pad(mask of True).where(x.pad(), v)` (mixin/op.py,
// _pad_constant), v a weak CONST. Where the kernel commits that CONST to the WHERE's dtype
// (uop/weak.py, commit_weak: "a CONST commits directly at dt (the value stays mathematical,
// emission truncates)") the value is `dtype.const(v)`: an int unwrapped (uint16 -1 stays -1), a
// float rounded to the dtype. Every element-wise op of the padded tensor then reaches the two
// branches (uop/symbolic.py: "push cast to branches", "alu of two where with same conds can
// combine" when a branch is a CONST; in a small kernel the optimizer upcasts the mask is a
// constant per element and fold_const_where leaves the CONST alone), and over the pad region it
// is an op over CONSTs, which fold_const_alu folds on the exact value: uint16
// `x.pad(((1, 0),), value=-1).clip(-1, 1)` stores -1 (65535) there, `.float()` is -1.0, and a
// nan pad value is no nan to isnan (ConstFloat: two nans equal; late_fold.hpp).
//
// The tensor primitives follow that: an element-wise op over such a where (under reshapes,
// expands, permutes, flips and shrinks), with every other operand a constant or a where over the
// same mask, is the where of the op over the inside and the op over the region, which the
// constant folds then fold like any other constant. The frontend's value-blind folds (x - x, x / x)
// see the where whole first, as tinygrad's symbolic does before any kernel (frontend/internal.hpp,
// folded_binary). Another operand that is neither (a loaded tensor) leaves the op alone.
#pragma once

#include <functional>
#include <optional>

#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect::pad_region {

/// An element-wise function of one tensor.
using Unary = std::function<Tensor(const Tensor&)>;
/// An element-wise function of two tensors of one shape.
using Binary = std::function<Tensor(const Tensor&, const Tensor&)>;

/// `f(a)` pushed into a pad's where: where(mask, f(inside), f(region)); nullopt when `a` is not one.
std::optional<Tensor> map(const Tensor& a, const Unary& f);
/// Whether `t` is a pad's where whose region the element-wise ops fold on (a small kernel).
bool splits(const Tensor& t);
/// Whether a binary `op` of `dtype` is pushed into a pad's where. Not an unsigned MIN: tinygrad's
/// int minimum is `(t ^ k).alu(Ops.MAX, x ^ k) ^ k` with k = dtype.min + dtype.max
/// (mixin/elementwise.py), which over an exact negative Python int is not MIN (uint32 pad -200
/// `.minimum(1)` is 1); the tool keeps the pad value wrapped there.
inline bool pushes(Op op, DType dtype) { return !(op == Op::Min && is_unsigned(dtype)); }
/// `f(a, b)` (equal shapes) pushed into a pad's where: one of them is one, the other one over the
/// same mask or a graph of constants; nullopt otherwise.
std::optional<Tensor> binary(const Tensor& a, const Tensor& b, const Binary& f);
/// Records that `pushed` (a result of map, binary or where) stands for `plain`, the node the op
/// makes without the push (its operands whole).
void remember(const Tensor& pushed, const NodePtr& plain);
/// The node `Tensor::binary(op, a, b)` makes without the push: a constant fold or the op itself.
NodePtr plain_binary(Op op, const Tensor& a, const Tensor& b);
/// `t` with every pushed where below it back in its plain form. A reduction reads its source so:
/// the pad region's exact constant reaches a reduction only in some of tinygrad's kernels (an
/// unrolled reduce's lanes are the CONST, folded by Python; a loop reads the where's stored,
/// wrapped value; codegen/opt/heuristic.py picks which, per size and dtype), which the tool does
/// not follow, so there it keeps tinygrad's value of the padded tensor as stored (uint8
/// `x.pad(((1, 0),), value=-1).clip(-1, 1).max()` is 1, as tinygrad gives).
Tensor unpushed(const Tensor& t);
/// where(cond, a, b) pushed into a pad's where, with the same rule as binary; nullopt otherwise.
std::optional<Tensor> where(const Tensor& cond, const Tensor& a, const Tensor& b);

}  // namespace tensor_inspect::pad_region
