// chunk_codec.cpp — decoders (bytes of a dtype -> chunk words) and encoders (words ->
// bytes), one typed loop per dtype: float16, bfloat16 and fp8 decode here as they are
// read, so no widened copy of a file ever exists. The scalar conversions are decode/half.hpp's.
#include <array>
#include <bit>
#include <cmath>
#include <cstring>

#include "decode/half.hpp"
#include "realize/chunk.hpp"

namespace tensor_inspect::realize_detail {
namespace {

template <typename T>
T read_at(const std::byte* base, std::int64_t i) {
  T v;
  std::memcpy(&v, base + static_cast<std::size_t>(i) * sizeof(T), sizeof(T));
  return v;
}

// One gather loop per stored type; `conv` maps the stored value to a Word.
template <typename T, typename Conv>
void gather(const std::byte* base, const std::int64_t* idx, std::size_t n, Word* out, Conv conv) {
  if (idx == nullptr) {
    for (std::size_t i = 0; i < n; ++i) out[i] = conv(read_at<T>(base, static_cast<std::int64_t>(i)));
    return;
  }
  for (std::size_t i = 0; i < n; ++i) out[i] = idx[i] < 0 ? conv(T{}) : conv(read_at<T>(base, idx[i]));
}


template <typename T, typename Conv>
void scatter(const Word* in, std::size_t n, std::byte* dst, Conv conv) {
  for (std::size_t i = 0; i < n; ++i) {
    T v = conv(in[i]);
    std::memcpy(dst + i * sizeof(T), &v, sizeof(T));
  }
}

}  // namespace

Word word_of(const Scalar& s) {
  switch (s.kind) {
    case DKind::Bool: return wu(s.b ? 1 : 0);
    case DKind::Signed: return wi(s.i);
    case DKind::Unsigned: return wu(s.u);
    case DKind::Float: return wf(s.f);
  }
  return wu(0);
}

Scalar scalar_of(DKind kind, Word w) {
  switch (kind) {
    case DKind::Bool: return Scalar::from_bool(w.u != 0);
    case DKind::Signed: return Scalar::from_int(w.i);
    case DKind::Unsigned: return Scalar::from_uint(w.u);
    case DKind::Float: return Scalar::from_float(w.f);
  }
  return Scalar{};
}

void decode(DType dtype, const std::byte* base, const std::int64_t* idx, std::size_t n, Word* out) {
  switch (dtype) {
    case DType::Bool: return gather<std::uint8_t>(base, idx, n, out, [](std::uint8_t v) { return wu(v != 0); });
    case DType::Int8: return gather<std::int8_t>(base, idx, n, out, [](std::int8_t v) { return wi(v); });
    case DType::UInt8: return gather<std::uint8_t>(base, idx, n, out, [](std::uint8_t v) { return wu(v); });
    case DType::Int16: return gather<std::int16_t>(base, idx, n, out, [](std::int16_t v) { return wi(v); });
    case DType::UInt16: return gather<std::uint16_t>(base, idx, n, out, [](std::uint16_t v) { return wu(v); });
    case DType::Int32: return gather<std::int32_t>(base, idx, n, out, [](std::int32_t v) { return wi(v); });
    case DType::UInt32: return gather<std::uint32_t>(base, idx, n, out, [](std::uint32_t v) { return wu(v); });
    case DType::Int64:
    case DType::WeakInt: return gather<std::int64_t>(base, idx, n, out, [](std::int64_t v) { return wi(v); });
    case DType::UInt64: return gather<std::uint64_t>(base, idx, n, out, [](std::uint64_t v) { return wu(v); });
    case DType::Float16:
      return gather<std::uint16_t>(base, idx, n, out,
                                   [](std::uint16_t v) { return wf(static_cast<double>(half_to_float(v))); });
    case DType::BFloat16:
      return gather<std::uint16_t>(base, idx, n, out,
                                   [](std::uint16_t v) { return wf(static_cast<double>(bfloat16_to_float(v))); });
    case DType::Float32: return gather<float>(base, idx, n, out, [](float v) { return wf(static_cast<double>(v)); });
    case DType::Float64:
    case DType::WeakFloat: return gather<double>(base, idx, n, out, [](double v) { return wf(v); });
    case DType::FP8E4M3:
    case DType::FP8E5M2:
    {
      const std::array<float, 256>& table = fp8_table(dtype);
      return gather<std::uint8_t>(base, idx, n, out,
                                  [&table](std::uint8_t v) { return wf(static_cast<double>(table[v])); });
    }
  }
}

void encode(DType dtype, const Word* in, std::size_t n, std::byte* dst) {
  switch (dtype) {
    case DType::Bool:
      return scatter<std::uint8_t>(in, n, dst, [](Word w) { return static_cast<std::uint8_t>(w.u != 0); });
    case DType::Int8:
    case DType::UInt8: return scatter<std::uint8_t>(in, n, dst, [](Word w) { return static_cast<std::uint8_t>(w.u); });
    case DType::Int16:
    case DType::UInt16:
      return scatter<std::uint16_t>(in, n, dst, [](Word w) { return static_cast<std::uint16_t>(w.u); });
    case DType::Int32:
    case DType::UInt32:
      return scatter<std::uint32_t>(in, n, dst, [](Word w) { return static_cast<std::uint32_t>(w.u); });
    case DType::Int64:
    case DType::UInt64:
    case DType::WeakInt: return scatter<std::uint64_t>(in, n, dst, [](Word w) { return w.u; });
    case DType::Float16: return scatter<std::uint16_t>(in, n, dst, [](Word w) { return float16_from_double(w.f); });
    case DType::BFloat16: return scatter<std::uint16_t>(in, n, dst, [](Word w) { return bfloat16_from_double(w.f); });
    case DType::Float32: return scatter<float>(in, n, dst, [](Word w) { return static_cast<float>(w.f); });
    case DType::Float64:
    case DType::WeakFloat: return scatter<double>(in, n, dst, [](Word w) { return w.f; });
    case DType::FP8E4M3:
    case DType::FP8E5M2:
      return scatter<std::uint8_t>(in, n, dst, [dtype](Word w) { return fp8_from_double(w.f, dtype); });
  }
}

void round_floats(DType dtype, Word* w, std::size_t n) {
  switch (dtype) {
    case DType::Float64: return;
    case DType::WeakFloat:  // computes in float32 (compute_dtype)
    case DType::Float32:
      for (std::size_t i = 0; i < n; ++i) w[i].f = static_cast<double>(static_cast<float>(w[i].f));
      return;
    default:
      for (std::size_t i = 0; i < n; ++i) w[i].f = cast_scalar(Scalar::from_float(w[i].f), dtype).f;
      return;
  }
}

}  // namespace tensor_inspect::realize_detail
