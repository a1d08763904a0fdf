// decode/lanes.cpp — block decoders from stored bytes to lane values. The loops are plain
// element-wise C++ over a local copy of the block, which GCC vectorizes; the float ones are
// built for AVX2 and for the x86-64 baseline (decode/cpu_features.hpp chooses).
#include "decode/lanes.hpp"

#include <array>
#include <bit>
#include <cassert>
#include <cstring>

#include <immintrin.h>

#include "decode/ggml_types.hpp"
#include "decode/half.hpp"
#include "decode/cpu_features.hpp"

namespace tensor_inspect {

// A GGUF scan decodes whole ggml blocks straight into a lane buffer of kStatsBlock values.
static_assert(kStatsBlock % kGgmlMaxBlockElems == 0, "a statistics block holds whole ggml blocks of any type");

namespace {

template <typename U>
U bswap(U v) {
  if constexpr (sizeof(U) == 2) return static_cast<U>(__builtin_bswap16(v));
  else if constexpr (sizeof(U) == 4) return __builtin_bswap32(v);
  else return __builtin_bswap64(v);
}

// Stored unsigned words, native order, into a local buffer the loops below read.
template <typename U>
void load_words(const std::byte* src, std::int64_t n, bool swap, U* out) {
  std::memcpy(out, src, static_cast<std::size_t>(n) * sizeof(U));
  if constexpr (sizeof(U) > 1)
    if (swap)
      for (std::int64_t i = 0; i < n; ++i) out[i] = bswap(out[i]);
}

// Straight from the stored bytes (any alignment): no copy of the block first. The loops
// are written once and inlined into a baseline and an AVX2 entry point, which GCC
// vectorizes for each; cpu_has_avx2_f16c() picks one.
[[gnu::always_inline]] inline void bf16_to_f32_loop(const std::byte* in, std::int64_t n, float* out) {
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint16_t h;
    std::memcpy(&h, in + 2 * i, 2);
    out[i] = std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16);
  }
}
void bf16_to_f32_portable(const std::byte* in, std::int64_t n, float* out) { bf16_to_f32_loop(in, n, out); }
__attribute__((target("avx2"))) void bf16_to_f32_avx2(const std::byte* in, std::int64_t n, float* out) {
  bf16_to_f32_loop(in, n, out);
}
void bf16_to_f32(const std::byte* in, std::int64_t n, float* out) {
  if (cpu_has_avx2_f16c()) bf16_to_f32_avx2(in, n, out);
  else bf16_to_f32_portable(in, n, out);
}

// IEEE half to float, exact (decode/half.hpp's conversion, which GCC vectorizes here).
void f16_to_f32(const std::byte* in, std::int64_t n, float* out) {
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint16_t stored;
    std::memcpy(&stored, in + 2 * i, 2);
    out[i] = half_to_float(stored);
  }
}

// The same conversion in hardware (F16C's vcvtph2ps, exact), eight halves at a time.
__attribute__((target("avx2,f16c")))
void f16_to_f32_f16c(const std::byte* in, std::int64_t n, float* out) {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 2 * i))));
  if (i < n) f16_to_f32(in + 2 * i, n - i, out + i);
}

void half_to_float(const std::byte* in, std::int64_t n, float* out) {
  if (cpu_has_avx2_f16c()) f16_to_f32_f16c(in, n, out);
  else f16_to_f32(in, n, out);
}

template <typename S, typename U, typename Out>
void ints_to(const std::byte* src, std::int64_t n, bool swap, Out* out) {
  U words[kStatsBlock];
  load_words(src, n, swap, words);
  for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(static_cast<S>(words[i]));
}

}  // namespace

Lane lane_of(const StoredElements& s) {
  if (s.ggml_type || s.decode) return Lane::F32;
  switch (dtype_info(s.stored).kind) {
    case DKind::Float: return s.stored == DType::Float64 ? Lane::F64 : Lane::F32;
    case DKind::Signed: return Lane::I64;
    default: return Lane::U64;
  }
}

std::uint64_t byte_offset_of(const StoredElements& s, std::int64_t first) {
  if (s.ggml_type) {
    const GgmlType* t = ggml_type_from_id(*s.ggml_type);
    return static_cast<std::uint64_t>(first) / t->block_elems * t->block_bytes;
  }
  if (s.decode) return static_cast<std::uint64_t>(first) * sizeof(float);  // as if float32: it holds no bytes
  return static_cast<std::uint64_t>(first) * dtype_info(s.stored).itemsize;
}

void decode_block(const StoredElements& s, std::int64_t first, std::int64_t n, void* out) {
  assert(n <= kStatsBlock);
  if (s.decode) return s.decode(first, std::span(static_cast<float*>(out), static_cast<std::size_t>(n)));
  const std::byte* src = s.bytes.data() + byte_offset_of(s, first);
  if (s.ggml_type) {
    const GgmlType* t = ggml_type_from_id(*s.ggml_type);
    const std::size_t blocks = static_cast<std::size_t>(n) / t->block_elems;
    dequantize_ggml(*t, std::span(src, blocks * t->block_bytes),
                    std::span(static_cast<float*>(out), static_cast<std::size_t>(n)));
    return;
  }
  const bool swap = s.swap_bytes;
  switch (s.stored) {
    case DType::Float32: {
      auto* f = static_cast<float*>(out);
      std::memcpy(f, src, static_cast<std::size_t>(n) * 4);
      if (swap)
        for (std::int64_t i = 0; i < n; ++i) f[i] = std::bit_cast<float>(bswap(std::bit_cast<std::uint32_t>(f[i])));
      return;
    }
    case DType::Float64: {
      auto* f = static_cast<double*>(out);
      std::memcpy(f, src, static_cast<std::size_t>(n) * 8);
      if (swap)
        for (std::int64_t i = 0; i < n; ++i) f[i] = std::bit_cast<double>(bswap(std::bit_cast<std::uint64_t>(f[i])));
      return;
    }
    case DType::BFloat16:
    case DType::Float16: {
      std::uint16_t words[kStatsBlock];
      const std::byte* native = src;
      if (swap) {
        load_words(src, n, swap, words);
        native = reinterpret_cast<const std::byte*>(words);
      }
      if (s.stored == DType::BFloat16) bf16_to_f32(native, n, static_cast<float*>(out));
      else half_to_float(native, n, static_cast<float*>(out));
      return;
    }
    case DType::FP8E4M3:
    case DType::FP8E5M2: {
      const auto& table = fp8_table(s.stored);
      auto* f = static_cast<float*>(out);
      for (std::int64_t i = 0; i < n; ++i) f[i] = table[static_cast<std::uint8_t>(src[i])];
      return;
    }
    case DType::Bool: {
      auto* u = static_cast<std::uint64_t*>(out);
      for (std::int64_t i = 0; i < n; ++i) u[i] = src[i] != std::byte{0};
      return;
    }
    case DType::Int8: return ints_to<std::int8_t, std::uint8_t>(src, n, false, static_cast<std::int64_t*>(out));
    case DType::Int16: return ints_to<std::int16_t, std::uint16_t>(src, n, swap, static_cast<std::int64_t*>(out));
    case DType::Int32: return ints_to<std::int32_t, std::uint32_t>(src, n, swap, static_cast<std::int64_t*>(out));
    case DType::Int64: return ints_to<std::int64_t, std::uint64_t>(src, n, swap, static_cast<std::int64_t*>(out));
    case DType::UInt8: return ints_to<std::uint8_t, std::uint8_t>(src, n, false, static_cast<std::uint64_t*>(out));
    case DType::UInt16: return ints_to<std::uint16_t, std::uint16_t>(src, n, swap, static_cast<std::uint64_t*>(out));
    case DType::UInt32: return ints_to<std::uint32_t, std::uint32_t>(src, n, swap, static_cast<std::uint64_t*>(out));
    case DType::UInt64: return ints_to<std::uint64_t, std::uint64_t>(src, n, swap, static_cast<std::uint64_t*>(out));
    case DType::WeakInt:
    case DType::WeakFloat: break;
  }
  assert(false && "weak dtypes are committed before a scan");
}

}  // namespace tensor_inspect
