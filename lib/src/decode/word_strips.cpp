// decode/word_strips.cpp — per-thread strips of a transposed code part (see word_strips.hpp).
#include "decode/word_strips.hpp"

#include <array>
#include <atomic>
#include <cstring>

#include <immintrin.h>

#include "decode/cpu_features.hpp"

namespace tensor_inspect {

std::uint64_t new_strip_owner() {
  static std::atomic<std::uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

WordStrip& thread_strip(std::uint64_t owner, std::int64_t first_row) {
  thread_local std::array<WordStrip, 2> strips;
  thread_local std::uint64_t clock = 0;
  WordStrip* pick = &strips[0];
  for (WordStrip& s : strips) {
    if (s.owner == owner && s.first_row == first_row) {
      pick = &s;
      break;
    }
    if (s.used < pick->used) pick = &s;
  }
  pick->used = ++clock;
  return *pick;
}

namespace {

// Each stored row's columns are one or two cache lines on a page of their own: fetched
// kStripAhead rows early, as the hardware prefetchers do not follow strides of pages.
constexpr std::int64_t kStripAhead = 64;

void copy_word_columns_portable(const std::byte* words, std::int64_t rows, std::int64_t cols, std::int64_t col0,
                                std::int64_t ncols, std::int64_t w0, std::uint32_t* out) {
  for (std::int64_t w = w0; w < rows; ++w) {
    const std::byte* src = words + 4 * (w * cols + col0);
    if (w + kStripAhead < rows) {
      __builtin_prefetch(src + 4 * kStripAhead * cols);
      __builtin_prefetch(src + 4 * kStripAhead * cols + 4 * ncols - 1);
    }
    for (std::int64_t j = 0; j < ncols; ++j) std::memcpy(out + j * rows + w, src + 4 * j, 4);
  }
}

// Eight stored rows by eight columns at a time, transposed in registers (the usual 8x8
// unpack and lane-swap sequence): eight 32-byte loads and stores where the scalar copy
// does 64 of each.
__attribute__((target("avx2"))) void copy_word_columns_avx2(const std::byte* words, std::int64_t rows,
                                                            std::int64_t cols, std::int64_t col0, std::int64_t ncols,
                                                            std::uint32_t* out) {
  const std::int64_t rows8 = rows / 8 * 8, ncols8 = ncols / 8 * 8;
  for (std::int64_t w = 0; w < rows8; w += 8) {
    for (std::int64_t k = 0; k < 8 && w + k + kStripAhead < rows; ++k) {
      const std::byte* ahead = words + 4 * ((w + k + kStripAhead) * cols + col0);
      __builtin_prefetch(ahead);
      __builtin_prefetch(ahead + 4 * ncols - 1);
    }
    for (std::int64_t c = 0; c < ncols8; c += 8) {
      __m256i r[8];
      for (int k = 0; k < 8; ++k)
        r[k] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + 4 * ((w + k) * cols + col0 + c)));
      __m256i t[8], u[8];
      for (int k = 0; k < 8; k += 2) {
        t[k] = _mm256_unpacklo_epi32(r[k], r[k + 1]);
        t[k + 1] = _mm256_unpackhi_epi32(r[k], r[k + 1]);
      }
      for (int k = 0; k < 8; k += 4) {
        u[k] = _mm256_unpacklo_epi64(t[k], t[k + 2]);
        u[k + 1] = _mm256_unpackhi_epi64(t[k], t[k + 2]);
        u[k + 2] = _mm256_unpacklo_epi64(t[k + 1], t[k + 3]);
        u[k + 3] = _mm256_unpackhi_epi64(t[k + 1], t[k + 3]);
      }
      for (int j = 0; j < 4; ++j) {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + (c + j) * rows + w),
                            _mm256_permute2x128_si256(u[j], u[j + 4], 0x20));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + (c + j + 4) * rows + w),
                            _mm256_permute2x128_si256(u[j], u[j + 4], 0x31));
      }
    }
    for (std::int64_t k = 0; k < 8; ++k)  // the columns after the last eight
      for (std::int64_t j = ncols8; j < ncols; ++j)
        std::memcpy(out + j * rows + w + k, words + 4 * ((w + k) * cols + col0 + j), 4);
  }
  copy_word_columns_portable(words, rows, cols, col0, ncols, rows8, out);
}

}  // namespace

void copy_word_columns(const std::byte* words, std::int64_t rows, std::int64_t cols, std::int64_t col0,
                       std::int64_t ncols, std::uint32_t* out) {
  if (cpu_has_avx2_f16c()) copy_word_columns_avx2(words, rows, cols, col0, ncols, out);
  else copy_word_columns_portable(words, rows, cols, col0, ncols, 0, out);
}

}  // namespace tensor_inspect
