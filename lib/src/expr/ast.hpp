// The parse tree of an expression, shared by the parser and the evaluator.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tensor_inspect/dtype.hpp"

namespace tensor_inspect::expr {

/// One node of the tree. `col` is the 1-based column that error messages name.
struct Node {
  enum class Kind {
    Number,     ///< value: a Python int (Signed/Unsigned) or float
    String,     ///< text: the string's contents
    Constant,   ///< text: "True", "False" or "None"
    Ellipsis,   ///< `...`
    Name,       ///< text: the identifier
    Attribute,  ///< kids[0].text
    Call,       ///< kids[0] the callee, then positional args, then keyword args (names in keywords)
    Index,      ///< kids[0][kids[1]]
    Slice,      ///< kids: start, stop, step; nullptr for an absent bound
    Tuple,
    List,
    Unary,      ///< text: "-", "+", "~" or "not"
    Binary,     ///< text: the operator, e.g. "//"
  } kind;
  int col = 1;
  std::string text;
  Scalar value;
  std::vector<std::unique_ptr<Node>> kids;
  std::vector<std::string> keywords;  ///< Call: names of the trailing keyword arguments
  std::size_t positional = 0;         ///< Call: number of positional arguments
};
using NodePtr = std::unique_ptr<Node>;

/// Parses a whole expression. Throws Error(BadExpression) "expression: column N: ...".
NodePtr parse(std::string_view source);

/// The S-expression of a tree (see expression_tree in expr.hpp).
std::string to_sexpr(const Node& node);

/// Throws Error(BadExpression) "expression: column N: message".
[[noreturn]] void fail(int col, const std::string& message);

}  // namespace tensor_inspect::expr
