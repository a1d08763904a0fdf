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
constexpr Int kMaxBig = Int{1} << 120;  // sums and shifted values of these still fit 128 bits

[[noreturn]] void out_of_range(int col) { fail(col, "integer result is out of range (more than 2**120)"); }

std::string decimal(Int v) {
  if (v == 0) return "0";
  std::string out;
  for (Int x = v < 0 ? -v : v; x > 0; x /= 10)
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(x % 10)));
  return v < 0 ? "-" + out : out;
}

Int wide(const Scalar& s) { return s.as_wide(); }

// An exact int result: a Signed Scalar within int64, Unsigned above it up to 2**64 - 1,
// a BigInt beyond.
Value narrow(Int r, int col) {
  if (r < -kMaxBig || r > kMaxBig) out_of_range(col);
  if (r < kMinInt || r > kMaxInt) {
    Value v;
    v.kind = Value::Kind::BigInt;
    v.big = r;
    v.text = decimal(r);
    return v;
  }
  if (r > static_cast<Int>(std::numeric_limits<std::int64_t>::max()))
    return Value::scalar(Scalar::from_uint(static_cast<std::uint64_t>(r)));
  return Value::scalar(Scalar::from_int(static_cast<std::int64_t>(r)));
}

Int multiply(Int x, Int y, int col) {
  Int r = 0;
  if (__builtin_mul_overflow(x, y, &r) || r < -kMaxBig || r > kMaxBig) out_of_range(col);
  return r;
}

// A number operand: its Scalar (a BigInt is an int) and, for ints, its exact value.
struct Num {
  Scalar s;
  Int i = 0;
  bool is_int = false;
  double as_double() const { return is_int ? static_cast<double>(i) : s.as_double(); }
};

Num num(const Value& v) {
  Num n;
  if (v.kind == Value::Kind::BigInt) {
    n.s = Scalar::from_int(0);
    n.i = v.big;
    n.is_int = true;
    return n;
  }
  n.s = v.num;
  n.is_int = v.num.kind != DKind::Float;
  if (n.is_int) n.i = wide(v.num);
  return n;
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

bool compare(const std::string& op, const Num& a, const Num& b) {
  // Exact on two ints (Python compares ints exactly), else on the values as doubles.
  auto cmp = [&op](auto x, auto y) {
    return op == "<"    ? x < y
           : op == "<=" ? x <= y
           : op == ">"  ? x > y
           : op == ">=" ? x >= y
           : op == "==" ? x == y
                        : x != y;
  };
  return a.is_int && b.is_int ? cmp(a.i, b.i) : cmp(a.as_double(), b.as_double());
}

Value bitwise(const std::string& op, const Num& a, const Num& b, int col) {
  if (!a.is_int || !b.is_int) fail(col, "unsupported operand type(s) for " + op + ": 'float'");
  if (a.s.kind == DKind::Bool && b.s.kind == DKind::Bool && op != "<<" && op != ">>")
    return Value::scalar(Scalar::from_bool(op == "&"   ? (a.s.b && b.s.b)
                                           : op == "|" ? (a.s.b || b.s.b)
                                                       : (a.s.b != b.s.b)));
  // Two's complement in 128 bits is Python's infinite two's complement for these operands.
  Int x = a.i, y = b.i;
  if (op == "&") return narrow(x & y, col);
  if (op == "|") return narrow(x | y, col);
  if (op == "^") return narrow(x ^ y, col);
  if (y < 0) fail(col, "negative shift count");
  if (op == ">>") return narrow(y >= 127 ? (x < 0 ? -1 : 0) : x >> static_cast<int>(y), col);
  if (x == 0) return Value::scalar(Scalar::from_int(0));
  if (y > 120) out_of_range(col);  // |x| >= 1, so the result is at least 2**121
  return narrow(multiply(x, Int{1} << static_cast<int>(y), col), col);
}

Value float_arith(const std::string& op, double x, double y, int col) {
  if (op == "+") return Value::scalar(Scalar::from_float(x + y));
  if (op == "-") return Value::scalar(Scalar::from_float(x - y));
  if (op == "*") return Value::scalar(Scalar::from_float(x * y));
  if (op == "/") {
    if (y == 0.0) fail(col, "division by zero");
    return Value::scalar(Scalar::from_float(x / y));
  }
  if (op == "//" || op == "%") {
    if (y == 0.0) fail(col, "float division by zero");
    double m = std::fmod(x, y);
    if (m != 0.0 && ((m < 0) != (y < 0))) m += y;
    if (op == "%") return Value::scalar(Scalar::from_float(m == 0.0 ? std::copysign(0.0, y) : m));
    // CPython's float_floor_div: the exact quotient of x - (x mod y), rounded.
    double q = (x - m) / y;
    if (q == 0.0) return Value::scalar(Scalar::from_float(std::copysign(0.0, x / y)));
    double f = std::floor(q);
    return Value::scalar(Scalar::from_float(q - f > 0.5 ? f + 1.0 : f));
  }
  if (op == "**") {
    if (x == 0.0 && y < 0) fail(col, "0.0 cannot be raised to a negative power");
    if (x < 0 && std::floor(y) != y && std::isfinite(y))
      fail(col, "a negative number to a fractional power is complex");
    return Value::scalar(Scalar::from_float(std::pow(x, y)));
  }
  fail(col, "unsupported operand type(s) for " + op + ": 'float'");
}

Value int_arith(const std::string& op, Int x, Int y, int col) {
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
      return Value::scalar(Scalar::from_float(std::pow(static_cast<double>(x), static_cast<double>(y))));
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

bool is_number(const Value& v) { return v.kind == Value::Kind::Scalar || v.kind == Value::Kind::BigInt; }

Value fold_binary(const std::string& op, const Value& va, const Value& vb, int col) {
  Num a = num(va), b = num(vb);
  if (op == "<" || op == "<=" || op == ">" || op == ">=" || op == "==" || op == "!=")
    return Value::scalar(Scalar::from_bool(compare(op, a, b)));
  if (op == "&" || op == "|" || op == "^" || op == "<<" || op == ">>") return bitwise(op, a, b, col);
  if (!a.is_int || !b.is_int || op == "/") return float_arith(op, a.as_double(), b.as_double(), col);
  return int_arith(op, a.i, b.i, col);
}

Value fold_unary(const std::string& op, const Value& v, int col) {
  Num a = num(v);
  if (!a.is_int) {
    if (op == "~") fail(col, "bad operand type for unary ~: 'float'");
    return Value::scalar(op == "-" ? Scalar::from_float(-a.s.f) : a.s);
  }
  if (op == "+") return narrow(a.i, col);
  if (op == "-") return narrow(-a.i, col);
  return narrow(~a.i, col);
}

void fail_big(const Value& v, int col) { fail(col, "integer " + v.text + " is out of the 64-bit range"); }

Value exact_int(Scalar::Wide v, int col) { return narrow(v, col); }

}  // namespace tensor_inspect::expr
