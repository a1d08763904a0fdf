// Evaluates a parse tree: names, attributes, indexing and operators here; Python scalar
// arithmetic in scalar_ops.cpp; calls through the binding tables (methods.cpp, statics.cpp)
// into tinygrad's semantics (frontend.hpp).
#include <chrono>
#include <limits>
#include <numbers>

#include "log/log.hpp"

#include "expr/ast.hpp"
#include "expr/bindings.hpp"
#include "expr/scalar_ops.hpp"
#include "expr/value_compare.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/expr.hpp"
#include "tensor_inspect/frontend.hpp"

namespace tensor_inspect::expr {

namespace {

class Evaluator {
 public:
  Evaluator(const std::optional<Tensor>& x, const Defaults& defaults) : x_(x), defaults_(defaults) {}

  Value eval(const Node& n) {
    try {
      return eval_node(n);
    } catch (const Error& e) {
      std::string what = e.what();
      if (what.rfind("expression:", 0) == 0) throw;
      throw Error(e.code(), "expression: column " + std::to_string(n.col) + ": " + what, e.place());
    }
  }

 private:
  Value eval_node(const Node& n) {
    switch (n.kind) {
      case Node::Kind::Number: return n.value.wide ? exact_int(n.value.as_wide(), n.col) : Value::scalar(n.value);
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
      if (auto d = dtype_from_name(a)) return Value::of_dtype(*d);
      if (a == "default_float") return Value::of_dtype(defaults_.float_dtype);
      if (a == "default_int") return Value::of_dtype(defaults_.int_dtype);
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
      if (a == "T") {  // tinygrad's T is transpose(): dims 1 and 0, so at least 2 dims
        if (t.ndim() < 2)
          throw Error(ErrorCode::BadShape,
                      "T (transpose(1, 0)) of shape " + shape_repr(t.shape()) +
                          (t.ndim() == 0 ? ": a 0-d tensor has no dims to swap"
                                         : ": a 1-d tensor has no dim 1 (x.reshape(-1, 1) is a column)"));
        return Value::of(tg::transpose(t));
      }
      if (a == "mT") {  // the last two axes swapped (tinygrad's Tensor.mT)
        if (t.ndim() < 2) fail(n.col, "mT needs at least 2 dimensions, got shape " + shape_repr(t.shape()));
        return Value::of(tg::transpose(t, -2, -1));
      }
      if (a == "shape") return Value::ints(t.shape());
      if (a == "ndim") return Value::scalar(Scalar::from_int(static_cast<std::int64_t>(t.ndim())));
      if (a == "dtype") return Value::of_dtype(t.dtype());
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
      } else if (v.kind == Value::Kind::Tensor || v.is_seq() ||
                 (v.kind == Value::Kind::Scalar && v.num.kind == DKind::Bool)) {
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
    if (op == "not") return logical_not(v, n.col);
    if (is_number(v)) return fold_unary(op, v, n.col);
    if (v.kind != Value::Kind::Tensor) fail(n.col, "bad operand type for unary " + op + ": '" + type_name(v) + "'");
    if (op == "+") return v;
    if (op == "-") return Value::of(tg::neg(*v.tensor));
    return Value::of(tg::invert(*v.tensor));
  }

  // Python's `not`: a number's or None's falsiness. A tensor has no truth value in tinygrad
  // (Tensor.__bool__ raises TypeError, tinygrad/tensor.py); here `not t` is t.logical_not()
  // (elementwise, bool), so that `--assert 'not x.isnan().any()'` reads as it would in prose.
  Value logical_not(const Value& v, int col) {
    if (v.kind == Value::Kind::Tensor) return Value::of(tg::logical_not(*v.tensor));
    if (v.kind == Value::Kind::None) return Value::scalar(Scalar::from_bool(true));
    if (v.kind == Value::Kind::BigInt) return Value::scalar(Scalar::from_bool(false));  // out of 64 bits: nonzero
    if (v.kind == Value::Kind::Scalar) return Value::scalar(Scalar::from_bool(!v.num.as_bool()));
    fail(col, "'not' of " + type_name(v) + " is not supported (use it on a number or a tensor)");
  }

  Value binary(const Node& n) {
    Value a = eval(*n.kids[0]);
    Value b = eval(*n.kids[1]);
    const std::string& op = n.text;
    if (is_number(a) && is_number(b)) return fold_binary(op, a, b, n.col);
    // Python's comparisons of tuples, dtypes, None, ...: `x.shape == (3, 4)` is a bool.
    if (is_value_comparison(op, a, b)) return compare_values(op, a, b, n.col);
    if (a.kind != Value::Kind::Tensor && b.kind != Value::Kind::Tensor)
      fail(n.col, "unsupported operand type(s) for " + op + ": '" + type_name(a) + "' and '" + type_name(b) + "'");
    if (op == "@")
      return Value::of(
          tg::matmul(to_tensor_arg(a, n.col, "left operand of @"), to_tensor_arg(b, n.col, "right operand of @")));
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
      for (std::size_t k = 0; k < n.keywords.size(); ++k)
        kw.emplace_back(n.keywords[k], eval(*n.kids[1 + n.positional + k]));
    };
    if (callee.kind == Node::Kind::Attribute) {
      Value obj = eval(*callee.kids[0]);
      eval_args();
      Args args(callee.text, callee.col, std::move(pos), std::move(kw));
      if (obj.kind == Value::Kind::Tensor) {
        MethodFn f = find_method(callee.text);
        if (f == nullptr) fail(callee.col, "unknown method '" + callee.text + "' of Tensor");
        return f(MethodCall{*obj.tensor, args, defaults_});
      }
      if (obj.kind == Value::Kind::Module && obj.text == "Tensor") return call_static(callee.text, args, defaults_);
      fail(callee.col, "'" + type_name(obj) + "' object has no method '" + callee.text + "'");
    }
    Value f = eval(callee);
    eval_args();
    std::string fname = callee.kind == Node::Kind::Name ? callee.text : type_name(f);
    Args args(fname, callee.col, std::move(pos), std::move(kw));
    if (f.kind == Value::Kind::Module && f.text == "Tensor") return construct(args, defaults_);
    if (f.kind == Value::Kind::Builtin) return call_builtin(f.text, args);
    fail(callee.col, "'" + type_name(f) + "' object is not callable");
  }

  const std::optional<Tensor>& x_;
  const Defaults& defaults_;
};

}  // namespace

}  // namespace tensor_inspect::expr

namespace tensor_inspect {

Tensor evaluate_expression(std::string_view expr, const std::optional<Tensor>& x, const Defaults& defaults) {
  const auto start = std::chrono::steady_clock::now();
  expr::NodePtr tree = expr::parse(expr);
  expr::Evaluator ev(x, defaults);
  expr::Value v = ev.eval(*tree);
  lib_log().debug("expression: parsed and built in {:.3f} ms: {}",
                  std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(),
                  v.kind == expr::Value::Kind::Tensor
                      ? std::string(dtype_info(v.tensor->dtype()).name) + " " + shape_repr(v.tensor->shape())
                      : expr::type_name(v));
  if (v.kind == expr::Value::Kind::Tensor) return tg::fold_upcast_lanes(tg::fold_upcast_self_ops(*v.tensor));
  if (v.kind == expr::Value::Kind::Scalar) return tg::from_values({v.num}, {}, std::nullopt, defaults);
  if (v.kind == expr::Value::Kind::BigInt) expr::fail_big(v, 1);
  expr::fail(1, "the expression gives a " + expr::type_name(v) + ", not a Tensor");
}

}  // namespace tensor_inspect
