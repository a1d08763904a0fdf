// chunk_ops.cpp — element-wise ops as typed loops over chunks (see chunk.hpp). Each
// loop's rule is the one of scalar_ops.cpp; ops without a loop here run through it.
#include <cmath>
#include <limits>

#include "realize/chunk.hpp"
#include "realize/scalar_ops.hpp"

namespace tensor_inspect::realize_detail {
namespace {

// Two's-complement wrap of n words to an int dtype's width (sign-extended when signed).
void wrap_ints(DType d, Word* w, std::size_t n) {
  const DTypeInfo& info = dtype_info(d);
  if (info.bits >= 64) return;
  const unsigned shift = 64u - info.bits;
  if (info.kind == DKind::Signed) {
    for (std::size_t i = 0; i < n; ++i) w[i].i = static_cast<std::int64_t>(w[i].u << shift) >> shift;
  } else {
    const std::uint64_t mask = (std::uint64_t{1} << info.bits) - 1;
    for (std::size_t i = 0; i < n; ++i) w[i].u &= mask;
  }
}

void unary_fallback(Op op, DType in_dtype, DType out_dtype, const Word* a, std::size_t n, Word* out) {
  const DKind k = dtype_info(in_dtype).kind;
  for (std::size_t i = 0; i < n; ++i) out[i] = word_of(apply_unary(op, out_dtype, scalar_of(k, a[i])));
}

void binary_fallback(Op op, DType in_dtype, const Word* a, const Word* b, std::size_t n, Word* out) {
  const DKind k = dtype_info(in_dtype).kind;
  for (std::size_t i = 0; i < n; ++i)
    out[i] = word_of(apply_binary(op, in_dtype, scalar_of(k, a[i]), scalar_of(k, b[i])));
}

template <typename F>
void map1(const Word* a, std::size_t n, Word* out, F f) {
  for (std::size_t i = 0; i < n; ++i) out[i] = f(a[i]);
}
template <typename F>
void map2(const Word* a, const Word* b, std::size_t n, Word* out, F f) {
  for (std::size_t i = 0; i < n; ++i) out[i] = f(a[i], b[i]);
}


// Comparisons over one member type; the result is a bool word.
template <typename Get>
bool compare_chunk(Op op, const Word* a, const Word* b, std::size_t n, Word* out, Get get) {
  switch (op) {
    case Op::CmpLt: map2(a, b, n, out, [&](Word x, Word y) { return wu(get(x) < get(y)); }); return true;
    case Op::CmpLe: map2(a, b, n, out, [&](Word x, Word y) { return wu(get(x) <= get(y)); }); return true;
    case Op::CmpEq: map2(a, b, n, out, [&](Word x, Word y) { return wu(get(x) == get(y)); }); return true;
    case Op::CmpNe: map2(a, b, n, out, [&](Word x, Word y) { return wu(get(x) != get(y)); }); return true;
    default: return false;
  }
}

bool float_binary(Op op, DType d, const Word* a, const Word* b, std::size_t n, Word* out) {
  if (compare_chunk(op, a, b, n, out, [](Word w) { return w.f; })) return true;
  switch (op) {
    case Op::Add: map2(a, b, n, out, [](Word x, Word y) { return wf(x.f + y.f); }); break;
    case Op::Sub: map2(a, b, n, out, [](Word x, Word y) { return wf(x.f - y.f); }); break;
    case Op::Mul: map2(a, b, n, out, [](Word x, Word y) { return wf(x.f * y.f); }); break;
    case Op::Div: map2(a, b, n, out, [](Word x, Word y) { return wf(x.f / y.f); }); break;
    case Op::Max: map2(a, b, n, out, [](Word x, Word y) { return x.f < y.f ? y : x; }); return true;
    case Op::Min: map2(a, b, n, out, [](Word x, Word y) { return y.f < x.f ? y : x; }); return true;
    case Op::FloorDiv: map2(a, b, n, out, [](Word x, Word y) { return wf(std::floor(x.f / y.f)); }); break;
    case Op::Mod:
      map2(a, b, n, out, [](Word x, Word y) {
        double r = std::fmod(x.f, y.f);
        if (r != 0 && ((r < 0) != (y.f < 0))) r += y.f;
        return wf(r);
      });
      break;
    default: return false;
  }
  round_floats(d, out, n);
  return true;
}

bool int_binary(Op op, DType d, bool sgn, const Word* a, const Word* b, std::size_t n, Word* out) {
  if (sgn ? compare_chunk(op, a, b, n, out, [](Word w) { return w.i; })
          : compare_chunk(op, a, b, n, out, [](Word w) { return w.u; }))
    return true;
  switch (op) {
    case Op::Add: map2(a, b, n, out, [](Word x, Word y) { return wu(x.u + y.u); }); break;
    case Op::Sub: map2(a, b, n, out, [](Word x, Word y) { return wu(x.u - y.u); }); break;
    case Op::Mul: map2(a, b, n, out, [](Word x, Word y) { return wu(x.u * y.u); }); break;
    case Op::And: map2(a, b, n, out, [](Word x, Word y) { return wu(x.u & y.u); }); return true;
    case Op::Or: map2(a, b, n, out, [](Word x, Word y) { return wu(x.u | y.u); }); return true;
    case Op::Xor: map2(a, b, n, out, [](Word x, Word y) { return wu(x.u ^ y.u); }); return true;
    case Op::Max:
      if (sgn) map2(a, b, n, out, [](Word x, Word y) { return x.i < y.i ? y : x; });
      else map2(a, b, n, out, [](Word x, Word y) { return x.u < y.u ? y : x; });
      return true;
    case Op::Min:
      if (sgn) map2(a, b, n, out, [](Word x, Word y) { return y.i < x.i ? y : x; });
      else map2(a, b, n, out, [](Word x, Word y) { return y.u < x.u ? y : x; });
      return true;
    default: return false;
  }
  wrap_ints(d, out, n);
  return true;
}

bool bool_binary(Op op, const Word* a, const Word* b, std::size_t n, Word* out) {
  if (compare_chunk(op, a, b, n, out, [](Word w) { return w.u; })) return true;
  switch (op) {
    case Op::Add:
    case Op::Or:
    case Op::Max:
      map2(a, b, n, out, [](Word x, Word y) { return wu(x.u | y.u); });
      return true;
    case Op::Mul:
    case Op::And:
    case Op::Min:
      map2(a, b, n, out, [](Word x, Word y) { return wu(x.u & y.u); });
      return true;
    case Op::Sub: case Op::Xor: map2(a, b, n, out, [](Word x, Word y) { return wu(x.u ^ y.u); }); return true;
    default: return false;
  }
}

template <double (*F)(double)>
void float_math(DType d, const Word* a, std::size_t n, Word* out) {
  map1(a, n, out, [](Word x) { return wf(F(x.f)); });
  round_floats(d, out, n);
}

double f_exp(double x) { return std::exp(x); }
double f_exp2(double x) { return std::exp2(x); }
double f_log(double x) { return std::log(x); }
// log2 of a negative or a nan is a positive nan in tinygrad: DEV=PYTHON's python_alu returns math.nan
// (uop/ops.py), and xlog2 (codegen/decomp/transcendental.py) selects the nan CONST, where C's log2
// gives x86's default nan, whose sign bit is set.
double f_log2(double x) { return x > 0 ? std::log2(x) : x == 0 ? -HUGE_VAL : std::numeric_limits<double>::quiet_NaN(); }
double f_sin(double x) { return std::sin(x); }
double f_cos(double x) { return std::cos(x); }
double f_tan(double x) { return std::tan(x); }
double f_sqrt(double x) { return std::sqrt(x); }
double f_recip(double x) { return 1.0 / x; }
// DEV=PYTHON's TRUNC is math.trunc, a Python int: a zero result has no sign (uop/ops.py).
double f_trunc(double x) { return std::trunc(x) + 0.0; }
double f_tanh(double x) { return std::tanh(x); }

bool float_unary(Op op, DType d, const Word* a, std::size_t n, Word* out) {
  switch (op) {
    case Op::Neg: map1(a, n, out, [](Word x) { return wf(-x.f); }); return true;
    case Op::Abs: map1(a, n, out, [](Word x) { return wf(std::fabs(x.f)); }); return true;
    case Op::Not: map1(a, n, out, [](Word x) { return wf(x.f == 0.0 ? 1.0 : 0.0); }); return true;
    case Op::Exp: float_math<f_exp>(d, a, n, out); return true;
    case Op::Exp2: float_math<f_exp2>(d, a, n, out); return true;
    case Op::Log: float_math<f_log>(d, a, n, out); return true;
    case Op::Log2: float_math<f_log2>(d, a, n, out); return true;
    case Op::Sin: float_math<f_sin>(d, a, n, out); return true;
    case Op::Cos: float_math<f_cos>(d, a, n, out); return true;
    case Op::Tan: float_math<f_tan>(d, a, n, out); return true;
    case Op::Sqrt: float_math<f_sqrt>(d, a, n, out); return true;
    case Op::Recip: float_math<f_recip>(d, a, n, out); return true;
    case Op::Trunc: float_math<f_trunc>(d, a, n, out); return true;
    case Op::Tanh: float_math<f_tanh>(d, a, n, out); return true;
    default: return false;
  }
}

bool int_unary(Op op, DType d, bool sgn, const Word* a, std::size_t n, Word* out) {
  switch (op) {
    case Op::Neg: map1(a, n, out, [](Word x) { return wu(~x.u + 1); }); break;
    case Op::Not: map1(a, n, out, [](Word x) { return wu(~x.u); }); break;
    case Op::Abs:
      if (sgn) map1(a, n, out, [](Word x) { return x.i < 0 ? wu(~x.u + 1) : x; });
      else map1(a, n, out, [](Word x) { return x; });
      break;
    case Op::Trunc: map1(a, n, out, [](Word x) { return x; }); return true;
    case Op::ByteSwap: {
      if (sgn) return false;
      switch (dtype_info(d).itemsize) {
        case 1: map1(a, n, out, [](Word x) { return x; }); return true;
        case 2:
          map1(a, n, out, [](Word x) { return wu(__builtin_bswap16(static_cast<std::uint16_t>(x.u))); });
          return true;
        case 4:
          map1(a, n, out, [](Word x) { return wu(__builtin_bswap32(static_cast<std::uint32_t>(x.u))); });
          return true;
        case 8: map1(a, n, out, [](Word x) { return wu(__builtin_bswap64(x.u)); }); return true;
        default: return false;
      }
    }
    default: return false;
  }
  wrap_ints(d, out, n);
  return true;
}

// Casts with a plain rule; float -> int (Python's int() and a wrap, raising on nan and inf)
// goes through the reference.
bool cast_chunk(DType from, DType to, const Word* a, std::size_t n, Word* out) {
  const DKind fk = dtype_info(from).kind, tk = dtype_info(to).kind;
  if (tk == DKind::Bool) {
    if (fk == DKind::Float) map1(a, n, out, [](Word x) { return wu(x.f != 0.0); });  // nan is true
    else map1(a, n, out, [](Word x) { return wu(x.u != 0); });
    return true;
  }
  if (tk == DKind::Float) {
    switch (fk) {
      case DKind::Float: map1(a, n, out, [](Word x) { return x; }); break;
      case DKind::Signed: map1(a, n, out, [](Word x) { return wf(static_cast<double>(x.i)); }); break;
      case DKind::Unsigned: map1(a, n, out, [](Word x) { return wf(static_cast<double>(x.u)); }); break;
      case DKind::Bool: map1(a, n, out, [](Word x) { return wf(x.u ? 1.0 : 0.0); }); break;
    }
    round_floats(to, out, n);
    return true;
  }
  if (fk == DKind::Float) return false;
  map1(a, n, out, [](Word x) { return x; });
  wrap_ints(to, out, n);
  return true;
}

}  // namespace

void apply_unary_chunk(Op op, DType in_dtype, DType out_dtype, const Word* a, std::size_t n, Word* out) {
  const DKind kind = dtype_info(out_dtype).kind;
  bool done = false;
  if (op == Op::Cast) done = cast_chunk(in_dtype, out_dtype, a, n, out);
  else if (kind == DKind::Float) done = float_unary(op, out_dtype, a, n, out);
  else if (kind == DKind::Signed || kind == DKind::Unsigned)
    done = int_unary(op, out_dtype, kind == DKind::Signed, a, n, out);
  if (!done) unary_fallback(op, in_dtype, out_dtype, a, n, out);
}

void apply_binary_chunk(Op op, DType in_dtype, const Word* a, const Word* b, std::size_t n, Word* out) {
  const DKind kind = dtype_info(in_dtype).kind;
  bool done = false;
  switch (kind) {
    case DKind::Float: done = float_binary(op, in_dtype, a, b, n, out); break;
    case DKind::Signed: done = int_binary(op, in_dtype, true, a, b, n, out); break;
    case DKind::Unsigned: done = int_binary(op, in_dtype, false, a, b, n, out); break;
    case DKind::Bool: done = bool_binary(op, a, b, n, out); break;
  }
  if (!done) binary_fallback(op, in_dtype, a, b, n, out);
}

void apply_where_chunk(const Word* cond, const Word* a, const Word* b, std::size_t n, Word* out) {
  for (std::size_t i = 0; i < n; ++i) out[i] = cond[i].u ? a[i] : b[i];
}

}  // namespace tensor_inspect::realize_detail
