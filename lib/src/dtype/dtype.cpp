// dtype.cpp — the dtype table, names and aliases, the promotion lattice, and value casts
// (the float16/bfloat16/fp8 conversions they use are in decode/half.cpp).
#include "tensor_inspect/dtype.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace tensor_inspect {
namespace {

constexpr std::array<DTypeInfo, kDTypeCount> kTable = {{
    {DType::Bool, "bool", 1, '?', DKind::Bool, 1, "b1", "BOOL"},
    {DType::Int8, "int8", 1, 'b', DKind::Signed, 8, "i1", "I8"},
    {DType::UInt8, "uint8", 1, 'B', DKind::Unsigned, 8, "u1", "U8"},
    {DType::Int16, "int16", 2, 'h', DKind::Signed, 16, "i2", "I16"},
    {DType::UInt16, "uint16", 2, 'H', DKind::Unsigned, 16, "u2", "U16"},
    {DType::Int32, "int32", 4, 'i', DKind::Signed, 32, "i4", "I32"},
    {DType::UInt32, "uint32", 4, 'I', DKind::Unsigned, 32, "u4", "U32"},
    {DType::Int64, "int64", 8, 'q', DKind::Signed, 64, "i8", "I64"},
    {DType::UInt64, "uint64", 8, 'Q', DKind::Unsigned, 64, "u8", "U64"},
    {DType::Float16, "float16", 2, 'e', DKind::Float, 16, "f2", "F16"},
    {DType::BFloat16, "bfloat16", 2, 0, DKind::Float, 16, "", "BF16"},
    {DType::Float32, "float32", 4, 'f', DKind::Float, 32, "f4", "F32"},
    {DType::Float64, "float64", 8, 'd', DKind::Float, 64, "f8", "F64"},
    {DType::FP8E4M3, "fp8e4m3", 1, 0, DKind::Float, 8, "", "F8_E4M3"},
    {DType::FP8E5M2, "fp8e5m2", 1, 0, DKind::Float, 8, "", "F8_E5M2"},
    // Weak dtypes hold a Python scalar at full precision until data() commits them.
    {DType::WeakInt, "weakint", 8, 'q', DKind::Signed, 64, "", ""},
    {DType::WeakFloat, "weakfloat", 8, 'd', DKind::Float, 64, "", ""},
}};
static_assert(kTable.size() == static_cast<std::size_t>(DType::WeakFloat) + 1, "one row per DType");

constexpr std::pair<std::string_view, DType> kAliases[] = {
    {"half", DType::Float16}, {"float", DType::Float32}, {"double", DType::Float64},
    {"char", DType::Int8},    {"uchar", DType::UInt8},   {"short", DType::Int16},
    {"ushort", DType::UInt16}, {"int", DType::Int32},    {"uint", DType::UInt32},
    {"long", DType::Int64},   {"ulong", DType::UInt64},
};

// Rank in the promotion order; least_upper_dtype takes the lowest common parent.
constexpr int rank(DType d) {
  switch (d) {
    case DType::Bool: return 0;
    case DType::WeakInt: return 1;
    case DType::Int8: return 2;
    case DType::UInt8: return 3;
    case DType::Int16: return 4;
    case DType::UInt16: return 5;
    case DType::Int32: return 6;
    case DType::UInt32: return 7;
    case DType::Int64: return 8;
    case DType::UInt64: return 9;
    case DType::WeakFloat: return 10;
    case DType::FP8E4M3: return 11;
    case DType::FP8E5M2: return 12;
    case DType::Float16: return 13;
    case DType::BFloat16: return 14;
    case DType::Float32: return 15;
    case DType::Float64: return 16;
  }
  return 16;
}

// tinygrad's promo_lattice with weak dtypes (JAX's lattice): each dtype's direct parents.
std::vector<DType> lattice_parents(DType d) {
  switch (d) {
    case DType::Bool: return {DType::WeakInt};
    case DType::WeakInt: return {DType::Int8, DType::UInt8};
    case DType::Int8: return {DType::Int16};
    case DType::Int16: return {DType::Int32};
    case DType::Int32: return {DType::Int64};
    case DType::Int64: return {DType::WeakFloat};
    case DType::UInt8: return {DType::Int16, DType::UInt16};
    case DType::UInt16: return {DType::Int32, DType::UInt32};
    case DType::UInt32: return {DType::Int64, DType::UInt64};
    case DType::UInt64: return {DType::WeakFloat};
    case DType::WeakFloat: return {DType::FP8E4M3, DType::FP8E5M2};
    case DType::FP8E4M3:
    case DType::FP8E5M2: return {DType::Float16, DType::BFloat16};
    case DType::Float16:
    case DType::BFloat16: return {DType::Float32};
    case DType::Float32: return {DType::Float64};
    case DType::Float64: return {};
  }
  return {};
}

std::uint32_t ancestors(DType d) {
  std::uint32_t set = 1u << static_cast<unsigned>(d);
  for (DType p : lattice_parents(d)) set |= ancestors(p);
  return set;
}

// Wraps a two's-complement value to `bits` bits, sign-extending for signed kinds.
std::uint64_t wrap_bits(std::uint64_t v, unsigned bits, bool is_signed) {
  if (bits >= 64) return v;
  std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
  v &= mask;
  if (is_signed && (v >> (bits - 1)) & 1) v |= ~mask;
  return v;
}

double round_to_float_dtype(double v, DType d) {
  switch (d) {
    case DType::Float16: return float16_to_double(float16_from_double(v));
    case DType::BFloat16: return bfloat16_to_double(bfloat16_from_double(v));
    case DType::Float32: return static_cast<double>(static_cast<float>(v));
    case DType::FP8E4M3:
    case DType::FP8E5M2: return fp8_to_double(fp8_from_double(v, d), d);
    default: return v;
  }
}

}  // namespace

const DTypeInfo& dtype_info(DType dtype) { return kTable[static_cast<std::size_t>(dtype)]; }

std::optional<DType> dtype_from_name(std::string_view name) {
  for (const auto& row : kTable)
    if (row.name == name) return row.dtype;
  for (const auto& [alias, d] : kAliases)
    if (alias == name) return d;
  return std::nullopt;
}

bool is_float(DType d) { return dtype_info(d).kind == DKind::Float; }
bool is_int(DType d) {
  DKind k = dtype_info(d).kind;
  return k == DKind::Signed || k == DKind::Unsigned;
}
bool is_unsigned(DType d) { return dtype_info(d).kind == DKind::Unsigned; }

DType commit_dtype(DType d, const Defaults& defaults) {
  if (d == DType::WeakInt) return defaults.int_dtype;
  if (d == DType::WeakFloat) return defaults.float_dtype;
  return d;
}

DType least_upper_dtype(DType a, DType b) {
  std::uint32_t common = ancestors(a) & ancestors(b);
  DType best = DType::Float64;
  for (std::size_t i = 0; i < kDTypeCount; ++i) {
    auto d = static_cast<DType>(i);
    if ((common >> i) & 1 && rank(d) < rank(best)) best = d;
  }
  return best;
}

DType sum_acc_dtype(DType d) {
  if (is_unsigned(d)) return least_upper_dtype(d, DType::UInt32);
  if (is_int(d) || d == DType::Bool) return least_upper_dtype(d, DType::Int32);
  return least_upper_dtype(d, DType::Float32);
}

// ---------------------------------------------------------------------------------- Scalar

double Scalar::as_double() const {
  switch (kind) {
    case DKind::Bool: return b ? 1.0 : 0.0;
    case DKind::Signed: return wide ? static_cast<double>(as_wide()) : static_cast<double>(i);
    case DKind::Unsigned: return static_cast<double>(u);
    case DKind::Float: return f;
  }
  return 0.0;
}

std::uint64_t Scalar::as_bits() const {
  switch (kind) {
    case DKind::Bool: return b ? 1 : 0;
    case DKind::Signed: return static_cast<std::uint64_t>(i);
    case DKind::Unsigned: return u;
    case DKind::Float: {
      if (std::isnan(f) || std::isinf(f)) return std::uint64_t{1} << 63;
      double t = std::trunc(f);
      if (std::fabs(t) < 9223372036854775808.0) return static_cast<std::uint64_t>(static_cast<std::int64_t>(t));
      // Beyond int64 the double is an integer: reduce it modulo 2^64 exactly.
      double m = std::fmod(t, 18446744073709551616.0);
      if (m < 0) m += 18446744073709551616.0;
      if (m >= 9223372036854775808.0)
        return static_cast<std::uint64_t>(m - 9223372036854775808.0) | (std::uint64_t{1} << 63);
      return static_cast<std::uint64_t>(m);
    }
  }
  return 0;
}

bool Scalar::as_bool() const {
  switch (kind) {
    case DKind::Bool: return b;
    case DKind::Signed: return wide || i != 0;
    case DKind::Unsigned: return u != 0;
    case DKind::Float: return f != 0.0 || std::isnan(f);
  }
  return false;
}

Scalar cast_scalar(Scalar v, DType dtype) {
  const DTypeInfo& info = dtype_info(dtype);
  switch (info.kind) {
    case DKind::Bool: return Scalar::from_bool(v.as_bool());
    case DKind::Signed: return Scalar::from_int(static_cast<std::int64_t>(wrap_bits(v.as_bits(), info.bits, true)));
    case DKind::Unsigned: return Scalar::from_uint(wrap_bits(v.as_bits(), info.bits, false));
    case DKind::Float: return Scalar::from_float(round_to_float_dtype(v.as_double(), dtype));
  }
  return v;
}

Scalar load_scalar(DType dtype, const std::byte* src) {
  auto rd = [src]<typename T>(T) {
    T v;
    std::memcpy(&v, src, sizeof(T));
    return v;
  };
  switch (dtype) {
    case DType::Bool: return Scalar::from_bool(rd(std::uint8_t{}) != 0);
    case DType::Int8: return Scalar::from_int(rd(std::int8_t{}));
    case DType::UInt8: return Scalar::from_uint(rd(std::uint8_t{}));
    case DType::Int16: return Scalar::from_int(rd(std::int16_t{}));
    case DType::UInt16: return Scalar::from_uint(rd(std::uint16_t{}));
    case DType::Int32: return Scalar::from_int(rd(std::int32_t{}));
    case DType::UInt32: return Scalar::from_uint(rd(std::uint32_t{}));
    case DType::Int64:
    case DType::WeakInt: return Scalar::from_int(rd(std::int64_t{}));
    case DType::UInt64: return Scalar::from_uint(rd(std::uint64_t{}));
    case DType::Float16: return Scalar::from_float(float16_to_double(rd(std::uint16_t{})));
    case DType::BFloat16: return Scalar::from_float(bfloat16_to_double(rd(std::uint16_t{})));
    case DType::Float32: return Scalar::from_float(static_cast<double>(rd(float{})));
    case DType::Float64:
    case DType::WeakFloat: return Scalar::from_float(rd(double{}));
    case DType::FP8E4M3:
    case DType::FP8E5M2: return Scalar::from_float(fp8_to_double(rd(std::uint8_t{}), dtype));
  }
  return Scalar{};
}

void store_scalar(DType dtype, Scalar v, std::byte* dst) {
  auto wr = [dst]<typename T>(T x) { std::memcpy(dst, &x, sizeof(T)); };
  switch (dtype) {
    case DType::Bool: wr(static_cast<std::uint8_t>(v.as_bool() ? 1 : 0)); break;
    case DType::Int8:
    case DType::UInt8: wr(static_cast<std::uint8_t>(v.as_bits())); break;
    case DType::Int16:
    case DType::UInt16: wr(static_cast<std::uint16_t>(v.as_bits())); break;
    case DType::Int32:
    case DType::UInt32: wr(static_cast<std::uint32_t>(v.as_bits())); break;
    case DType::Int64:
    case DType::UInt64:
    case DType::WeakInt: wr(v.as_bits()); break;
    case DType::Float16: wr(float16_from_double(v.as_double())); break;
    case DType::BFloat16: wr(bfloat16_from_double(v.as_double())); break;
    case DType::Float32: wr(static_cast<float>(v.as_double())); break;
    case DType::Float64:
    case DType::WeakFloat: wr(v.as_double()); break;
    case DType::FP8E4M3:
    case DType::FP8E5M2: wr(fp8_from_double(v.as_double(), dtype)); break;
  }
}

}  // namespace tensor_inspect
