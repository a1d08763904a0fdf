// Python's arithmetic on Python scalars (int, float, bool), folded before a value meets a
// Tensor: `2**-1`, `7 // -2`, `1 << 3`. Ints are 64-bit here; a result outside that range is
// refused with a clear error instead of wrapping.
#pragma once

#include <cstdint>
#include <string>

#include "tensor_inspect/dtype.hpp"

namespace tensor_inspect::expr {

/// The int value of a bool or int scalar. Throws Error(BadExpression) at `col` for a float
/// or an int beyond int64 ("integer ... is too large for this operation").
std::int64_t as_i64(const Scalar& s, int col);

/// `a op b` as Python computes it for op in + - * / // % ** << >> & | ^ < <= > >= == !=.
/// Throws Error(BadExpression) at `col` for division by zero, negative shift counts, and
/// int results outside int64.
Scalar scalar_binary(const std::string& op, const Scalar& a, const Scalar& b, int col);

/// `op a` for op in - + ~, as Python computes it. Throws like scalar_binary.
Scalar scalar_unary(const std::string& op, const Scalar& a, int col);

}  // namespace tensor_inspect::expr
