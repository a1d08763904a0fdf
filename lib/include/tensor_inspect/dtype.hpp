// tensor_inspect/dtype.hpp — tinygrad's dtype table, its promotion lattice, and exact
// conversion of single values between dtypes.
//
// One constexpr row per dtype (name, itemsize, struct format, kind, priority, file-format
// names); everything else in the library reads this table.
//
//   DType d = ti::dtype_from_name("half").value();          // DType::Float16
//   ti::dtype_info(d).fmt;                                    // 'e'
//   ti::least_upper_dtype(DType::Int8, DType::UInt8);        // DType::Int16
//   Scalar v = ti::cast_scalar(Scalar::from_float(0.1), DType::Float16);  // 0.0999755859375
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tensor_inspect {

/// tinygrad's dtypes, plus the weak dtypes of Python scalars. New values go at the end.
enum class DType : std::uint8_t {
  Bool, Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64,
  Float16, BFloat16, Float32, Float64, FP8E4M3, FP8E5M2,
  WeakInt,    ///< a Python int; promotes below every int, commits to the default int
  WeakFloat,  ///< a Python float; promotes below every float, commits to the default float
};
inline constexpr std::size_t kDTypeCount = 17;

/// How a dtype's values behave in arithmetic.
enum class DKind : std::uint8_t { Bool, Signed, Unsigned, Float };

/// One row of the dtype table.
struct DTypeInfo {
  DType dtype;
  std::string_view name;         ///< tinygrad's canonical name: "float16", "weakint"
  std::uint8_t itemsize;         ///< bytes per element (weak dtypes: 8, a Python int or float)
  char fmt;                      ///< struct/memoryview format char, or 0 when tinygrad has none
  DKind kind;
  std::uint8_t bits;             ///< value bits: 1 for bool, 8..64 otherwise
  std::string_view numpy_kind;   ///< numpy descr without byte order: "f2", "b1"; empty if none
  std::string_view safetensors;  ///< safetensors dtype tag: "F16"; empty if none
};

/// The table row of a dtype. Never throws.
const DTypeInfo& dtype_info(DType dtype);

/// Parses a tinygrad dtype name or alias ("float16", "half", "long", "fp8e4m3").
/// Case-sensitive like `getattr(dtypes, name)`; nullopt for unknown names.
std::optional<DType> dtype_from_name(std::string_view name);

/// Parses a dtype name as users write it (dtype/dtype_names.cpp, one table for every option):
/// tinygrad's names and aliases, NumPy's and torch's ("bool_", "float8_e4m3fn"), short names
/// ("bf16", "fp16", "i8", "u64") and the formats' tags ("BF16", "F8_E4M3"), in any case and
/// with or without "np.", "torch.", "dtypes.". Never a weak dtype; nullopt for unknown names.
std::optional<DType> dtype_from_user_name(std::string_view name);

/// Every name dtype_from_user_name takes, by dtype, for messages: "bool (bool_ b1 boolean), ...".
std::string dtype_user_names();

/// dtype_from_user_name, or throws Error(BadDType) "WHAT: unknown dtype 'x' (known: ...)".
DType parse_dtype_name(std::string_view name, std::string_view what);

/// True for WeakInt and WeakFloat.
constexpr bool is_weak(DType d) { return d == DType::WeakInt || d == DType::WeakFloat; }
/// True for the float dtypes (fp8, half, bfloat16, float, double, weakfloat).
bool is_float(DType d);
/// True for signed, unsigned and weak ints (not bool).
bool is_int(DType d);
/// True for the unsigned ints.
bool is_unsigned(DType d);

/// The dtypes weak dtypes commit to at data(): tinygrad's dtypes.default_int/default_float.
struct Defaults {
  DType int_dtype = DType::Int32;
  DType float_dtype = DType::Float32;
};
/// The Defaults --default-float and --default-int name (user names, as parse_dtype_name reads
/// them; float32 and int32 when not given). Throws Error(BadDType) for an unknown name,
/// Error(Usage) for a float default that is not a float dtype or an int default not an int one.
Defaults parse_defaults(const std::optional<std::string>& float_dtype, const std::optional<std::string>& int_dtype);
/// The concrete dtype of `d`: weak dtypes become their default, others stay.
DType commit_dtype(DType d, const Defaults& defaults = {});

/// tinygrad's least_upper_dtype: the lowest dtype both promote to in the lattice
/// bool < weakint < (u)int8 < ... < (u)int64 < weakfloat < fp8 < float16|bfloat16 < float32 < float64.
DType least_upper_dtype(DType a, DType b);

/// tinygrad's can_lossless_cast (dtype.py): whether `to` holds every value of `from` (the same
/// dtype and bool always; a wider int of a compatible sign, a float whose mantissa holds the int,
/// a wider float; a weak int every concrete int; a weak float only bool).
bool can_lossless_cast(DType from, DType to);

/// tinygrad's sum_acc_dtype: unsigned sums in >= uint32, ints and bool in >= int32,
/// floats in >= float32.
DType sum_acc_dtype(DType d);

/// One value in the widest form of its kind: bool, int64 (signed and weak int),
/// uint64 (unsigned), or double (every float dtype, already rounded to that dtype).
/// A Python int beyond 64 bits (a constant tinygrad keeps unwrapped until a store) is a
/// wide Signed value: `i` holds its low 64 bits, what a store or an int cast keeps, and
/// `hi` the bits above; as_double() and as_bool() read the whole value.
struct Scalar {
  __extension__ using Wide = __int128;
  __extension__ using UWide = unsigned __int128;
  DKind kind = DKind::Float;
  bool wide = false;     ///< a Signed value outside [-2**63, 2**64): the value is `hi` * 2**64 + `u`
  std::int64_t hi = 0;   ///< the bits above the low 64 of a wide value
  union {
    bool b;
    std::int64_t i;
    std::uint64_t u;
    double f;
  };
  Scalar() : f(0.0) {}
  static Scalar from_bool(bool v) { Scalar s; s.kind = DKind::Bool; s.b = v; return s; }
  static Scalar from_int(std::int64_t v) { Scalar s; s.kind = DKind::Signed; s.i = v; return s; }
  static Scalar from_uint(std::uint64_t v) { Scalar s; s.kind = DKind::Unsigned; s.u = v; return s; }
  static Scalar from_float(double v) { Scalar s; s.kind = DKind::Float; s.f = v; return s; }
  /// An exact int: Signed within int64, Unsigned up to 2**64 - 1, a wide Signed beyond.
  static Scalar from_wide(Wide v) {
    if (v >= INT64_MIN && v <= INT64_MAX) return from_int(static_cast<std::int64_t>(v));
    if (v >= 0 && v <= static_cast<Wide>(UINT64_MAX)) return from_uint(static_cast<std::uint64_t>(v));
    Scalar s;
    s.kind = DKind::Signed;
    s.wide = true;
    s.u = static_cast<std::uint64_t>(v);
    s.hi = static_cast<std::int64_t>(v >> 64);
    return s;
  }
  /// The exact value of an int or bool (a float gives 0).
  Wide as_wide() const {
    if (wide) return static_cast<Wide>(static_cast<UWide>(static_cast<Wide>(hi)) << 64 | u);
    return kind == DKind::Signed ? i : kind == DKind::Unsigned ? static_cast<Wide>(u) : kind == DKind::Bool ? b : 0;
  }
  /// The value as a double (ints convert with round-to-nearest).
  double as_double() const;
  /// The value as two's-complement 64 bits (floats truncate toward zero like a C cast;
  /// nan and out-of-range floats give 0x8000000000000000 as x86 does).
  std::uint64_t as_bits() const;
  /// Python truthiness: nonzero, nan is true.
  bool as_bool() const;
};

/// Converts a value to `dtype` with tinygrad's cast semantics: ints wrap like a C cast,
/// floats to ints truncate toward zero, float16/bfloat16 round to nearest even (with
/// overflow to inf), fp8 per tinygrad's float_to_fp8 (e4m3 saturates to 448 and has no
/// inf; e5m2 saturates finite values to 57344), anything to bool is `!= 0`.
/// Weak dtypes cast like their committed dtype. Never throws.
Scalar cast_scalar(Scalar v, DType dtype);

/// Reads one element of `dtype` from `src` (native byte order, itemsize bytes).
Scalar load_scalar(DType dtype, const std::byte* src);
/// Writes `v` (already of `dtype`'s kind, e.g. from cast_scalar) as one element of `dtype`.
void store_scalar(DType dtype, Scalar v, std::byte* dst);

/// IEEE half <-> double (round to nearest even; overflow gives inf). Source: struct 'e'.
std::uint16_t float16_from_double(double v);
double float16_to_double(std::uint16_t bits);
/// bfloat16 as tinygrad's float_to_bf16: round the float32 to nearest even, keep nan/inf.
std::uint16_t bfloat16_from_double(double v);
double bfloat16_to_double(std::uint16_t bits);
/// fp8 as tinygrad's float_to_fp8 / fp8_to_float (the CUDA cuda_fp8.hpp rules).
std::uint8_t fp8_from_double(double v, DType dtype);
double fp8_to_double(std::uint8_t bits, DType dtype);

}  // namespace tensor_inspect
