// Converting Python values to the frontend's arguments.
#include "expr/args.hpp"

#include "expr/scalar_ops.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect::expr {

std::int64_t to_int(const Value& v, int col, const std::string& what) {
  if (v.kind == Value::Kind::BigInt) fail_big(v, col);
  if (!v.is_int()) fail(col, what + " must be an int, got " + type_name(v));
  return as_i64(v.num, col);
}

bool to_bool(const Value& v, int col, const std::string& what) {
  if (v.kind == Value::Kind::BigInt) return v.big != 0;
  if (v.kind != Value::Kind::Scalar) fail(col, what + " must be a bool, got " + type_name(v));
  return v.num.as_bool();
}

Scalar to_number(const Value& v, int col, const std::string& what) {
  if (v.kind == Value::Kind::BigInt) fail_big(v, col);
  if (v.kind != Value::Kind::Scalar) fail(col, what + " must be a number, got " + type_name(v));
  return v.num;
}

std::optional<DType> to_dtype(const std::optional<Value>& v, int col) {
  if (!v || v->kind == Value::Kind::None) return std::nullopt;
  if (v->kind == Value::Kind::DType) return v->dtype;
  if (v->kind == Value::Kind::String) {
    if (auto d = dtype_from_name(v->text)) return d;
    fail(col, "unknown dtype '" + v->text + "'");
  }
  fail(col, "dtype must be a dtypes.<name>, got " + type_name(*v));
}

std::vector<std::int64_t> to_ints(const Value& v, int col, const std::string& what) {
  if (!v.is_seq()) return {to_int(v, col, what)};
  std::vector<std::int64_t> out;
  for (const Value& i : v.items) out.push_back(to_int(i, col, what));
  return out;
}

// A shape given as variadic ints `f(2, 3)` or one sequence `f((2, 3))`.
Shape shape_from(const std::vector<Value>& pos, int col, const std::string& fname) {
  if (pos.size() == 1 && pos[0].is_seq()) return to_ints(pos[0], col, fname + "() shape");
  Shape s;
  for (const Value& v : pos) s.push_back(to_int(v, col, fname + "() shape"));
  return s;
}

std::optional<std::vector<std::int64_t>> to_axes(const std::optional<Value>& v, int col) {
  if (!v || v->kind == Value::Kind::None) return std::nullopt;
  return to_ints(*v, col, "axis");
}

tg::Operand to_operand(const Value& v, int col, const std::string& op) {
  if (v.kind == Value::Kind::Tensor) return *v.tensor;
  if (v.kind == Value::Kind::Scalar) return v.num;
  // A Python int beyond 64 bits meets a tensor as tinygrad's weak CONST: exact until a store
  // wraps it (uint8 `x < 2**64` compares with 2**64, `x + 2**64` stores x).
  if (v.kind == Value::Kind::BigInt) return Scalar::from_wide(v.big);
  fail(col, "unsupported operand type for " + op + ": '" + type_name(v) + "'");
}

const Tensor& to_tensor_arg(const Value& v, int col, const std::string& what) {
  if (v.kind != Value::Kind::Tensor) fail(col, what + " must be a Tensor, got " + type_name(v));
  return *v.tensor;
}

// Nested Python sequences of scalars -> C-order leaves and shape (for Tensor(...)).
void flatten_values(const Value& v, std::size_t depth, Shape& shape, std::vector<Scalar>& out, int col) {
  if (depth > 64) fail(col, "Tensor(): nested more than 64 levels");
  if (v.kind == Value::Kind::Scalar) {
    if (depth != shape.size())
      throw Error(ErrorCode::BadLiteral,
                  "expression: column " + std::to_string(col) + ": Tensor(): ragged nested sequence");
    out.push_back(v.num);
    return;
  }
  if (v.kind == Value::Kind::BigInt) fail_big(v, col);
  if (!v.is_seq()) fail(col, "Tensor() cannot hold a " + type_name(v));
  if (depth == shape.size()) shape.push_back(static_cast<std::int64_t>(v.items.size()));
  else if (depth > shape.size() || shape[depth] != static_cast<std::int64_t>(v.items.size()))
    throw Error(ErrorCode::BadLiteral,
                "expression: column " + std::to_string(col) + ": Tensor(): ragged nested sequence");
  for (const Value& i : v.items) flatten_values(i, depth + 1, shape, out, col);
  if (v.items.empty() && depth + 1 < shape.size())
    throw Error(ErrorCode::BadLiteral,
                "expression: column " + std::to_string(col) + ": Tensor(): ragged nested sequence");
}

// A per-axis tuple of (begin, end) pairs or None, as shrink and pad take.
std::vector<std::optional<std::pair<std::int64_t, std::int64_t>>> to_pairs(const Value& v, int col,
                                                                           const std::string& what) {
  if (!v.is_seq()) fail(col, what + "() argument must be a tuple, got " + type_name(v));
  std::vector<std::optional<std::pair<std::int64_t, std::int64_t>>> out;
  for (const Value& item : v.items) {
    if (item.kind == Value::Kind::None) { out.emplace_back(); continue; }
    if (!item.is_seq() || item.items.size() != 2)
      fail(col, what + "() takes a (begin, end) pair or None per axis, got " + type_name(item));
    out.emplace_back(std::pair{to_int(item.items[0], col, what + "()"), to_int(item.items[1], col, what + "()")});
  }
  return out;
}

}  // namespace tensor_inspect::expr
