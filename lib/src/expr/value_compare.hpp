// Python's comparisons of values that are not tensors: tuples and lists (`x.shape == (3, 4)`,
// `x.shape < (3, 5)`), dtypes (`x.dtype == dtypes.float32`), None, strings.
// Two numbers are scalar_ops.hpp's; anything with a Tensor on one side is tinygrad's
// elementwise comparison (eval.cpp).
#pragma once

#include <string>

#include "expr/value.hpp"

namespace tensor_inspect::expr {

/// Whether `a op b` (op one of == != < <= > >=) is a comparison this file computes: neither
/// side a Tensor, and not two numbers.
bool is_value_comparison(const std::string& op, const Value& a, const Value& b);

/// `a op b` as Python computes it, a bool. == and != are defined for any two values (values
/// of different types are unequal, a tuple never equals a list); tuples and lists compare
/// item by item. <, <=, >, >= order two tuples or two lists lexicographically (the first
/// unequal items decide, else the lengths); anything else is Python's TypeError "'<' not
/// supported between instances of 'tuple' and 'int'", as Error(BadExpression) at `col`. A
/// Tensor inside a tuple is refused: its == is a Tensor, not a bool. One difference from
/// CPython: items are compared by value only, so `(math.nan,) == (math.nan,)` is False
/// (CPython finds the same float object first and says True).
Value compare_values(const std::string& op, const Value& a, const Value& b, int col);

}  // namespace tensor_inspect::expr
