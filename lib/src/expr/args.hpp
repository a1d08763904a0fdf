// The arguments of one call in an expression, bound to a Python signature, and the
// conversions from Python values to what the frontend takes (ints, shapes, axes, dtypes).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "expr/ast.hpp"
#include "expr/value.hpp"
#include "tensor_inspect/frontend.hpp"

namespace tensor_inspect::expr {

namespace tg = tensor_inspect::tg;

/// The arguments of one call, bound to a signature.
class Args {
 public:
  Args(std::string fname, int col, std::vector<Value> pos, std::vector<std::pair<std::string, Value>> kw)
      : fname_(std::move(fname)), col_(col), pos_(std::move(pos)), kw_(std::move(kw)) {}

  /// Binds to parameters `names`; the first `required` are mandatory. Returns one optional
  /// per parameter; too many, unknown, repeated or missing arguments throw.
  std::vector<std::optional<Value>> bind(std::initializer_list<std::string_view> names,
                                         std::size_t required = 0) const {
    std::vector<std::string_view> n(names);
    if (pos_.size() > n.size())
      fail(col_, fname_ + "() takes at most " + std::to_string(n.size()) + " argument" + (n.size() == 1 ? "" : "s") +
                     " (" + std::to_string(pos_.size()) + " given)");
    std::vector<std::optional<Value>> out(n.size());
    for (std::size_t i = 0; i < pos_.size(); ++i) out[i] = pos_[i];
    for (const auto& [k, v] : kw_) {
      auto it = std::find(n.begin(), n.end(), k);
      if (it == n.end()) fail(col_, fname_ + "() got an unexpected keyword argument '" + k + "'");
      std::size_t i = static_cast<std::size_t>(it - n.begin());
      if (out[i]) fail(col_, fname_ + "() got multiple values for argument '" + k + "'");
      out[i] = v;
    }
    for (std::size_t i = 0; i < required; ++i)
      if (!out[i]) fail(col_, fname_ + "() missing required argument '" + std::string(n[i]) + "'");
    return out;
  }
  /// Only keyword arguments among `names`; positional ones are read by the caller.
  std::vector<std::optional<Value>> keywords(std::initializer_list<std::string_view> names) const {
    std::vector<std::string_view> n(names);
    std::vector<std::optional<Value>> out(n.size());
    for (const auto& [k, v] : kw_) {
      auto it = std::find(n.begin(), n.end(), k);
      if (it == n.end()) fail(col_, fname_ + "() got an unexpected keyword argument '" + k + "'");
      out[static_cast<std::size_t>(it - n.begin())] = v;
    }
    return out;
  }
  const std::vector<Value>& positional() const { return pos_; }
  const std::string& fname() const { return fname_; }
  int col() const { return col_; }

 private:
  std::string fname_;
  int col_;
  std::vector<Value> pos_;
  std::vector<std::pair<std::string, Value>> kw_;
};

/// v as an int (bools count). Throws Error(BadExpression) "<what> must be an int, got float".
std::int64_t to_int(const Value& v, int col, const std::string& what);
/// v's truth value; v must be a scalar.
bool to_bool(const Value& v, int col, const std::string& what);
/// v as a Python number (bool, int or float).
Scalar to_number(const Value& v, int col, const std::string& what);
/// A dtypes.<name>, a dtype name string, or None/absent (nullopt).
std::optional<DType> to_dtype(const std::optional<Value>& v, int col);
/// An int or a sequence of ints.
std::vector<std::int64_t> to_ints(const Value& v, int col, const std::string& what);
/// A shape given as variadic ints `f(2, 3)` or one sequence `f((2, 3))`.
Shape shape_from(const std::vector<Value>& pos, int col, const std::string& fname);
/// An axis argument: None/absent (all axes), an int or a sequence of ints.
std::optional<std::vector<std::int64_t>> to_axes(const std::optional<Value>& v, int col);
/// A Tensor or a Python scalar as a binary op's operand.
tg::Operand to_operand(const Value& v, int col, const std::string& op);
/// v, which must be a Tensor.
const Tensor& to_tensor_arg(const Value& v, int col, const std::string& what);
/// A per-axis tuple of (begin, end) pairs or None, as shrink and pad take.
std::vector<std::optional<std::pair<std::int64_t, std::int64_t>>> to_pairs(const Value& v, int col,
                                                                           const std::string& what);
/// Nested Python sequences of scalars -> C-order leaves and shape (for Tensor(...)).
/// Throws Error(BadLiteral) for ragged nesting.
void flatten_values(const Value& v, std::size_t depth, Shape& shape, std::vector<Scalar>& out, int col);

}  // namespace tensor_inspect::expr
