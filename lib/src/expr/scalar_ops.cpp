// Python scalar arithmetic: what CPython gives for ints, floats and bools, with 64-bit ints.
#include "expr/scalar_ops.hpp"

#include <cmath>
#include <limits>

#include "expr/ast.hpp"

namespace tensor_inspect::expr {

namespace {

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

}  // namespace

std::int64_t as_i64(const Scalar& s, int col) {
  if (s.kind == DKind::Bool) return s.b ? 1 : 0;
  if (s.kind == DKind::Signed) return s.i;
  if (s.kind == DKind::Unsigned) fail(col, "integer " + std::to_string(s.u) + " is too large for this operation");
  fail(col, "'float' object cannot be interpreted as an integer");
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

Scalar scalar_unary(const std::string& op, const Scalar& s, int col) {
  if (op == "+") return s.kind == DKind::Bool ? Scalar::from_int(s.b) : s;
  if (op == "-") {
    if (s.kind == DKind::Float) return Scalar::from_float(-s.f);
    if (s.kind == DKind::Unsigned) {
      if (s.u == std::uint64_t{1} << 63) return Scalar::from_int(std::numeric_limits<std::int64_t>::min());
      fail(col, "integer " + std::to_string(s.u) + " is too large for this operation");
    }
    std::int64_t x = as_i64(s, col);
    if (x == std::numeric_limits<std::int64_t>::min()) fail(col, "integer result is out of the 64-bit range");
    return Scalar::from_int(-x);
  }
  if (s.kind == DKind::Float) fail(col, "bad operand type for unary ~: 'float'");
  return Scalar::from_int(~as_i64(s, col));
}

}  // namespace tensor_inspect::expr
