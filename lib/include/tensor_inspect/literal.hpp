// tensor_inspect/literal.hpp — tensors from Python literal syntax, with tinygrad's dtype
// inference (dtypes.from_py) and value conversion (dtypes.as_const + truncate).
//
//   Tensor a = ti::tensor_from_literal("[[1, 2], [3, 4]]", std::nullopt);  // int32 (2, 2)
//   Tensor b = ti::tensor_from_literal("2.5", std::nullopt);               // weakfloat ()
//   Tensor c = ti::tensor_from_literal("[300, -1]", DType::UInt8);         // [44, 255]
#pragma once

#include <optional>
#include <string_view>

#include "tensor_inspect/dtype.hpp"
#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect {

/// Parses a Python literal: nested lists/tuples of ints (any size; `1_000`, `0x1f`), floats
/// (`1.`, `.5`, `1e3`, `1e400` is inf, `float('nan')`, `-float('inf')`), `True`/`False`,
/// and a bare `None` (tinygrad's Tensor(None): 0-d 0.0). A scalar gives a 0-d tensor of a
/// weak dtype (weakint/weakfloat; bool stays bool); a list gives bool < default int <
/// default float by its elements, `[]` the default float. `dtype` overrides: ints wrap like
/// a C cast, floats truncate toward zero into ints, floats round to nearest even.
/// Throws Error(BadLiteral) naming the column for syntax errors, ragged nesting
/// ("inhomogeneous shape"), strings, None inside a list, names like bare `nan`, nesting
/// deeper than 64, nan/inf into an integer dtype, and text longer than Limits::literal_bytes.
Tensor tensor_from_literal(std::string_view text, std::optional<DType> dtype, const Defaults& defaults = {});

/// False when `text`, the start of some input, cannot begin a literal tensor_from_literal
/// takes: its first non-blank character opens no list, tuple or number, nor True, False,
/// None or float(...). True while only blanks (or a word's first letters) have arrived.
/// Lets a stream that is neither a tensor file nor a literal be refused after its first read.
bool may_begin_literal(std::string_view text);

}  // namespace tensor_inspect
