// tinygrad's constructors: Tensor(...), arange, full, ones, zeros, eye, linspace. Values
// are produced inside the loop that reads them, so nothing is allocated up front.
#include <cmath>
#include <limits>
#include <cstdio>
#include <string>

#include "internal.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect::tg {

using namespace detail;

namespace {

__extension__ using Int = __int128;

Int wide_int(const Scalar& s) {
  if (s.kind == DKind::Bool) return s.b ? 1 : 0;
  if (s.kind == DKind::Unsigned) return static_cast<Int>(s.u);
  return static_cast<Int>(s.i);
}

std::string int_text(Int v) {
  if (v == 0) return "0";
  std::string out;
  for (Int x = v < 0 ? -v : v; x > 0; x /= 10)
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(x % 10)));
  return v < 0 ? "-" + out : out;
}

// The error for an arange longer than max_elements(), naming the length it would have.
[[noreturn]] void too_many_elements(const std::string& count) {
  throw limit_error("expression_elements", "arange: shape (" + count + ",) has more than " +
                                               std::to_string(max_elements()) + " elements" +
                                               limit_hint("expression_elements"));
}

}  // namespace

namespace {
// A float's exact value as text (a producer's key).
std::string hex_text(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}
}  // namespace

// -------------------------------------------------------------------------- constructors

Tensor arange(Scalar start, Scalar stop, Scalar step, std::optional<DType> dtype, const Defaults& defaults) {
  bool any_float = start.kind == DKind::Float || stop.kind == DKind::Float || step.kind == DKind::Float;
  DType d = dtype ? *dtype : (any_float ? defaults.float_dtype : defaults.int_dtype);
  if (is_weak(d)) d = commit_dtype(d, defaults);
  double s0 = start.as_double(), s1 = stop.as_double(), st = step.as_double();
  if (st == 0.0) expr_error("arange: step cannot be 0");
  if (!std::isfinite(s0) || !std::isfinite(s1) || !std::isfinite(st)) expr_error("arange: arguments must be finite");
  std::int64_t n;
  if (!any_float) {
    // Python ints reach 2**64 - 1 here; counts and values are exact in 128 bits.
    Int a = wide_int(start), b = wide_int(stop), c = wide_int(step);
    Int count = c > 0 ? (b > a ? (b - a - 1) / c + 1 : 0) : (a > b ? (a - b - 1) / (-c) + 1 : 0);
    if (count > max_elements()) too_many_elements(int_text(count));
    n = static_cast<std::int64_t>(count);
    return produced(
        {n}, d, "arange",
        [a, c](std::int64_t i) {
          Int v = a + static_cast<Int>(i) * c;  // between start and stop
          return v <= std::numeric_limits<std::int64_t>::max() ? Scalar::from_int(static_cast<std::int64_t>(v))
                                                               : Scalar::from_uint(static_cast<std::uint64_t>(v));
        },
        "arange int " + int_text(a) + " " + int_text(c) + " " + std::to_string(n));
  }
  double len = std::ceil((s1 - s0) / st);
  if (len > static_cast<double>(max_elements()))
    too_many_elements(len < 9.2e18 ? std::to_string(static_cast<std::int64_t>(len)) : "more than 9.2e18");
  n = len <= 0 ? 0 : static_cast<std::int64_t>(len);
  check_shape({n}, "arange");
  if (is_float(d) && dtype_info(d).itemsize <= 4) {
    // tinygrad computes start + i*step in the float32 dtype, each step rounded.
    float f0 = static_cast<float>(s0), fs = static_cast<float>(st);
    return produced(
        {n}, d, "arange",
        [f0, fs](std::int64_t i) {
          float v = f0 + static_cast<float>(i) * fs;
          return Scalar::from_float(static_cast<double>(v));
        },
        "arange f32 " + hex_text(f0) + " " + hex_text(fs) + " " + std::to_string(n));
  }
  return produced(
      {n}, d, "arange", [s0, st](std::int64_t i) { return Scalar::from_float(s0 + static_cast<double>(i) * st); },
      "arange f64 " + hex_text(s0) + " " + hex_text(st) + " " + std::to_string(n));
}

Tensor full(const Shape& shape, const Scalar& value, std::optional<DType> dtype) {
  check_shape(shape, "full");
  DType d = dtype ? *dtype : python_dtype(value);
  // tinygrad's Tensor.full stores its value in a buffer of its own (mixin/creation.py,
  // buffer=True): an int wraps there, unlike a 0-d Tensor's CONST, and no rewrite sees a
  // constant in it (Tensor.zeros(2) * inf is nan, not 0; its sum is a loop, not 0 * n).
  // A producer without a key is that: made where it is read, one node per call.
  const Scalar stored = cast_scalar(value, d);
  return produced(shape, d, "full", [stored](std::int64_t) { return stored; });
}

Tensor ones(const Shape& shape, std::optional<DType> dtype, const Defaults& defaults) {
  return full(shape, Scalar::from_int(1), dtype ? *dtype : defaults.float_dtype);
}

Tensor zeros(const Shape& shape, std::optional<DType> dtype, const Defaults& defaults) {
  return full(shape, Scalar::from_int(0), dtype ? *dtype : defaults.float_dtype);
}

Tensor eye(std::int64_t n, std::optional<std::int64_t> m, std::optional<DType> dtype, const Defaults& defaults) {
  std::int64_t cols = m ? *m : n;
  if (n < 0 || cols < 0) shape_error("eye: negative size " + std::to_string(n < 0 ? n : cols));
  DType d = dtype ? *dtype : defaults.float_dtype;
  return produced(
      {n, cols}, d, "eye", [cols](std::int64_t i) { return Scalar::from_int(i / cols == i % cols ? 1 : 0); },
      "eye " + std::to_string(n) + " " + std::to_string(cols));
}

Tensor linspace(Scalar start, Scalar stop, std::int64_t steps, std::optional<DType> dtype, const Defaults& defaults) {
  if (steps < 0) shape_error("linspace: number of steps must be non-negative, got " + std::to_string(steps));
  DType d = dtype ? *dtype : defaults.float_dtype;
  double a = start.as_double(), b = stop.as_double();
  double delta = steps > 1 ? (b - a) / static_cast<double>(steps - 1) : 0.0;
  return produced(
      {steps}, d, "linspace",
      [a, delta](std::int64_t i) { return Scalar::from_float(a + static_cast<double>(i) * delta); },
      "linspace " + hex_text(a) + " " + hex_text(delta) + " " + std::to_string(steps));
}

Tensor from_values(const std::vector<Scalar>& values, const Shape& shape, std::optional<DType> dtype,
                   const Defaults& defaults) {
  check_shape(shape, "Tensor");
  if (shape.empty() && values.size() == 1) return Tensor::full({}, values[0], dtype ? *dtype : python_dtype(values[0]));
  DType d = DType::Bool;
  if (dtype) {
    d = *dtype;
  } else if (values.empty()) {
    d = defaults.float_dtype;
  } else {
    bool any_float = false, any_int = false;
    for (const Scalar& v : values) {
      any_float = any_float || v.kind == DKind::Float;
      any_int = any_int || v.kind == DKind::Signed || v.kind == DKind::Unsigned;
    }
    d = any_float ? defaults.float_dtype : any_int ? defaults.int_dtype : DType::Bool;
  }
  return produced(shape, d, "Tensor", [values](std::int64_t i) { return values[uz(i)]; });
}

}  // namespace tensor_inspect::tg
