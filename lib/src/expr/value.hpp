// The Python values an expression evaluates to (ints, floats, tensors, dtypes, tuples, ...).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tensor_inspect/dtype.hpp"
#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect::expr {

/// A Python value.
struct Value {
  enum class Kind {
    None,
    Scalar,
    String,
    Tensor,
    DType,
    Tuple,
    List,
    Slice,
    Ellipsis,
    Module,
    Builtin,
    BigInt
  } kind = Kind::None;
  Scalar num;                    ///< Scalar: bool, int (Signed/Unsigned) or float
  std::string text;              ///< String contents; Module/Builtin name; BigInt in decimal
  std::optional<Tensor> tensor;  ///< Tensor
  DType dtype = DType::Float32;  ///< DType
  std::vector<Value> items;      ///< Tuple/List elements; Slice: start, stop, step (None if absent)
  /// BigInt: a Python int outside [-2**63, 2**64), which only Python scalar arithmetic
  /// takes (2**64 - 1); anything else refuses it as out of the 64-bit range.
  __extension__ __int128 big = 0;

  static Value none() { return {}; }
  static Value scalar(Scalar s) { Value v; v.kind = Kind::Scalar; v.num = s; return v; }
  static Value of(Tensor t) { Value v; v.kind = Kind::Tensor; v.tensor = std::move(t); return v; }
  static Value named(Kind k, std::string name) { Value v; v.kind = k; v.text = std::move(name); return v; }
  static Value of_dtype(DType d) { Value v; v.kind = Kind::DType; v.dtype = d; return v; }
  /// A tuple of ints (a shape).
  static Value ints(const std::vector<std::int64_t>& xs) {
    Value v;
    v.kind = Kind::Tuple;
    for (std::int64_t x : xs) v.items.push_back(scalar(Scalar::from_int(x)));
    return v;
  }
  bool is_int() const {
    return kind == Kind::Scalar &&
           (num.kind == DKind::Signed || num.kind == DKind::Unsigned || num.kind == DKind::Bool);
  }
  bool is_seq() const { return kind == Kind::Tuple || kind == Kind::List; }
};

/// Python's type(v).__name__.
inline std::string type_name(const Value& v) {
  switch (v.kind) {
    case Value::Kind::None: return "NoneType";
    case Value::Kind::Scalar:
      return v.num.kind == DKind::Bool ? "bool" : v.num.kind == DKind::Float ? "float" : "int";
    case Value::Kind::String: return "str";
    case Value::Kind::Tensor: return "Tensor";
    case Value::Kind::DType: return "DType";
    case Value::Kind::Tuple: return "tuple";
    case Value::Kind::List: return "list";
    case Value::Kind::Slice: return "slice";
    case Value::Kind::Ellipsis: return "ellipsis";
    case Value::Kind::Module: return "module";
    case Value::Kind::Builtin: return "builtin_function_or_method";
    case Value::Kind::BigInt: return "int";
  }
  return "object";
}

}  // namespace tensor_inspect::expr
