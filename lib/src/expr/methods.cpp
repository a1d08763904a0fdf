// The table of Tensor methods: each name bound to the frontend function with tinygrad's
// signature (argument names, defaults, variadic shapes).
#include <algorithm>
#include <map>

#include "expr/bindings.hpp"
#include "tensor_inspect/frontend.hpp"

namespace tensor_inspect::expr {

namespace {

using Fn = MethodFn;

// ---- shapes of bindings shared by many methods

template <Tensor (*F)(const Tensor&)>
Value unary(const MethodCall& c) {
  c.args.bind({});
  return Value::of(F(c.t));
}

template <Tensor (*F)(const Tensor&, const Defaults&)>
Value unary_float(const MethodCall& c) {
  c.args.bind({});
  return Value::of(F(c.t, c.defaults));
}

tg::Operand operand(const MethodCall& c) {
  auto p = c.args.bind({"x"}, 1);
  return to_operand(*p[0], c.args.col(), c.args.fname() + "()");
}

template <Tensor (*F)(const tg::Operand&, const tg::Operand&)>
Value binary(const MethodCall& c) {
  return Value::of(F(c.t, operand(c)));
}

template <Tensor (*F)(const tg::Operand&, const tg::Operand&, const Defaults&)>
Value binary_float(const MethodCall& c) {
  return Value::of(F(c.t, operand(c), c.defaults));
}

template <Tensor (*F)(const Tensor&, const Shape&)>
Value shaped(const MethodCall& c) {  // reshape(2, 3) or reshape((2, 3))
  c.args.keywords({});
  return Value::of(F(c.t, shape_from(c.args.positional(), c.args.col(), c.args.fname())));
}

template <Tensor (*F)(const Tensor&, const std::optional<std::vector<std::int64_t>>&, bool)>
Value reduction(const MethodCall& c) {
  auto p = c.args.bind({"axis", "keepdim"});
  bool keep = p[1] ? to_bool(*p[1], c.args.col(), "keepdim") : false;
  return Value::of(F(c.t, to_axes(p[0], c.args.col()), keep));
}

template <DType D>
Value cast_to(const MethodCall& c) {  // x.float(), x.half(), ...
  c.args.bind({});
  return Value::of(tg::cast(c.t, D));
}

std::optional<std::int64_t> optional_int(const std::optional<Value>& v, int col, const std::string& what) {
  if (!v || v->kind == Value::Kind::None) return std::nullopt;
  return to_int(*v, col, what);
}

// ---- movement

Value flip(const MethodCall& c) {
  int col = c.args.col();
  if (c.args.positional().empty()) {
    auto p = c.args.bind({"axis"}, 1);
    return Value::of(tg::flip(c.t, to_ints(*p[0], col, "flip() axis")));
  }
  c.args.keywords({});
  return Value::of(tg::flip(c.t, shape_from(c.args.positional(), col, "flip")));
}

Value transpose(const MethodCall& c) {
  int col = c.args.col();
  auto p = c.args.bind({"dim0", "dim1"});
  std::int64_t a = p[0] ? to_int(*p[0], col, "transpose() dim0") : 1,
               b = p[1] ? to_int(*p[1], col, "transpose() dim1") : 0;
  return Value::of(tg::transpose(c.t, a, b));
}

Value flatten(const MethodCall& c) {
  int col = c.args.col();
  auto p = c.args.bind({"start_dim", "end_dim"});
  return Value::of(
      tg::flatten(c.t, p[0] ? to_int(*p[0], col, "start_dim") : 0, p[1] ? to_int(*p[1], col, "end_dim") : -1));
}

Value unflatten(const MethodCall& c) {
  int col = c.args.col();
  auto p = c.args.bind({"dim", "sizes"}, 2);
  return Value::of(tg::unflatten(c.t, to_int(*p[0], col, "dim"), to_ints(*p[1], col, "sizes")));
}

Value squeeze(const MethodCall& c) {
  auto p = c.args.bind({"dim"});
  return Value::of(tg::squeeze(c.t, optional_int(p[0], c.args.col(), "dim")));
}

Value unsqueeze(const MethodCall& c) {
  auto p = c.args.bind({"dim"}, 1);
  return Value::of(tg::unsqueeze(c.t, to_int(*p[0], c.args.col(), "dim")));
}

Value shrink(const MethodCall& c) {
  auto p = c.args.bind({"arg"}, 1);
  return Value::of(tg::shrink(c.t, to_pairs(*p[0], c.args.col(), "shrink")));
}

Value pad(const MethodCall& c) {
  int col = c.args.col();
  auto p = c.args.bind({"padding", "mode", "value"}, 1);
  if (p[1] && !(p[1]->kind == Value::Kind::String && p[1]->text == "constant"))
    fail(col, "pad(): only mode='constant' is supported");
  Scalar value = p[2] ? to_number(*p[2], col, "pad() value") : Scalar::from_int(0);
  const Value& padding = *p[0];
  if (!padding.is_seq()) fail(col, "pad() padding must be a tuple, got " + type_name(padding));
  bool flat = std::all_of(padding.items.begin(), padding.items.end(), [](const Value& v) { return v.is_int(); });
  if (flat && !padding.items.empty()) return Value::of(tg::pad_flat(c.t, to_ints(padding, col, "padding"), value));
  return Value::of(tg::pad(c.t, to_pairs(padding, col, "pad"), value));
}

Value cat_or_stack(const MethodCall& c) {
  const std::string& name = c.args.fname();
  int col = c.args.col();
  auto p = c.args.keywords({"dim"});
  std::vector<Tensor> ts{c.t};
  for (const Value& v : c.args.positional()) ts.push_back(to_tensor_arg(v, col, name + "() arguments"));
  const std::int64_t dim = p[0] ? to_int(*p[0], col, name + "() dim") : 0;
  return Value::of(name == "stack" ? tg::stack(ts, dim) : tg::cat(ts, dim));
}

// ---- realization and sizes

Value contiguous(const MethodCall& c) { c.args.bind({}); return Value::of(tg::contiguous(c.t)); }
Value realize(const MethodCall& c) { c.args.bind({}); return Value::of(c.t.realize()); }
Value numel(const MethodCall& c) { c.args.bind({}); return Value::scalar(Scalar::from_int(c.t.numel())); }
Value dim(const MethodCall& c) {
  c.args.bind({});
  return Value::scalar(Scalar::from_int(static_cast<std::int64_t>(c.t.ndim())));
}

Value size(const MethodCall& c) {
  int col = c.args.col();
  auto p = c.args.bind({"dim"});
  if (!p[0]) return Value::ints(c.t.shape());
  std::int64_t d = tg::resolve_dim(to_int(*p[0], col, "dim"), static_cast<std::int64_t>(c.t.ndim()));
  if (c.t.ndim() == 0) fail(col, "size() of a 0-d tensor has no dims");
  return Value::scalar(Scalar::from_int(c.t.shape()[static_cast<std::size_t>(d)]));
}

// ---- dtype

Value cast(const MethodCall& c) {
  auto p = c.args.bind({"dtype"}, 1);
  DType d = *to_dtype(p[0], c.args.col());
  return Value::of(c.args.fname() == "cast" ? tg::cast(c.t, d) : tg::bitcast(c.t, d));
}

// ---- reductions

Value mean(const MethodCall& c) {
  auto p = c.args.bind({"axis", "keepdim"});
  bool keep = p[1] ? to_bool(*p[1], c.args.col(), "keepdim") : false;
  return Value::of(tg::mean(c.t, to_axes(p[0], c.args.col()), keep, c.defaults));
}

Value var_or_std(const MethodCall& c) {
  int col = c.args.col();
  auto p = c.args.bind({"axis", "keepdim", "correction"});
  auto axes = to_axes(p[0], col);
  bool keep = p[1] ? to_bool(*p[1], col, "keepdim") : false;
  double corr = p[2] ? to_number(*p[2], col, "correction").as_double() : 1.0;
  return Value::of(c.args.fname() == "var" ? tg::var(c.t, axes, keep, corr, c.defaults)
                                           : tg::std_dev(c.t, axes, keep, corr, c.defaults));
}

Value isinf(const MethodCall& c) {
  int col = c.args.col();
  auto p = c.args.bind({"detect_positive", "detect_negative"});
  bool pos = p[0] ? to_bool(*p[0], col, "detect_positive") : true;
  bool neg = p[1] ? to_bool(*p[1], col, "detect_negative") : true;
  return Value::of(tg::isinf(c.t, pos, neg));
}

Value tril(const MethodCall& c) {
  const std::string& name = c.args.fname();
  auto p = c.args.bind({"diagonal"});
  return Value::of(tg::tril(c.t, p[0] ? to_int(*p[0], c.args.col(), name + "() diagonal") : 0, name == "triu"));
}

Value cumsum(const MethodCall& c) {
  auto p = c.args.bind({"axis"});
  return Value::of(tg::cumsum(c.t, p[0] ? to_int(*p[0], c.args.col(), "axis") : 0));
}

Value softmax(const MethodCall& c) {
  auto p = c.args.bind({"axis"});
  std::int64_t axis = p[0] ? to_int(*p[0], c.args.col(), "axis") : -1;
  return Value::of(c.args.fname() == "softmax" ? tg::softmax(c.t, axis, c.defaults)
                                               : tg::log_softmax(c.t, axis, c.defaults));
}

Value argmax(const MethodCall& c) {
  int col = c.args.col();
  auto p = c.args.bind({"axis", "keepdim"});
  std::optional<std::int64_t> axis = optional_int(p[0], col, "axis");
  bool keep = p[1] ? to_bool(*p[1], col, "keepdim") : false;
  return Value::of(c.args.fname() == "argmax" ? tg::argmax(c.t, axis, keep) : tg::argmin(c.t, axis, keep));
}

Value matmul(const MethodCall& c) {
  auto p = c.args.bind({"x"}, 1);
  return Value::of(tg::matmul(c.t, to_tensor_arg(*p[0], c.args.col(), c.args.fname() + "() argument")));
}

// ---- element-wise with several arguments

Value where(const MethodCall& c) {
  int col = c.args.col();
  auto p = c.args.bind({"x", "y"}, 2);
  return Value::of(tg::where(c.t, to_operand(*p[0], col, "where()"), to_operand(*p[1], col, "where()")));
}

Value clip(const MethodCall& c) {
  int col = c.args.col();
  auto p = c.args.bind({"min_", "max_"});
  std::optional<tg::Operand> lo, hi;
  if (p[0] && p[0]->kind != Value::Kind::None) lo = to_operand(*p[0], col, "clip()");
  if (p[1] && p[1]->kind != Value::Kind::None) hi = to_operand(*p[1], col, "clip()");
  if (!lo && !hi) fail(col, "clip() needs at least one of min_ and max_");
  return Value::of(tg::clip(c.t, lo, hi));
}

// ---- like-constructors

Value ones_like(const MethodCall& c) {
  auto p = c.args.bind({"dtype"});
  std::optional<DType> d = to_dtype(p[0], c.args.col());
  return Value::of(
      tg::full(c.t.shape(), Scalar::from_int(c.args.fname() == "ones_like" ? 1 : 0), d ? *d : c.t.dtype()));
}

Value full_like(const MethodCall& c) {
  auto p = c.args.bind({"fill_value", "dtype"}, 1);
  std::optional<DType> d = to_dtype(p[1], c.args.col());
  return Value::of(tg::full(c.t.shape(), to_number(*p[0], c.args.col(), "fill_value"), d ? *d : c.t.dtype()));
}

const std::map<std::string_view, Fn, std::less<>>& table() {
  static const std::map<std::string_view, Fn, std::less<>> kMethods = {
      // movement
      {"reshape", shaped<tg::reshape>},
      {"view", shaped<tg::reshape>},
      {"permute", shaped<tg::permute>},
      {"repeat", shaped<tg::repeat>},
      {"expand", shaped<tg::expand>},
      {"flip", flip},
      {"transpose", transpose},
      {"flatten", flatten},
      {"unflatten", unflatten},
      {"squeeze", squeeze},
      {"unsqueeze", unsqueeze},
      {"shrink", shrink},
      {"pad", pad},
      {"cat", cat_or_stack},
      {"stack", cat_or_stack},
      // realization and sizes
      {"contiguous", contiguous},
      {"clone", contiguous},  // tinygrad's clone(): a new tensor with the same values
      {"realize", realize},
      {"numel", numel},
      {"size", size},
      {"dim", dim},
      // dtype
      {"cast", cast},
      {"bitcast", cast},
      {"float", cast_to<DType::Float32>},
      {"half", cast_to<DType::Float16>},
      {"double", cast_to<DType::Float64>},
      {"int", cast_to<DType::Int32>},
      {"long", cast_to<DType::Int64>},
      {"bool", cast_to<DType::Bool>},
      {"short", cast_to<DType::Int16>},
      {"bfloat16", cast_to<DType::BFloat16>},
      // reductions
      {"sum", reduction<tg::sum>},
      {"prod", reduction<tg::prod>},
      {"max", reduction<tg::max>},
      {"min", reduction<tg::min>},
      {"any", reduction<tg::any>},
      {"all", reduction<tg::all>},
      {"mean", mean},
      {"var", var_or_std},
      {"std", var_or_std},
      {"tril", tril},
      {"triu", tril},
      {"cumsum", cumsum},
      {"softmax", softmax},
      {"log_softmax", softmax},
      {"argmax", argmax},
      {"argmin", argmax},
      {"matmul", matmul},
      {"dot", matmul},
      // element-wise binary
      {"add", binary<tg::add>},
      {"sub", binary<tg::sub>},
      {"mul", binary<tg::mul>},
      {"div", binary_float<tg::div>},
      {"idiv", binary_float<tg::floordiv>},
      {"pow", binary<tg::pow>},
      {"maximum", binary<tg::maximum>},
      {"minimum", binary<tg::minimum>},
      {"eq", binary<tg::cmp_eq>},
      {"ne", binary<tg::cmp_ne>},
      {"lt", binary<tg::cmp_lt>},
      {"gt", binary<tg::cmp_gt>},
      {"where", where},
      {"clip", clip},
      {"clamp", clip},
      // element-wise unary
      {"neg", unary<tg::neg>},
      {"abs", unary<tg::abs>},
      {"relu", unary<tg::relu>},
      {"logical_not", unary<tg::logical_not>},
      {"floor", unary<tg::floor>},
      {"ceil", unary<tg::ceil>},
      {"trunc", unary<tg::trunc>},
      {"round", unary<tg::round>},
      {"sign", unary<tg::sign>},
      {"square", unary<tg::square>},
      {"isnan", unary<tg::isnan>},
      {"isinf", isinf},
      {"isfinite", unary<tg::isfinite>},
      {"exp", unary_float<tg::exp>},
      {"exp2", unary_float<tg::exp2>},
      {"log", unary_float<tg::log>},
      {"log2", unary_float<tg::log2>},
      {"sqrt", unary_float<tg::sqrt>},
      {"rsqrt", unary_float<tg::rsqrt>},
      {"sin", unary_float<tg::sin>},
      {"cos", unary_float<tg::cos>},
      {"tan", unary_float<tg::tan>},
      {"tanh", unary_float<tg::tanh>},
      {"sigmoid", unary_float<tg::sigmoid>},
      {"reciprocal", unary_float<tg::reciprocal>},
      // like-constructors
      {"ones_like", ones_like},
      {"zeros_like", ones_like},
      {"full_like", full_like},
  };
  return kMethods;
}

}  // namespace

MethodFn find_method(std::string_view name) {
  auto it = table().find(name);
  return it == table().end() ? nullptr : it->second;
}

}  // namespace tensor_inspect::expr
