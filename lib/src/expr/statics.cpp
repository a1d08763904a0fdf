// Tensor's constructor and static methods (Tensor([...]), Tensor.arange, ones, eye, ...)
// and the Python builtins float, int, bool and abs.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "expr/bindings.hpp"
#include "expr/scalar_ops.hpp"
#include "tensor_inspect/frontend.hpp"
#include "tensor_inspect/literal.hpp"

namespace tensor_inspect::expr {

Value call_builtin(std::string_view fname, const Args& args) {
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
    if (!std::isfinite(s.f) || std::fabs(s.f) >= 9.2e18)
      fail(col, "cannot convert float " + std::to_string(s.f) + " to integer");
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
  return fold_unary(fold_binary("<", v, Value::scalar(Scalar::from_int(0)), col).num.b ? "-" : "+", v, col);
}

// Tensor(data, dtype=None)
Value construct(const Args& args, const Defaults& defaults) {
  auto p = args.bind({"data", "dtype", "device", "requires_grad"}, 1);
  std::optional<DType> dtype = to_dtype(p[1], args.col());
  const Value& data = *p[0];
  if (data.kind == Value::Kind::Tensor) return Value::of(dtype ? tg::cast(*data.tensor, *dtype) : *data.tensor);
  // Tensor(None) is what the literal None gives (a 0-d float 0.0, conformance weak_infer/
  // none_literal): one rule for both ways in.
  if (data.kind == Value::Kind::None) return Value::of(tensor_from_literal("None", dtype, defaults));
  Shape shape;
  std::vector<Scalar> leaves;
  flatten_values(data, 0, shape, leaves, args.col());
  return Value::of(tg::from_values(leaves, shape, dtype, defaults));
}

Value call_static(std::string_view name_view, const Args& args, const Defaults& defaults) {
  const std::string name(name_view);
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
    return Value::of(tg::arange(start, stop, step, to_dtype(p[3], col), defaults));
  }
  if (name == "ones" || name == "zeros" || name == "empty") {
    auto kw = args.keywords({"dtype", "device", "requires_grad"});
    Shape s = shape_from(pos, col, name);
    std::optional<DType> d = to_dtype(kw[0], col);
    return Value::of(name == "ones" ? tg::ones(s, d, defaults) : tg::zeros(s, d, defaults));
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
    return Value::of(tg::eye(to_int(*p[0], col, "eye() n"), m, to_dtype(p[2], col), defaults));
  }
  if (name == "linspace") {
    auto p = args.bind({"start", "stop", "steps", "dtype", "device", "requires_grad"}, 3);
    return Value::of(tg::linspace(to_number(*p[0], col, "linspace() start"), to_number(*p[1], col, "linspace() stop"),
                                  to_int(*p[2], col, "linspace() steps"), to_dtype(p[3], col), defaults));
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
    MethodFn f = find_method(name);
    if (f == nullptr) fail(col, "unknown method 'Tensor." + name + "'");
    Args unbound(name, col, std::vector<Value>(pos.begin() + 1, pos.end()), {});
    return f(MethodCall{*pos[0].tensor, unbound, defaults});
  }
  fail(col, "unknown method 'Tensor." + name + "'");
}

}  // namespace tensor_inspect::expr
