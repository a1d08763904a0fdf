// Tokens of the expression language: Python's numbers (underscores, hex, octal, binary,
// floats), strings, names and operators, each with the column errors name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tensor_inspect/dtype.hpp"

namespace tensor_inspect::expr {

/// One token; `col` is its 1-based column.
struct Token {
  enum class Kind { Number, String, Name, Op, End } kind = Kind::End;
  std::string text;
  Scalar value;
  int col = 1;
};

/// The tokens of `source`, ending with a Kind::End token. Throws Error(BadExpression)
/// "expression: column N: ..." for bad characters and malformed numbers or strings.
std::vector<Token> tokenize(std::string_view source);

}  // namespace tensor_inspect::expr
