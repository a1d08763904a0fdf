// Evaluates a parse tree: Python scalar arithmetic as Python does it, everything that
// touches a Tensor through tinygrad's semantics (frontend.hpp).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <numbers>

#include "expr/ast.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/expr.hpp"
#include "tensor_inspect/frontend.hpp"

namespace tensor_inspect::expr {

namespace {

namespace tg = tensor_inspect::tg;

/// A Python value.
struct Value {
  enum class Kind { None, Scalar, String, Tensor, DType, Tuple, List, Slice, Ellipsis, Module, Builtin } kind = Kind::None;
  Scalar num;                    ///< Scalar: bool, int (Signed/Unsigned) or float
  std::string text;              ///< String contents; Module/Builtin name
  std::optional<Tensor> tensor;  ///< Tensor
  DType dtype = DType::Float32;  ///< DType
  std::vector<Value> items;      ///< Tuple/List elements; Slice: start, stop, step (None if absent)

  static Value none() { return {}; }
  static Value scalar(Scalar s) { Value v; v.kind = Kind::Scalar; v.num = s; return v; }
  static Value of(Tensor t) { Value v; v.kind = Kind::Tensor; v.tensor = std::move(t); return v; }
  static Value named(Kind k, std::string name) { Value v; v.kind = k; v.text = std::move(name); return v; }
  bool is_int() const { return kind == Kind::Scalar && (num.kind == DKind::Signed || num.kind == DKind::Unsigned || num.kind == DKind::Bool); }
  bool is_seq() const { return kind == Kind::Tuple || kind == Kind::List; }
};

std::string type_name(const Value& v) {
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
  }
  return "object";
}

// ------------------------------------------------------------- Python scalar arithmetic

std::int64_t as_i64(const Scalar& s, int col) {
  if (s.kind == DKind::Bool) return s.b ? 1 : 0;
  if (s.kind == DKind::Signed) return s.i;
  if (s.kind == DKind::Unsigned) fail(col, "integer " + std::to_string(s.u) + " is too large for this operation");
  fail(col, "'float' object cannot be interpreted as an integer");
}

// The int result of a checked operation `op(x, y, &r)` (one of the __builtin_*_overflow).
template <typename F>
Scalar checked(F op, std::int64_t x, std::int64_t y, int col) {
  std::int64_t r = 0;
  if (op(x, y, &r)) fail(col, "integer result is out of the 64-bit range");
  return Scalar::from_int(r);
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

Scalar scalar_binary(const std::string& op, const Scalar& a, const Scalar& b, int col) {
  bool both_bool = a.kind == DKind::Bool && b.kind == DKind::Bool;
  if (op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=") {
    bool r;
    if (a.kind != DKind::Float && b.kind != DKind::Float && a.kind != DKind::Unsigned && b.kind != DKind::Unsigned) {
      std::int64_t x = as_i64(a, col), y = as_i64(b, col);
      r = op == "<" ? x < y : op == "<=" ? x <= y : op == ">" ? x > y : op == ">=" ? x >= y : op == "==" ? x == y : x != y;
    } else {
      double x = a.as_double(), y = b.as_double();
      r = op == "<" ? x < y : op == "<=" ? x <= y : op == ">" ? x > y : op == ">=" ? x >= y : op == "==" ? x == y : x != y;
    }
    return Scalar::from_bool(r);
  }
  if (op == "&" || op == "|" || op == "^" || op == "<<" || op == ">>") {
    if (a.kind == DKind::Float || b.kind == DKind::Float)
      fail(col, "unsupported operand type(s) for " + op + ": 'float'");
    if (both_bool && op != "<<" && op != ">>")
      return Scalar::from_bool(op == "&" ? (a.b && b.b) : op == "|" ? (a.b || b.b) : (a.b != b.b));
    std::int64_t x = as_i64(a, col), y = as_i64(b, col);
    if (op == "&") return Scalar::from_int(x & y);
    if (op == "|") return Scalar::from_int(x | y);
    if (op == "^") return Scalar::from_int(x ^ y);
    if (y < 0) fail(col, "negative shift count");
    if (op == ">>") return Scalar::from_int(y >= 64 ? (x < 0 ? -1 : 0) : x >> y);
    if (x != 0 && (y >= 63 || (x > 0 ? x > (std::numeric_limits<std::int64_t>::max() >> y)
                                     : x < (std::numeric_limits<std::int64_t>::min() >> y))))
      fail(col, "integer result is out of the 64-bit range");
    return Scalar::from_int(x * (std::int64_t{1} << y));
  }
  bool floats = a.kind == DKind::Float || b.kind == DKind::Float || op == "/";
  if (floats) {
    double x = a.as_double(), y = b.as_double();
    if (op == "+") return Scalar::from_float(x + y);
    if (op == "-") return Scalar::from_float(x - y);
    if (op == "*") return Scalar::from_float(x * y);
    if (op == "/") {
      if (y == 0.0) fail(col, "division by zero");
      return Scalar::from_float(x / y);
    }
    if (op == "//" || op == "%") {
      if (y == 0.0) fail(col, "float division by zero");
      double m = std::fmod(x, y);
      if (m != 0.0 && ((m < 0) != (y < 0))) m += y;
      if (op == "%") return Scalar::from_float(m == 0.0 ? std::copysign(0.0, y) : m);
      // CPython's float_floor_div: the exact quotient of x - (x mod y), rounded.
      double q = (x - m) / y;
      if (q == 0.0) return Scalar::from_float(std::copysign(0.0, x / y));
      double f = std::floor(q);
      return Scalar::from_float(q - f > 0.5 ? f + 1.0 : f);
    }
    if (op == "**") {
      if (x == 0.0 && y < 0) fail(col, "0.0 cannot be raised to a negative power");
      if (x < 0 && std::floor(y) != y && std::isfinite(y)) fail(col, "a negative number to a fractional power is complex");
      return Scalar::from_float(std::pow(x, y));
    }
  } else {
    std::int64_t x = as_i64(a, col), y = as_i64(b, col);
    auto add = [](std::int64_t p, std::int64_t q, std::int64_t* r) { return __builtin_add_overflow(p, q, r); };
    auto subtract = [](std::int64_t p, std::int64_t q, std::int64_t* r) { return __builtin_sub_overflow(p, q, r); };
    auto multiply = [](std::int64_t p, std::int64_t q, std::int64_t* r) { return __builtin_mul_overflow(p, q, r); };
    if (op == "+") return checked(add, x, y, col);
    if (op == "-") return checked(subtract, x, y, col);
    if (op == "*") return checked(multiply, x, y, col);
    if (op == "//" || op == "%") {
      if (y == 0) fail(col, "integer division or modulo by zero");
      if (x == std::numeric_limits<std::int64_t>::min() && y == -1) {
        if (op == "%") return Scalar::from_int(0);
        fail(col, "integer result is out of the 64-bit range");
      }
      std::int64_t q = floor_div(x, y);
      return op == "//" ? Scalar::from_int(q) : Scalar::from_int(x - q * y);
    }
    if (op == "**") {
      if (y < 0) {
        if (x == 0) fail(col, "0 cannot be raised to a negative power");
        return Scalar::from_float(std::pow(static_cast<double>(x), static_cast<double>(y)));
      }
      std::int64_t result = 1, base = x;
      while (y > 0) {
        if (y & 1) result = checked(multiply, result, base, col).i;
        y >>= 1;
        if (y > 0) base = checked(multiply, base, base, col).i;
      }
      return Scalar::from_int(result);
    }
  }
  fail(col, "unsupported operand type(s) for " + op + ": 'int' and 'int'");
}

// ------------------------------------------------------------------------- arguments

/// The arguments of one call, bound to a signature.
class Args {
 public:
  Args(std::string fname, int col, std::vector<Value> pos, std::vector<std::pair<std::string, Value>> kw)
      : fname_(std::move(fname)), col_(col), pos_(std::move(pos)), kw_(std::move(kw)) {}

  /// Binds to parameters `names`; the first `required` are mandatory. Returns one optional
  /// per parameter; too many, unknown, repeated or missing arguments throw.
  std::vector<std::optional<Value>> bind(std::initializer_list<std::string_view> names, std::size_t required = 0) const {
    std::vector<std::string_view> n(names);
    if (pos_.size() > n.size())
      fail(col_, fname_ + "() takes at most " + std::to_string(n.size()) + " argument" + (n.size() == 1 ? "" : "s") + " (" +
                     std::to_string(pos_.size()) + " given)");
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

std::int64_t to_int(const Value& v, int col, const std::string& what) {
  if (!v.is_int()) fail(col, what + " must be an int, got " + type_name(v));
  return as_i64(v.num, col);
}

bool to_bool(const Value& v, int col, const std::string& what) {
  if (v.kind != Value::Kind::Scalar) fail(col, what + " must be a bool, got " + type_name(v));
  return v.num.as_bool();
}

Scalar to_number(const Value& v, int col, const std::string& what) {
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
    if (depth != shape.size()) throw Error(ErrorCode::BadLiteral, "expression: column " + std::to_string(col) + ": Tensor(): ragged nested sequence");
    out.push_back(v.num);
    return;
  }
  if (!v.is_seq()) fail(col, "Tensor() cannot hold a " + type_name(v));
  if (depth == shape.size()) shape.push_back(static_cast<std::int64_t>(v.items.size()));
  else if (depth > shape.size() || shape[depth] != static_cast<std::int64_t>(v.items.size()))
    throw Error(ErrorCode::BadLiteral, "expression: column " + std::to_string(col) + ": Tensor(): ragged nested sequence");
  for (const Value& i : v.items) flatten_values(i, depth + 1, shape, out, col);
  if (v.items.empty() && depth + 1 < shape.size())
    throw Error(ErrorCode::BadLiteral, "expression: column " + std::to_string(col) + ": Tensor(): ragged nested sequence");
}

// ------------------------------------------------------------------------- evaluator

class Evaluator {
 public:
  Evaluator(const std::optional<Tensor>& x, const Defaults& defaults) : x_(x), defaults_(defaults) {}

  Value eval(const Node& n) {
    try {
      return eval_node(n);
    } catch (const Error& e) {
      std::string what = e.what();
      if (what.rfind("expression:", 0) == 0) throw;
      throw Error(e.code(), "expression: column " + std::to_string(n.col) + ": " + what);
    }
  }

 private:
  Value eval_node(const Node& n) {
    switch (n.kind) {
      case Node::Kind::Number: return Value::scalar(n.value);
      case Node::Kind::String: return Value::named(Value::Kind::String, n.text);
      case Node::Kind::Constant:
        if (n.text == "None") return Value::none();
        return Value::scalar(Scalar::from_bool(n.text == "True"));
      case Node::Kind::Ellipsis: { Value v; v.kind = Value::Kind::Ellipsis; return v; }
      case Node::Kind::Name: return name(n);
      case Node::Kind::Attribute: return attribute(n);
      case Node::Kind::Call: return call(n);
      case Node::Kind::Index: return index(n);
      case Node::Kind::Slice: {
        Value v;
        v.kind = Value::Kind::Slice;
        for (const NodePtr& k : n.kids) v.items.push_back(k ? eval(*k) : Value::none());
        return v;
      }
      case Node::Kind::Tuple:
      case Node::Kind::List: {
        Value v;
        v.kind = n.kind == Node::Kind::Tuple ? Value::Kind::Tuple : Value::Kind::List;
        for (const NodePtr& k : n.kids) v.items.push_back(eval(*k));
        return v;
      }
      case Node::Kind::Unary: return unary(n);
      case Node::Kind::Binary: return binary(n);
    }
    fail(n.col, "unsupported expression");
  }

  Value name(const Node& n) {
    if (n.text == "x") {
      if (!x_) fail(n.col, "name 'x' is not defined (no INPUT given)");
      return Value::of(*x_);
    }
    if (n.text == "dtypes" || n.text == "Tensor" || n.text == "math") return Value::named(Value::Kind::Module, n.text);
    if (n.text == "float" || n.text == "int" || n.text == "bool" || n.text == "abs")
      return Value::named(Value::Kind::Builtin, n.text);
    fail(n.col, "name '" + n.text + "' is not defined");
  }

  Value attribute(const Node& n) {
    Value obj = eval(*n.kids[0]);
    const std::string& a = n.text;
    if (obj.kind == Value::Kind::Module && obj.text == "dtypes") {
      if (auto d = dtype_from_name(a)) {
        Value v;
        v.kind = Value::Kind::DType;
        v.dtype = *d;
        return v;
      }
      if (a == "default_float" || a == "default_int") {
        Value v;
        v.kind = Value::Kind::DType;
        v.dtype = a == "default_float" ? defaults_.float_dtype : defaults_.int_dtype;
        return v;
      }
      fail(n.col, "unknown dtype 'dtypes." + a + "'");
    }
    if (obj.kind == Value::Kind::Module && obj.text == "math") {
      if (a == "pi") return Value::scalar(Scalar::from_float(std::numbers::pi));
      if (a == "e") return Value::scalar(Scalar::from_float(std::numbers::e));
      if (a == "inf") return Value::scalar(Scalar::from_float(std::numeric_limits<double>::infinity()));
      if (a == "nan") return Value::scalar(Scalar::from_float(std::numeric_limits<double>::quiet_NaN()));
      fail(n.col, "module 'math' has no attribute '" + a + "'");
    }
    if (obj.kind == Value::Kind::Tensor) {
      const Tensor& t = *obj.tensor;
      if (a == "T") return Value::of(tg::transpose(t));
      if (a == "mT") {  // the last two axes swapped (tinygrad's Tensor.mT)
        if (t.ndim() < 2) fail(n.col, "mT needs at least 2 dimensions, got shape " + shape_repr(t.shape()));
        return Value::of(tg::transpose(t, -2, -1));
      }
      if (a == "shape") {
        Value v;
        v.kind = Value::Kind::Tuple;
        for (std::int64_t d : t.shape()) v.items.push_back(Value::scalar(Scalar::from_int(d)));
        return v;
      }
      if (a == "ndim") return Value::scalar(Scalar::from_int(static_cast<std::int64_t>(t.ndim())));
      if (a == "dtype") {
        Value v;
        v.kind = Value::Kind::DType;
        v.dtype = t.dtype();
        return v;
      }
      fail(n.col, "unknown attribute '" + a + "' of Tensor");
    }
    if (obj.kind == Value::Kind::DType) {
      if (a == "itemsize") return Value::scalar(Scalar::from_int(dtype_info(obj.dtype).itemsize));
      fail(n.col, "unknown attribute '" + a + "' of DType");
    }
    fail(n.col, "'" + type_name(obj) + "' object has no attribute '" + a + "'");
  }

  Value index(const Node& n) {
    Value obj = eval(*n.kids[0]);
    Value idx = eval(*n.kids[1]);
    if (obj.is_seq()) {
      std::int64_t i = to_int(idx, n.col, "tuple index");
      std::int64_t size = static_cast<std::int64_t>(obj.items.size());
      if (i < -size || i >= size) fail(n.col, "tuple index " + std::to_string(i) + " out of range");
      return obj.items[static_cast<std::size_t>(i < 0 ? i + size : i)];
    }
    if (obj.kind != Value::Kind::Tensor) fail(n.col, "'" + type_name(obj) + "' object is not subscriptable");
    std::vector<tg::IndexItem> items;
    auto add_item = [&](const Value& v) {
      tg::IndexItem it;
      using K = tg::IndexItem::Kind;
      if (v.kind == Value::Kind::None) it.kind = K::NewAxis;
      else if (v.kind == Value::Kind::Ellipsis) it.kind = K::Ellipsis;
      else if (v.kind == Value::Kind::Slice) {
        it.kind = K::Slice;
        auto bound = [&](const Value& b) -> std::optional<std::int64_t> {
          if (b.kind == Value::Kind::None) return std::nullopt;
          return to_int(b, n.col, "slice index");
        };
        it.start = bound(v.items[0]);
        it.stop = bound(v.items[1]);
        it.step = bound(v.items[2]);
      } else if (v.is_int() && v.num.kind != DKind::Bool) {
        it.kind = K::Int;
        it.index = as_i64(v.num, n.col);
      } else if (v.kind == Value::Kind::Tensor || v.is_seq() || (v.kind == Value::Kind::Scalar && v.num.kind == DKind::Bool)) {
        fail(n.col, "indexing with a " + type_name(v) + " is not supported (only ints, slices, None and ...)");
      } else {
        fail(n.col, "invalid index of type " + type_name(v));
      }
      items.push_back(it);
    };
    if (idx.kind == Value::Kind::Tuple) for (const Value& v : idx.items) add_item(v);
    else add_item(idx);
    return Value::of(tg::getitem(*obj.tensor, items));
  }

  Value unary(const Node& n) {
    Value v = eval(*n.kids[0]);
    const std::string& op = n.text;
    if (v.kind == Value::Kind::Scalar) {
      const Scalar& s = v.num;
      if (op == "+") return s.kind == DKind::Bool ? Value::scalar(Scalar::from_int(s.b)) : v;
      if (op == "-") {
        if (s.kind == DKind::Float) return Value::scalar(Scalar::from_float(-s.f));
        if (s.kind == DKind::Unsigned) {
          if (s.u == std::uint64_t{1} << 63) return Value::scalar(Scalar::from_int(std::numeric_limits<std::int64_t>::min()));
          fail(n.col, "integer " + std::to_string(s.u) + " is too large for this operation");
        }
        std::int64_t x = as_i64(s, n.col);
        if (x == std::numeric_limits<std::int64_t>::min()) fail(n.col, "integer result is out of the 64-bit range");
        return Value::scalar(Scalar::from_int(-x));
      }
      if (s.kind == DKind::Float) fail(n.col, "bad operand type for unary ~: 'float'");
      return Value::scalar(Scalar::from_int(~as_i64(s, n.col)));
    }
    if (v.kind != Value::Kind::Tensor) fail(n.col, "bad operand type for unary " + op + ": '" + type_name(v) + "'");
    if (op == "+") return v;
    if (op == "-") return Value::of(tg::neg(*v.tensor));
    return Value::of(tg::invert(*v.tensor));
  }

  Value binary(const Node& n) {
    Value a = eval(*n.kids[0]);
    Value b = eval(*n.kids[1]);
    const std::string& op = n.text;
    if (a.kind == Value::Kind::Scalar && b.kind == Value::Kind::Scalar) return Value::scalar(scalar_binary(op, a.num, b.num, n.col));
    if ((op == "==" || op == "!=") && (a.kind != Value::Kind::Tensor || b.kind != Value::Kind::Tensor) &&
        !(a.kind == Value::Kind::Scalar || b.kind == Value::Kind::Scalar)) {
      if (a.kind == Value::Kind::DType && b.kind == Value::Kind::DType)
        return Value::scalar(Scalar::from_bool((a.dtype == b.dtype) == (op == "==")));
    }
    if (a.kind != Value::Kind::Tensor && b.kind != Value::Kind::Tensor)
      fail(n.col, "unsupported operand type(s) for " + op + ": '" + type_name(a) + "' and '" + type_name(b) + "'");
    if (op == "@") return Value::of(tg::matmul(to_tensor_arg(a, n.col, "left operand of @"), to_tensor_arg(b, n.col, "right operand of @")));
    tg::Operand x = to_operand(a, n.col, op), y = to_operand(b, n.col, op);
    return Value::of(apply_binary(op, x, y, n.col));
  }

  Tensor apply_binary(const std::string& op, const tg::Operand& x, const tg::Operand& y, int col) {
    if (op == "+") return tg::add(x, y);
    if (op == "-") return tg::sub(x, y);
    if (op == "*") return tg::mul(x, y);
    if (op == "/") return tg::div(x, y, defaults_);
    if (op == "//") return tg::floordiv(x, y, defaults_);
    if (op == "%") return tg::mod(x, y, defaults_);
    if (op == "**") return tg::pow(x, y);
    if (op == "<") return tg::cmp_lt(x, y);
    if (op == "<=") return tg::cmp_le(x, y);
    if (op == ">") return tg::cmp_gt(x, y);
    if (op == ">=") return tg::cmp_ge(x, y);
    if (op == "==") return tg::cmp_eq(x, y);
    if (op == "!=") return tg::cmp_ne(x, y);
    if (op == "&") return tg::bitwise_and(x, y);
    if (op == "|") return tg::bitwise_or(x, y);
    if (op == "^") return tg::bitwise_xor(x, y);
    if (op == "<<" || op == ">>") {
      // tinygrad: x << n is x * 2**n, x >> n is x // 2**n, for a Python int n.
      const Scalar* s = std::get_if<Scalar>(&y);
      if (s == nullptr || std::holds_alternative<Scalar>(x) || s->kind == DKind::Float)
        fail(col, "shifts need a Tensor on the left and a Python int on the right");
      std::int64_t k = as_i64(*s, col);
      if (k < 0 || k > 62) fail(col, "shift count " + std::to_string(k) + " out of range [0, 62]");
      Scalar p = Scalar::from_int(std::int64_t{1} << k);
      return op == "<<" ? tg::mul(x, p) : tg::floordiv(x, p, defaults_);
    }
    fail(col, "unsupported operator " + op);
  }

  Value call(const Node& n) {
    const Node& callee = *n.kids[0];
    std::vector<Value> pos;
    std::vector<std::pair<std::string, Value>> kw;
    auto eval_args = [&] {
      for (std::size_t i = 1; i <= n.positional; ++i) pos.push_back(eval(*n.kids[i]));
      for (std::size_t k = 0; k < n.keywords.size(); ++k) kw.emplace_back(n.keywords[k], eval(*n.kids[1 + n.positional + k]));
    };
    if (callee.kind == Node::Kind::Attribute) {
      Value obj = eval(*callee.kids[0]);
      eval_args();
      Args args(callee.text, callee.col, std::move(pos), std::move(kw));
      if (obj.kind == Value::Kind::Tensor) return method(*obj.tensor, callee.text, args);
      if (obj.kind == Value::Kind::Module && obj.text == "Tensor") return static_method(callee.text, args);
      fail(callee.col, "'" + type_name(obj) + "' object has no method '" + callee.text + "'");
    }
    Value f = eval(callee);
    eval_args();
    std::string fname = callee.kind == Node::Kind::Name ? callee.text : type_name(f);
    Args args(fname, callee.col, std::move(pos), std::move(kw));
    if (f.kind == Value::Kind::Module && f.text == "Tensor") return construct(args);
    if (f.kind == Value::Kind::Builtin) return builtin(f.text, args);
    fail(callee.col, "'" + type_name(f) + "' object is not callable");
  }

  Value builtin(const std::string& fname, const Args& args) {
    auto p = args.bind({"x"}, 1);
    const Value& v = *p[0];
    int col = args.col();
    if (fname == "float") {
      if (v.kind == Value::Kind::String) {
        std::string s;
        for (char c : v.text) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        s.erase(0, s.find_first_not_of(' '));
        s.erase(s.find_last_not_of(' ') + 1);
        bool negative = !s.empty() && s[0] == '-';
        if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.erase(0, 1);
        double r;
        if (s == "inf" || s == "infinity") r = std::numeric_limits<double>::infinity();
        else if (s == "nan") r = std::numeric_limits<double>::quiet_NaN();
        else {
          char* end = nullptr;
          r = std::strtod(s.c_str(), &end);
          if (s.empty() || end != s.c_str() + s.size() || s.find_first_of("xXpP") != std::string::npos)
            fail(col, "could not convert string to float: '" + v.text + "'");
        }
        return Value::scalar(Scalar::from_float(negative ? -r : r));
      }
      return Value::scalar(Scalar::from_float(to_number(v, col, "float()").as_double()));
    }
    if (fname == "int") {
      Scalar s = to_number(v, col, "int()");
      if (s.kind != DKind::Float) return Value::scalar(Scalar::from_int(as_i64(s, col)));
      if (!std::isfinite(s.f) || std::fabs(s.f) >= 9.2e18) fail(col, "cannot convert float " + std::to_string(s.f) + " to integer");
      return Value::scalar(Scalar::from_int(static_cast<std::int64_t>(s.f)));
    }
    if (fname == "bool") {
      if (v.kind == Value::Kind::Tensor) fail(col, "the truth value of a Tensor is ambiguous");
      return Value::scalar(Scalar::from_bool(to_number(v, col, "bool()").as_bool()));
    }
    // abs
    if (v.kind == Value::Kind::Tensor) return Value::of(tg::abs(*v.tensor));
    Scalar s = to_number(v, col, "abs()");
    if (s.kind == DKind::Float) return Value::scalar(Scalar::from_float(std::fabs(s.f)));
    return Value::scalar(scalar_binary("*", s, Scalar::from_int(as_i64(s, col) < 0 ? -1 : 1), col));
  }

  // Tensor(data, dtype=None)
  Value construct(const Args& args) {
    auto p = args.bind({"data", "dtype", "device", "requires_grad"}, 1);
    std::optional<DType> dtype = to_dtype(p[1], args.col());
    const Value& data = *p[0];
    if (data.kind == Value::Kind::Tensor) return Value::of(dtype ? tg::cast(*data.tensor, *dtype) : *data.tensor);
    Shape shape;
    std::vector<Scalar> leaves;
    flatten_values(data, 0, shape, leaves, args.col());
    return Value::of(tg::from_values(leaves, shape, dtype, defaults_));
  }

  Value static_method(const std::string& name, const Args& args) {
    int col = args.col();
    const auto& pos = args.positional();
    if (name == "arange") {
      auto p = args.bind({"start", "stop", "step", "dtype", "device", "requires_grad"}, 1);
      Scalar start = to_number(*p[0], col, "arange() start");
      Scalar stop, step = Scalar::from_int(1);
      if (!p[1] || p[1]->kind == Value::Kind::None) {
        stop = start;
        start = Scalar::from_int(0);
      } else {
        stop = to_number(*p[1], col, "arange() stop");
      }
      if (p[2]) step = to_number(*p[2], col, "arange() step");
      return Value::of(tg::arange(start, stop, step, to_dtype(p[3], col), defaults_));
    }
    if (name == "ones" || name == "zeros" || name == "empty") {
      auto kw = args.keywords({"dtype", "device", "requires_grad"});
      Shape s = shape_from(pos, col, name);
      std::optional<DType> d = to_dtype(kw[0], col);
      return Value::of(name == "ones" ? tg::ones(s, d, defaults_) : tg::zeros(s, d, defaults_));
    }
    if (name == "full") {
      auto p = args.bind({"shape", "fill_value", "dtype", "device", "requires_grad"}, 2);
      Shape s = to_ints(*p[0], col, "full() shape");
      return Value::of(tg::full(s, to_number(*p[1], col, "full() fill_value"), to_dtype(p[2], col)));
    }
    if (name == "eye") {
      auto p = args.bind({"n", "m", "dtype", "device", "requires_grad"}, 1);
      std::optional<std::int64_t> m;
      if (p[1] && p[1]->kind != Value::Kind::None) m = to_int(*p[1], col, "eye() m");
      return Value::of(tg::eye(to_int(*p[0], col, "eye() n"), m, to_dtype(p[2], col), defaults_));
    }
    if (name == "linspace") {
      auto p = args.bind({"start", "stop", "steps", "dtype", "device", "requires_grad"}, 3);
      return Value::of(tg::linspace(to_number(*p[0], col, "linspace() start"), to_number(*p[1], col, "linspace() stop"),
                                    to_int(*p[2], col, "linspace() steps"), to_dtype(p[3], col), defaults_));
    }
    if (name == "stack" || name == "cat") {
      // Tensor.stack(a, b, dim=0) / Tensor.cat(a, b, dim=0), or a list as the first argument.
      auto p = args.keywords({"dim"});
      std::vector<Tensor> ts;
      const std::vector<Value>& items = pos.size() == 1 && pos[0].is_seq() ? pos[0].items : pos;
      for (const Value& v : items) ts.push_back(to_tensor_arg(v, col, name + "() arguments"));
      const std::int64_t dim = p[0] ? to_int(*p[0], col, name + "() dim") : 0;
      return Value::of(name == "stack" ? tg::stack(ts, dim) : tg::cat(ts, dim));
    }
    // Tensor.method(t, ...) is t.method(...).
    if (!pos.empty() && pos[0].kind == Value::Kind::Tensor) {
      args.keywords({});  // the unbound form takes positional arguments only
      return method(*pos[0].tensor, name, Args(name, col, std::vector<Value>(pos.begin() + 1, pos.end()), {}));
    }
    fail(col, "unknown method 'Tensor." + name + "'");
  }

  Value method(const Tensor& t, const std::string& name, const Args& args) {
    int col = args.col();
    const auto& pos = args.positional();
    auto unary_f = [&](Tensor (*f)(const Tensor&, const Defaults&)) {
      args.bind({});
      return Value::of(f(t, defaults_));
    };
    auto unary_p = [&](Tensor (*f)(const Tensor&)) {
      args.bind({});
      return Value::of(f(t));
    };
    auto operand = [&](std::initializer_list<std::string_view> names) {
      auto p = args.bind(names, 1);
      return to_operand(*p[0], col, name + "()");
    };
    // movement
    if (name == "reshape" || name == "view") {
      args.keywords({});
      return Value::of(tg::reshape(t, shape_from(pos, col, name)));
    }
    if (name == "permute") {
      args.keywords({});
      return Value::of(tg::permute(t, shape_from(pos, col, name)));
    }
    if (name == "repeat") {
      args.keywords({});
      return Value::of(tg::repeat(t, shape_from(pos, col, name)));
    }
    if (name == "expand") {
      args.keywords({});
      return Value::of(tg::expand(t, shape_from(pos, col, name)));
    }
    if (name == "flip") {
      if (pos.empty()) {
        auto p = args.bind({"axis"}, 1);
        return Value::of(tg::flip(t, to_ints(*p[0], col, "flip() axis")));
      }
      args.keywords({});
      return Value::of(tg::flip(t, shape_from(pos, col, name)));
    }
    if (name == "transpose") {
      auto p = args.bind({"dim0", "dim1"});
      std::int64_t a = p[0] ? to_int(*p[0], col, "transpose() dim0") : 1, b = p[1] ? to_int(*p[1], col, "transpose() dim1") : 0;
      return Value::of(tg::transpose(t, a, b));
    }
    if (name == "flatten") {
      auto p = args.bind({"start_dim", "end_dim"});
      return Value::of(tg::flatten(t, p[0] ? to_int(*p[0], col, "start_dim") : 0, p[1] ? to_int(*p[1], col, "end_dim") : -1));
    }
    if (name == "unflatten") {
      auto p = args.bind({"dim", "sizes"}, 2);
      return Value::of(tg::unflatten(t, to_int(*p[0], col, "dim"), to_ints(*p[1], col, "sizes")));
    }
    if (name == "squeeze") {
      auto p = args.bind({"dim"});
      std::optional<std::int64_t> d;
      if (p[0] && p[0]->kind != Value::Kind::None) d = to_int(*p[0], col, "dim");
      return Value::of(tg::squeeze(t, d));
    }
    if (name == "unsqueeze") {
      auto p = args.bind({"dim"}, 1);
      return Value::of(tg::unsqueeze(t, to_int(*p[0], col, "dim")));
    }
    if (name == "shrink") {
      auto p = args.bind({"arg"}, 1);
      return Value::of(tg::shrink(t, pairs(*p[0], col, "shrink")));
    }
    if (name == "pad") {
      auto p = args.bind({"padding", "mode", "value"}, 1);
      if (p[1] && !(p[1]->kind == Value::Kind::String && p[1]->text == "constant"))
        fail(col, "pad(): only mode='constant' is supported");
      Scalar value = p[2] ? to_number(*p[2], col, "pad() value") : Scalar::from_int(0);
      const Value& padding = *p[0];
      if (!padding.is_seq()) fail(col, "pad() padding must be a tuple, got " + type_name(padding));
      bool flat = std::all_of(padding.items.begin(), padding.items.end(), [](const Value& v) { return v.is_int(); });
      if (flat && !padding.items.empty()) return Value::of(tg::pad_flat(t, to_ints(padding, col, "padding"), value));
      return Value::of(tg::pad(t, pairs(padding, col, "pad"), value));
    }
    if (name == "contiguous") { args.bind({}); return Value::of(t.contiguous()); }
    if (name == "realize") { args.bind({}); return Value::of(t.realize()); }
    if (name == "numel") { args.bind({}); return Value::scalar(Scalar::from_int(t.numel())); }
    if (name == "size") {
      auto p = args.bind({"dim"});
      if (!p[0]) {
        Value v;
        v.kind = Value::Kind::Tuple;
        for (std::int64_t d : t.shape()) v.items.push_back(Value::scalar(Scalar::from_int(d)));
        return v;
      }
      std::int64_t d = tg::resolve_dim(to_int(*p[0], col, "dim"), static_cast<std::int64_t>(t.ndim()));
      if (t.ndim() == 0) fail(col, "size() of a 0-d tensor has no dims");
      return Value::scalar(Scalar::from_int(t.shape()[static_cast<std::size_t>(d)]));
    }
    if (name == "dim") { args.bind({}); return Value::scalar(Scalar::from_int(static_cast<std::int64_t>(t.ndim()))); }
    // dtype
    if (name == "cast" || name == "bitcast") {
      auto p = args.bind({"dtype"}, 1);
      DType d = *to_dtype(p[0], col);
      return Value::of(name == "cast" ? tg::cast(t, d) : tg::bitcast(t, d));
    }
    static const std::map<std::string, DType, std::less<>> kCasts = {
        {"float", DType::Float32}, {"half", DType::Float16}, {"double", DType::Float64}, {"int", DType::Int32},
        {"long", DType::Int64},    {"bool", DType::Bool},    {"short", DType::Int16},   {"bfloat16", DType::BFloat16}};
    if (auto it = kCasts.find(name); it != kCasts.end()) {
      args.bind({});
      return Value::of(tg::cast(t, it->second));
    }
    // reductions
    if (name == "sum" || name == "prod" || name == "max" || name == "min" || name == "mean") {
      auto p = args.bind({"axis", "keepdim"});
      auto axes = to_axes(p[0], col);
      bool keep = p[1] ? to_bool(*p[1], col, "keepdim") : false;
      if (name == "sum") return Value::of(tg::sum(t, axes, keep));
      if (name == "prod") return Value::of(tg::prod(t, axes, keep));
      if (name == "max") return Value::of(tg::max(t, axes, keep));
      if (name == "min") return Value::of(tg::min(t, axes, keep));
      return Value::of(tg::mean(t, axes, keep, defaults_));
    }
    if (name == "var" || name == "std") {
      auto p = args.bind({"axis", "keepdim", "correction"});
      auto axes = to_axes(p[0], col);
      bool keep = p[1] ? to_bool(*p[1], col, "keepdim") : false;
      double corr = p[2] ? to_number(*p[2], col, "correction").as_double() : 1.0;
      return Value::of(name == "var" ? tg::var(t, axes, keep, corr, defaults_) : tg::std_dev(t, axes, keep, corr, defaults_));
    }
    if (name == "cat" || name == "stack") {
      auto p = args.keywords({"dim"});
      std::vector<Tensor> ts{t};
      for (const Value& v : pos) ts.push_back(to_tensor_arg(v, col, name + "() arguments"));
      const std::int64_t dim = p[0] ? to_int(*p[0], col, name + "() dim") : 0;
      return Value::of(name == "stack" ? tg::stack(ts, dim) : tg::cat(ts, dim));
    }
    if (name == "tril" || name == "triu") {
      auto p = args.bind({"diagonal"});
      return Value::of(tg::tril(t, p[0] ? to_int(*p[0], col, name + "() diagonal") : 0, name == "triu"));
    }
    if (name == "cumsum") {
      auto p = args.bind({"axis"});
      return Value::of(tg::cumsum(t, p[0] ? to_int(*p[0], col, "axis") : 0));
    }
    if (name == "softmax" || name == "log_softmax") {
      auto p = args.bind({"axis"});
      std::int64_t axis = p[0] ? to_int(*p[0], col, "axis") : -1;
      return Value::of(name == "softmax" ? tg::softmax(t, axis, defaults_) : tg::log_softmax(t, axis, defaults_));
    }
    if (name == "argmax" || name == "argmin") {
      auto p = args.bind({"axis", "keepdim"});
      std::optional<std::int64_t> axis;
      if (p[0] && p[0]->kind != Value::Kind::None) axis = to_int(*p[0], col, "axis");
      bool keep = p[1] ? to_bool(*p[1], col, "keepdim") : false;
      return Value::of(name == "argmax" ? tg::argmax(t, axis, keep) : tg::argmin(t, axis, keep));
    }
    if (name == "matmul" || name == "dot") {
      auto p = args.bind({"x"}, 1);
      return Value::of(tg::matmul(t, to_tensor_arg(*p[0], col, name + "() argument")));
    }
    // element-wise binary
    if (name == "add") return Value::of(tg::add(t, operand({"x"})));
    if (name == "sub") return Value::of(tg::sub(t, operand({"x"})));
    if (name == "mul") return Value::of(tg::mul(t, operand({"x"})));
    if (name == "div") return Value::of(tg::div(t, operand({"x"}), defaults_));
    if (name == "idiv") return Value::of(tg::floordiv(t, operand({"x"}), defaults_));
    if (name == "pow") return Value::of(tg::pow(t, operand({"x"})));
    if (name == "maximum") return Value::of(tg::maximum(t, operand({"x"})));
    if (name == "minimum") return Value::of(tg::minimum(t, operand({"x"})));
    if (name == "eq") return Value::of(tg::cmp_eq(t, operand({"x"})));
    if (name == "ne") return Value::of(tg::cmp_ne(t, operand({"x"})));
    if (name == "lt") return Value::of(tg::cmp_lt(t, operand({"x"})));
    if (name == "gt") return Value::of(tg::cmp_gt(t, operand({"x"})));
    if (name == "where") {
      auto p = args.bind({"x", "y"}, 2);
      return Value::of(tg::where(t, to_operand(*p[0], col, "where()"), to_operand(*p[1], col, "where()")));
    }
    if (name == "clip" || name == "clamp") {
      auto p = args.bind({"min_", "max_"});
      std::optional<tg::Operand> lo, hi;
      if (p[0] && p[0]->kind != Value::Kind::None) lo = to_operand(*p[0], col, "clip()");
      if (p[1] && p[1]->kind != Value::Kind::None) hi = to_operand(*p[1], col, "clip()");
      if (!lo && !hi) fail(col, "clip() needs at least one of min_ and max_");
      return Value::of(tg::clip(t, lo, hi));
    }
    // element-wise unary
    if (name == "neg") return unary_p(tg::neg);
    if (name == "abs") return unary_p(tg::abs);
    if (name == "relu") return unary_p(tg::relu);
    if (name == "logical_not") return unary_p(tg::logical_not);
    if (name == "floor") return unary_p(tg::floor);
    if (name == "ceil") return unary_p(tg::ceil);
    if (name == "trunc") return unary_p(tg::trunc);
    if (name == "round") return unary_p(tg::round);
    if (name == "sign") return unary_p(tg::sign);
    if (name == "square") return unary_p(tg::square);
    if (name == "exp") return unary_f(tg::exp);
    if (name == "exp2") return unary_f(tg::exp2);
    if (name == "log") return unary_f(tg::log);
    if (name == "log2") return unary_f(tg::log2);
    if (name == "sqrt") return unary_f(tg::sqrt);
    if (name == "rsqrt") return unary_f(tg::rsqrt);
    if (name == "sin") return unary_f(tg::sin);
    if (name == "cos") return unary_f(tg::cos);
    if (name == "tan") return unary_f(tg::tan);
    if (name == "tanh") return unary_f(tg::tanh);
    if (name == "sigmoid") return unary_f(tg::sigmoid);
    if (name == "reciprocal") return unary_f(tg::reciprocal);
    // like-constructors
    if (name == "ones_like" || name == "zeros_like") {
      auto p = args.bind({"dtype"});
      std::optional<DType> d = to_dtype(p[0], col);
      return Value::of(tg::full(t.shape(), Scalar::from_int(name == "ones_like" ? 1 : 0), d ? *d : t.dtype()));
    }
    if (name == "full_like") {
      auto p = args.bind({"fill_value", "dtype"}, 1);
      std::optional<DType> d = to_dtype(p[1], col);
      return Value::of(tg::full(t.shape(), to_number(*p[0], col, "fill_value"), d ? *d : t.dtype()));
    }
    fail(col, "unknown method '" + name + "' of Tensor");
  }

  // A per-axis tuple of (begin, end) pairs or None, as shrink and pad take.
  std::vector<std::optional<std::pair<std::int64_t, std::int64_t>>> pairs(const Value& v, int col, const std::string& what) {
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

  const std::optional<Tensor>& x_;
  const Defaults& defaults_;
};

}  // namespace

}  // namespace tensor_inspect::expr

namespace tensor_inspect {

Tensor evaluate_expression(std::string_view expr, const std::optional<Tensor>& x, const Defaults& defaults) {
  expr::NodePtr tree = expr::parse(expr);
  expr::Evaluator ev(x, defaults);
  expr::Value v = ev.eval(*tree);
  if (v.kind == expr::Value::Kind::Tensor) return *v.tensor;
  if (v.kind == expr::Value::Kind::Scalar) return tg::from_values({v.num}, {}, std::nullopt, defaults);
  expr::fail(1, "the expression gives a " + expr::type_name(v) + ", not a Tensor");
}

}  // namespace tensor_inspect
