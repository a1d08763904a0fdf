// Python's comparisons of values that are not tensors (see value_compare.hpp).
#include "expr/value_compare.hpp"

#include <algorithm>
#include <cstddef>

#include "expr/ast.hpp"
#include "expr/scalar_ops.hpp"

namespace tensor_inspect::expr {

namespace {

bool is_comparison_operator(const std::string& op) {
  return op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=";
}

[[noreturn]] void not_supported(const std::string& op, const Value& a, const Value& b, int col) {
  fail(col, "'" + op + "' not supported between instances of '" + type_name(a) + "' and '" + type_name(b) + "'");
}

// Python's a == b.
bool equal(const Value& a, const Value& b, int col) {
  using K = Value::Kind;
  if (a.kind == K::Tensor || b.kind == K::Tensor)
    fail(col, "comparing a tuple or list that holds a Tensor is not supported (its == is a Tensor, not a bool)");
  if (is_number(a) && is_number(b)) return fold_binary("==", a, b, col).num.b;
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case K::Tuple:
    case K::List:
    case K::Slice:
      if (a.items.size() != b.items.size()) return false;
      for (std::size_t i = 0; i < a.items.size(); ++i)
        if (!equal(a.items[i], b.items[i], col)) return false;
      return true;
    case K::DType: return a.dtype == b.dtype;
    case K::String:
    case K::Module:
    case K::Builtin: return a.text == b.text;
    case K::None:
    case K::Ellipsis: return true;
    default: return false;  // numbers and tensors are handled above
  }
}

// Python's a < b (<=, >, >=).
bool order(const std::string& op, const Value& a, const Value& b, int col) {
  if (is_number(a) && is_number(b)) return fold_binary(op, a, b, col).num.b;
  if (!a.is_seq() || a.kind != b.kind) not_supported(op, a, b, col);
  // The first items that differ decide; when one sequence is a prefix of the other, the
  // lengths do (as CPython's tuple and list richcompare).
  const std::size_t n = std::min(a.items.size(), b.items.size());
  for (std::size_t i = 0; i < n; ++i)
    if (!equal(a.items[i], b.items[i], col)) return order(op, a.items[i], b.items[i], col);
  const std::size_t x = a.items.size(), y = b.items.size();
  return op == "<" ? x < y : op == "<=" ? x <= y : op == ">" ? x > y : x >= y;
}

}  // namespace

bool is_value_comparison(const std::string& op, const Value& a, const Value& b) {
  return is_comparison_operator(op) && a.kind != Value::Kind::Tensor && b.kind != Value::Kind::Tensor &&
         !(is_number(a) && is_number(b));
}

Value compare_values(const std::string& op, const Value& a, const Value& b, int col) {
  if (op == "==" || op == "!=") return Value::scalar(Scalar::from_bool(equal(a, b, col) == (op == "==")));
  return Value::scalar(Scalar::from_bool(order(op, a, b, col)));
}

}  // namespace tensor_inspect::expr
