// tensor_inspect/expr.hpp — the expression language of `--expr`: the Python subset that
// tinygrad users write over a tensor named `x`.
//
// Our own tokenizer and recursive-descent parser (Python's precedence: `**` binds tighter
// than a unary minus on its left and is right-associative; comparisons bind loosest),
// evaluated with tinygrad's semantics (frontend.hpp). Names: `x`, `Tensor` (constructors
// and static methods), `dtypes` (every name and alias of dtype_from_name), `math`
// (`pi e inf nan`), the builtins `float int bool abs`, and `True False None`. Python
// scalar arithmetic (`1/3`, `-2**2`) is computed as Python does before it meets a tensor.
//
//   ti::Tensor x = ...;
//   ti::Tensor r = ti::evaluate_expression("x.T.reshape(4).cast(dtypes.float16) * 2", x, {});
//   ti::Tensor a = ti::evaluate_expression("Tensor.arange(6).reshape(2, 3)", std::nullopt, {});
//   ti::expression_tree("-2**2");   // "(neg (** 2 2))"
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "tensor_inspect/dtype.hpp"
#include "tensor_inspect/limits.hpp"  // kMaxExpressionDepth, kMaxExpressionNodes
#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect {

/// Parses and evaluates `expr` over the input tensor `x` and returns the lazy result (the
/// caller then calls data()). A Python scalar result becomes a 0-d tensor of its weak
/// dtype. `defaults` are tinygrad's default int/float for constructors and true division.
/// Throws Error with one line "expression: column N: <problem>": BadExpression for syntax
/// errors, unknown names/methods, wrong arguments, and "name 'x' is not defined (no INPUT
/// given)" when `x` is nullopt; BadShape for shapes that do not fit (reshape, broadcast,
/// index out of bounds).
Tensor evaluate_expression(std::string_view expr, const std::optional<Tensor>& x, const Defaults& defaults);

/// The parse tree of `expr` as an S-expression, for tests and debugging: operators by
/// their Python spelling, `neg`/`pos`/`inv` for unary ones, `(. obj name)` attributes,
/// `(call f args... name=value)`, `(index obj item)`, `(slice lo hi step)` with `_` for an
/// absent bound, `(tuple ...)`, `(list ...)`. Throws Error(BadExpression) like
/// evaluate_expression for syntax errors.
std::string expression_tree(std::string_view expr);

}  // namespace tensor_inspect
