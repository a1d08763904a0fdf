// Python scalar arithmetic: what CPython gives for ints, floats and bools. Python ints are
// unbounded; here an int is anything a Scalar holds (int64, or uint64 above it), and every
// int operation is computed exactly in 128 bits and then range-checked, so no C++ overflow,
// oversized shift or INT_MIN / -1 can happen, whatever the operands.
#include "expr/scalar_ops.hpp"

#include <cmath>
#include <limits>

#include "expr/ast.hpp"

namespace tensor_inspect::expr {

namespace {

__extension__ using Int = __int128;  // holds every sum of two Python ints here; products are checked

constexpr Int kMinInt = std::numeric_limits<std::int64_t>::min();
constexpr Int kMaxInt = std::numeric_limits<std::uint64_t>::max();

[[noreturn]] void out_of_range(int col) { fail(col, "integer result is out of the 64-bit range"); }

bool is_int(const Scalar& s) { return s.kind == DKind::Bool || s.kind == DKind::Signed || s.kind == DKind::Unsigned; }

Int wide(const Scalar& s) {
  if (s.kind == DKind::Bool) return s.b ? 1 : 0;
  if (s.kind == DKind::Unsigned) return static_cast<Int>(s.u);
  return static_cast<Int>(s.i);
}

// An exact int result as a Scalar: Signed within int64, Unsigned above it up to 2**64 - 1.
Scalar narrow(Int r, int col) {
  if (r < kMinInt || r > kMaxInt) out_of_range(col);
  if (r > static_cast<Int>(std::numeric_limits<std::int64_t>::max())) return Scalar::from_uint(static_cast<std::uint64_t>(r));
  return Scalar::from_int(static_cast<std::int64_t>(r));
}

Int multiply(Int x, Int y, int col) {
  Int r = 0;
  if (__builtin_mul_overflow(x, y, &r) || r < kMinInt || r > kMaxInt) out_of_range(col);
  return r;
}

// Python's floor division and modulo (the remainder takes the divisor's sign); y != 0.
Int floor_div(Int x, Int y) {
  Int q = x / y;
  if (x % y != 0 && ((x < 0) != (y < 0))) --q;
  return q;
}
Int floor_mod(Int x, Int y) {
  Int r = x % y;
  if (r != 0 && ((r < 0) != (y < 0))) r += y;
  return r;
}

bool compare(const std::string& op, const Scalar& a, const Scalar& b) {
  if (is_int(a) && is_int(b)) {
    Int x = wide(a), y = wide(b);
    return op == "<" ? x < y : op == "<=" ? x <= y : op == ">" ? x > y : op == ">=" ? x >= y : op == "==" ? x == y : x != y;
  }
  double x = a.as_double(), y = b.as_double();
  return op == "<" ? x < y : op == "<=" ? x <= y : op == ">" ? x > y : op == ">=" ? x >= y : op == "==" ? x == y : x != y;
}

Scalar bitwise(const std::string& op, const Scalar& a, const Scalar& b, int col) {
  if (a.kind == DKind::Float || b.kind == DKind::Float) fail(col, "unsupported operand type(s) for " + op + ": 'float'");
  if (a.kind == DKind::Bool && b.kind == DKind::Bool && op != "<<" && op != ">>")
    return Scalar::from_bool(op == "&" ? (a.b && b.b) : op == "|" ? (a.b || b.b) : (a.b != b.b));
  // Two's complement in 128 bits is Python's infinite two's complement for these operands.
  Int x = wide(a), y = wide(b);
  if (op == "&") return narrow(x & y, col);
  if (op == "|") return narrow(x | y, col);
  if (op == "^") return narrow(x ^ y, col);
  if (y < 0) fail(col, "negative shift count");
  if (op == ">>") return narrow(y >= 127 ? (x < 0 ? -1 : 0) : x >> static_cast<int>(y), col);
  if (x == 0) return Scalar::from_int(0);
  if (y > 64) out_of_range(col);  // |x| >= 1, so the result is at least 2**65
  return narrow(multiply(x, Int{1} << static_cast<int>(y), col), col);
}

Scalar float_arith(const std::string& op, double x, double y, int col) {
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
  fail(col, "unsupported operand type(s) for " + op + ": 'float'");
}

Scalar int_arith(const std::string& op, Int x, Int y, int col) {
  if (op == "+") return narrow(x + y, col);
  if (op == "-") return narrow(x - y, col);
  if (op == "*") return narrow(multiply(x, y, col), col);
  if (op == "//" || op == "%") {
    if (y == 0) fail(col, "integer division or modulo by zero");
    return narrow(op == "//" ? floor_div(x, y) : floor_mod(x, y), col);
  }
  if (op == "**") {
    if (y < 0) {
      if (x == 0) fail(col, "0 cannot be raised to a negative power");
      return Scalar::from_float(std::pow(static_cast<double>(x), static_cast<double>(y)));
    }
    Int result = 1, base = x;
    while (y > 0) {
      if (y & 1) result = multiply(result, base, col);
      y >>= 1;
      if (y > 0) base = multiply(base, base, col);  // |base| > 1 here means the result overflows too
    }
    return narrow(result, col);
  }
  fail(col, "unsupported operand type(s) for " + op + ": 'int' and 'int'");
}

}  // namespace

std::int64_t as_i64(const Scalar& s, int col) {
  if (s.kind == DKind::Bool) return s.b ? 1 : 0;
  if (s.kind == DKind::Signed) return s.i;
  if (s.kind == DKind::Unsigned) fail(col, "integer " + std::to_string(s.u) + " is too large for this operation");
  fail(col, "'float' object cannot be interpreted as an integer");
}

Scalar scalar_binary(const std::string& op, const Scalar& a, const Scalar& b, int col) {
  if (op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=") return Scalar::from_bool(compare(op, a, b));
  if (op == "&" || op == "|" || op == "^" || op == "<<" || op == ">>") return bitwise(op, a, b, col);
  if (a.kind == DKind::Float || b.kind == DKind::Float || op == "/") return float_arith(op, a.as_double(), b.as_double(), col);
  return int_arith(op, wide(a), wide(b), col);
}

Scalar scalar_unary(const std::string& op, const Scalar& s, int col) {
  if (s.kind == DKind::Float) {
    if (op == "~") fail(col, "bad operand type for unary ~: 'float'");
    return op == "-" ? Scalar::from_float(-s.f) : s;
  }
  Int x = wide(s);
  if (op == "+") return narrow(x, col);
  if (op == "-") return narrow(-x, col);
  return narrow(~x, col);
}

}  // namespace tensor_inspect::expr
