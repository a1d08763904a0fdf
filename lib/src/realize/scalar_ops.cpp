// scalar_ops.cpp — the reference arithmetic on single values (see scalar_ops.hpp).
#include "realize/scalar_ops.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "realize/chunk.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect::realize_detail {
namespace {

double round_float(DType d, double v) { return cast_scalar(Scalar::from_float(v), compute_dtype(d)).f; }

Scalar make_int(DType d, std::uint64_t bits) { return cast_scalar(Scalar::from_uint(bits), d); }

bool compare(Op op, const Scalar& a, const Scalar& b) {
  auto cmp = [op](auto x, auto y) {
    switch (op) {
      case Op::CmpLt: return x < y;
      case Op::CmpLe: return x <= y;
      case Op::CmpEq: return x == y;
      default: return x != y;
    }
  };
  switch (a.kind) {
    case DKind::Bool: return cmp(a.b, b.b);
    case DKind::Signed: return cmp(a.i, b.i);
    case DKind::Unsigned: return cmp(a.u, b.u);
    case DKind::Float: return cmp(a.f, b.f);
  }
  return false;
}

}  // namespace

// Division by zero: C leaves it undefined (x86's idiv traps); tinygrad's DEV=PYTHON, its only
// defined answer, lowers floor division to C-style cdiv/cmod (helpers.py: cdiv(x, 0) = 0,
// cmod(x, 0) = x) plus the floor fix-up, so x // 0 is -1 for x < 0 and 0 otherwise, and
// x % 0 is x. The README's conformance section says why we follow it.
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  if (b == 0) return a < 0 ? -1 : 0;
  if (a == std::numeric_limits<std::int64_t>::min() && b == -1) return a;
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
std::int64_t py_mod(std::int64_t a, std::int64_t b) {
  if (b == 0) return a;
  if (b == -1) return 0;
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

Scalar int_pow(DType d, Scalar a, Scalar b) {
  const bool sgn = dtype_info(d).kind == DKind::Signed;
  std::uint64_t base = a.as_bits(), result = 1;
  if (sgn && b.i < 0) {
    std::int64_t x = a.i;
    if (x == 1) return make_int(d, 1);
    if (x == -1) return make_int(d, (b.i % 2) ? static_cast<std::uint64_t>(-1) : 1);
    return make_int(d, 0);
  }
  std::uint64_t e = b.as_bits();
  while (e) {
    if (e & 1) result *= base;
    base *= base;
    e >>= 1;
  }
  return make_int(d, result);
}

// A float to int cast as tinygrad's reference backend (DEV=PYTHON, runtime/ops_python.py)
// makes it: `dtype.const(x)` is Python's int(x), which truncates toward zero and raises on
// nan and +-inf, and `truncate` (dtype.py) then wraps the exact integer into the dtype
// through ctypes, modulo 2**bits. C leaves the out-of-range and non-finite cases undefined
// (x86 gives INT_MIN); the README's conformance section says why the tool follows DEV=PYTHON.
Scalar py_float_to_int(double x, DType d) {
  if (!std::isfinite(x))
    throw Error(ErrorCode::BadExpression, std::string("cannot convert float ") + (std::isnan(x) ? "NaN" : "infinity") +
                                              " to integer: a cast to " + std::string(dtype_info(d).name) +
                                              " raises in tinygrad's reference backend (DEV=PYTHON); compiled "
                                              "backends leave it undefined");
  const double t = std::trunc(x), two63 = 9223372036854775808.0, two64 = 18446744073709551616.0;
  std::uint64_t bits;
  if (t >= -two63 && t < two63) {
    bits = static_cast<std::uint64_t>(static_cast<std::int64_t>(t));
  } else {  // |t| >= 2**63 is a multiple of 2**11: fmod and the sum below are exact
    double m = std::fmod(t, two64);
    if (m < 0) m += two64;
    bits = static_cast<std::uint64_t>(m);
  }
  return make_int(d, bits);
}

Scalar apply_unary(Op op, DType d, const Scalar& a) {
  const DKind kind = dtype_info(d).kind;
  if (op == Op::Cast)
    return a.kind == DKind::Float && (kind == DKind::Signed || kind == DKind::Unsigned)
               ? py_float_to_int(a.f, d)
               : cast_scalar(a, compute_dtype(d));
  if (op == Op::ByteSwap) {
    std::uint64_t x = a.as_bits(), r = 0;
    for (unsigned i = 0; i < dtype_info(d).itemsize; ++i, x >>= 8) r = (r << 8) | (x & 0xff);
    return make_int(d, r);
  }
  if (kind == DKind::Float) {
    double x = a.f, r = x;
    switch (op) {
      case Op::Neg: r = -x; break;
      case Op::Abs: r = std::fabs(x); break;
      case Op::Exp: r = std::exp(x); break;
      case Op::Exp2: r = std::exp2(x); break;
      case Op::Log: r = std::log(x); break;
      case Op::Log2: r = x > 0 ? std::log2(x) : x == 0 ? -HUGE_VAL : std::numeric_limits<double>::quiet_NaN(); break;
      case Op::Sin: r = std::sin(x); break;
      case Op::Cos: r = std::cos(x); break;
      case Op::Tan: r = std::tan(x); break;
      case Op::Sqrt: r = std::sqrt(x); break;
      case Op::Recip: r = 1.0 / x; break;
      case Op::Trunc: r = std::trunc(x) + 0.0; break;  // math.trunc: an int, a zero unsigned
      case Op::Tanh: r = std::tanh(x); break;
      case Op::Not: return Scalar::from_float(x == 0.0 ? 1.0 : 0.0);
      default: throw Error(ErrorCode::Unsupported, std::string(op_name(op)) + " is not defined for float dtypes");
    }
    return Scalar::from_float(round_float(d, r));
  }
  if (kind == DKind::Bool) {
    switch (op) {
      case Op::Not: return Scalar::from_bool(!a.b);
      case Op::Neg: return Scalar::from_bool(a.b);
      case Op::Abs: return a;
      default: break;
    }
    return cast_scalar(apply_unary(op, DType::Float32, cast_scalar(a, DType::Float32)), d);
  }
  std::uint64_t x = a.as_bits();
  switch (op) {
    case Op::Neg: return make_int(d, ~x + 1);
    case Op::Not: return make_int(d, ~x);
    case Op::Abs: return kind == DKind::Signed && a.i < 0 ? make_int(d, ~x + 1) : a;
    case Op::Trunc: return a;
    default: break;
  }
  // Transcendentals on ints compute in double and convert back, as a C cast would.
  return cast_scalar(apply_unary(op, DType::Float64, Scalar::from_float(a.as_double())), d);
}

Scalar apply_binary(Op op, DType src_dtype, const Scalar& a, const Scalar& b) {
  if (is_comparison(op)) return Scalar::from_bool(compare(op, a, b));
  const DType d = src_dtype;
  const DKind kind = dtype_info(d).kind;
  if (kind == DKind::Float) {
    double x = a.f, y = b.f, r;
    switch (op) {
      case Op::Add: r = x + y; break;
      case Op::Sub: r = x - y; break;
      case Op::Mul: r = x * y; break;
      case Op::Div: r = x / y; break;
      case Op::FloorDiv: r = std::floor(x / y); break;
      case Op::Mod: {
        r = std::fmod(x, y);
        if (r != 0 && ((r < 0) != (y < 0))) r += y;
        break;
      }
      case Op::Pow: r = std::pow(x, y); break;
      case Op::Max: r = x < y ? y : x; break;
      case Op::Min: r = y < x ? y : x; break;
      default: throw Error(ErrorCode::Unsupported, std::string(op_name(op)) + " is not defined for float dtypes");
    }
    return Scalar::from_float(round_float(d, r));
  }
  if (kind == DKind::Bool) {
    bool x = a.b, y = b.b;
    switch (op) {
      case Op::Add: case Op::Or: case Op::Max: return Scalar::from_bool(x || y);
      case Op::Mul: case Op::And: case Op::Min: return Scalar::from_bool(x && y);
      case Op::Sub: case Op::Xor: return Scalar::from_bool(x != y);
      default:
        return cast_scalar(apply_binary(op, DType::Int32, cast_scalar(a, DType::Int32), cast_scalar(b, DType::Int32)),
                           d);
    }
  }
  const bool sgn = kind == DKind::Signed;
  std::uint64_t x = a.as_bits(), y = b.as_bits();
  switch (op) {
    case Op::Add: return make_int(d, x + y);
    case Op::Sub: return make_int(d, x - y);
    case Op::Mul: return make_int(d, x * y);
    case Op::Div:
      if (y == 0) return make_int(d, 0);
      if (sgn)
        return a.i == std::numeric_limits<std::int64_t>::min() && b.i == -1
                   ? a
                   : make_int(d, static_cast<std::uint64_t>(a.i / b.i));
      return make_int(d, x / y);
    case Op::FloorDiv:
      if (sgn) return make_int(d, static_cast<std::uint64_t>(floor_div(a.i, b.i)));
      return make_int(d, y ? x / y : 0);
    case Op::Mod:
      if (sgn) return make_int(d, static_cast<std::uint64_t>(py_mod(a.i, b.i)));
      return make_int(d, y ? x % y : x);
    case Op::Pow: return int_pow(d, a, b);
    case Op::Max: return (sgn ? a.i < b.i : x < y) ? b : a;
    case Op::Min: return (sgn ? b.i < a.i : y < x) ? b : a;
    case Op::And: return make_int(d, x & y);
    case Op::Or: return make_int(d, x | y);
    case Op::Xor: return make_int(d, x ^ y);
    default: break;
  }
  throw Error(ErrorCode::Internal, "internal: unhandled binary op");
}

Scalar zero_of(DType d) { return cast_scalar(Scalar::from_int(0), d); }

Scalar reduce_identity(Op op, DType d) {
  const DKind kind = dtype_info(d).kind;
  // A weak int reduces at the default int (tinygrad/uop/weak.py default_dtype: int32 unless the
  // values overflow it), so its max and min of nothing are int32's extremes, not int64's.
  const unsigned bits = d == DType::WeakInt ? 32U : dtype_info(d).bits;
  switch (op) {
    case Op::ReduceSum: return zero_of(d);
    case Op::ReduceProd: return cast_scalar(Scalar::from_int(1), d);
    case Op::ReduceMax:
      if (kind == DKind::Float) return Scalar::from_float(-std::numeric_limits<double>::infinity());
      if (kind == DKind::Signed) return make_int(d, std::uint64_t{1} << (bits - 1));
      return zero_of(d);
    default:
      if (kind == DKind::Float) return Scalar::from_float(std::numeric_limits<double>::infinity());
      if (kind == DKind::Signed) return make_int(d, (std::uint64_t{1} << (bits - 1)) - 1);
      if (kind == DKind::Bool) return Scalar::from_bool(true);
      return make_int(d, ~std::uint64_t{0});
  }
}

}  // namespace tensor_inspect::realize_detail
