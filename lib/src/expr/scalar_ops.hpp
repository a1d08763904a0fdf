// Python's arithmetic on Python scalars (int, float, bool), folded before a value meets a
// Tensor: `2**-1`, `7 // -2`, `1 << 3`, `2**64 - 1`. Ints are exact: a Scalar within
// [-2**63, 2**64), a Value::Kind::BigInt beyond (up to 2**120 in magnitude, refused past
// it), so intermediate results may leave the 64-bit range as in Python.
#pragma once

#include <cstdint>
#include <string>

#include "expr/value.hpp"
#include "tensor_inspect/dtype.hpp"

namespace tensor_inspect::expr {

/// The int value of a bool or int scalar. Throws Error(BadExpression) at `col` for a float
/// or an int beyond int64 ("integer ... is too large for this operation").
std::int64_t as_i64(const Scalar& s, int col);

/// Whether v is a Python number (a Scalar or a BigInt), which fold_* take.
bool is_number(const Value& v);

/// `a op b` on two Python numbers as Python computes it, for op in + - * / // % ** << >>
/// & | ^ < <= > >= == !=. Throws Error(BadExpression) at `col` for division by zero,
/// negative shift counts and ints beyond 2**120 in magnitude.
Value fold_binary(const std::string& op, const Value& a, const Value& b, int col);

/// `op a` for op in - + ~, as Python computes it. Throws like fold_binary.
Value fold_unary(const std::string& op, const Value& a, int col);

/// A Python int: a Scalar within [-2**63, 2**64), a BigInt beyond. Throws Error(BadExpression)
/// at `col` past 2**120 in magnitude.
Value exact_int(Scalar::Wide v, int col);

/// Error(BadExpression) at `col` for a BigInt used where a 64-bit value is needed.
[[noreturn]] void fail_big(const Value& v, int col);

}  // namespace tensor_inspect::expr
