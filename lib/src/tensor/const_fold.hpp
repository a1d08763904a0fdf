// const_fold.hpp — tinygrad's folding of element-wise ops over constants (internal).
//
// A 0-d literal, a Python scalar and Tensor.full are CONSTs in tinygrad, and an ALU op whose
// sources are all CONSTs never reaches a kernel: uop/symbolic.py's fold_const_alu replaces it
// by `exec_alu(op, dtype, values, truncate_output=False)` as a new CONST, whose value
// `dtype.const(v)` rounds a float to its dtype (a weak float not at all) but keeps an int
// unwrapped, a Python int. So uint16 -129 stays -129 through a cast to float64, a weak
// float chain computes in exact double arithmetic, and only the final store wraps an int.
// These folds run in Tensor's primitives; where Python's arithmetic leaves what a Scalar
// holds (ints beyond 64 bits), or the op is none of tinygrad's, nothing is folded and the
// executor computes the op as a kernel would.
#pragma once

#include <optional>

#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect::const_fold {

/// The folded constant of a unary op (Cast included, giving `out`), or nullopt. Throws
/// Error(BadExpression) where tinygrad's fold raises: nan or inf cast to an int.
std::optional<Tensor> unary(Op op, DType out, const Tensor& a);
/// The folded constant of a binary op over equal shapes and dtypes, or nullopt.
std::optional<Tensor> binary(Op op, const Tensor& a, const Tensor& b);
/// The folded constant of where(cond, a, b), or nullopt.
std::optional<Tensor> where(const Tensor& cond, const Tensor& a, const Tensor& b);
/// The value of a constant seen through movement ops (a uniform tensor), or nullopt.
std::optional<Scalar> constant_of(const Tensor& t);
/// Whether `n` is an int or bool POW of two operands neither of which is a constant: tinygrad has
/// no int power and computes xpow in float32 for it, which frontend/power.cpp gives to casts and
/// comparisons and realize/schedule.cpp refuses where a kernel with elements stores it.
bool is_int_power_of_tensors(const Node& n);
/// `v` as tinygrad's `dtype.const(v)` keeps it: a float rounded to `dtype`, an int exact
/// (unwrapped) when it is an int dtype, a bool as Python's bool().
Scalar const_value(Scalar v, DType dtype);

}  // namespace tensor_inspect::const_fold
