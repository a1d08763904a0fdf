// dtype/dtype_names.cpp — the names users write for a dtype, one table for every option that
// takes one (--dtype, --raw, --default-float/-int, --expect dtype=): tinygrad's names and
// aliases, NumPy's and torch's, the short names of ggml and Rust (bf16, f16, i8, u64) and the
// file formats' tags (safetensors' BF16 and F8_E4M3, GGUF's F16, I8), in any case; and the
// Defaults --default-float and --default-int name.
#include <cctype>
#include <string>

#include "tensor_inspect/dtype.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {
namespace {

struct UserNames {
  DType dtype;
  std::string_view names;  // space-separated, lower case; the canonical name is not repeated
};

// NOTE: where the conventions disagree, tinygrad's (and torch's) meaning wins: `float` and
// `int` are float32 and int32 as in tinygrad and torch (NumPy's np.dtype(float) is float64,
// np.dtype(int) int64), `uint` is uint32 (tinygrad). Short names count bits, as ggml and
// Rust spell them: `i8` is int8, `f8`-style NumPy byte codes ('i8' = int64, 'f4') are not
// accepted, since the same spelling means another type there. Safetensors' and GGUF's tags
// are these names in upper case (I8, BF16, F8_E4M3).
constexpr UserNames kUserNames[] = {
    {DType::Bool, "bool_ b1 boolean"},
    {DType::Int8, "i8 char"},  // not "byte": NumPy's np.byte is int8, torch's ByteTensor uint8
    {DType::UInt8, "u8 uchar ubyte"},
    {DType::Int16, "i16 short"},
    {DType::UInt16, "u16 ushort"},
    {DType::Int32, "i32 int intc"},
    {DType::UInt32, "u32 uint uintc"},
    {DType::Int64, "i64 long longlong int_"},
    {DType::UInt64, "u64 ulong ulonglong"},
    {DType::Float16, "f16 fp16 half"},
    {DType::BFloat16, "bf16"},
    {DType::Float32, "f32 fp32 float single"},
    {DType::Float64, "f64 fp64 double float_"},
    {DType::FP8E4M3, "f8_e4m3 float8_e4m3fn float8_e4m3 fp8_e4m3 e4m3"},
    {DType::FP8E5M2, "f8_e5m2 float8_e5m2 fp8_e5m2 e5m2"},
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool listed(std::string_view list, std::string_view word) {
  while (!list.empty()) {
    const std::size_t end = std::min(list.find(' '), list.size());
    if (list.substr(0, end) == word) return true;
    list.remove_prefix(std::min(end + 1, list.size()));
  }
  return false;
}

}  // namespace

std::optional<DType> dtype_from_user_name(std::string_view name) {
  std::string n = lower(name);
  for (std::string_view prefix : {"torch.", "np.", "numpy.", "dtypes."})
    if (n.starts_with(prefix)) {
      n.erase(0, prefix.size());
      break;
    }
  if (n.empty()) return std::nullopt;
  for (const UserNames& row : kUserNames)
    if (dtype_info(row.dtype).name == n || listed(row.names, n)) return row.dtype;
  return std::nullopt;
}

std::string dtype_user_names() {
  std::string out;
  for (const UserNames& row : kUserNames)
    out += (out.empty() ? "" : ", ") + std::string(dtype_info(row.dtype).name) + " (" + std::string(row.names) + ")";
  return out + "; any case, also as np.X, torch.X or dtypes.X";
}

DType parse_dtype_name(std::string_view name, std::string_view what) {
  if (const std::optional<DType> d = dtype_from_user_name(name)) return *d;
  throw Error(ErrorCode::BadDType,
              std::string(what) + ": unknown dtype '" + std::string(name) + "' (known: " + dtype_user_names() + ")");
}

Defaults parse_defaults(const std::optional<std::string>& float_dtype, const std::optional<std::string>& int_dtype) {
  Defaults d;
  const std::string float_name = float_dtype.value_or("float32"), int_name = int_dtype.value_or("int32");
  d.float_dtype = parse_dtype_name(float_name, "--default-float");
  d.int_dtype = parse_dtype_name(int_name, "--default-int");
  if (!is_float(d.float_dtype))
    throw Error(ErrorCode::Usage, "--default-float: " + float_name + " is not a float dtype");
  if (!is_int(d.int_dtype)) throw Error(ErrorCode::Usage, "--default-int: " + int_name + " is not an int dtype");
  return d;
}

}  // namespace tensor_inspect
