// stats/zero_sign.cpp — which zero a zero min or max is. Where a tensor's min (or max) is
// zero, its equal values are its zeros, +0.0 and -0.0, and NumPy returns one of them by
// position. Measured on NumPy 1.24 (x86-64, AVX2) over random orders of 0.0, -0.0 and
// nonzero values: float32 and float64 return the last of the equal values (np.min([0.0,
// -0.0]) is -0.0, np.max([-0.0, 0.0]) is 0.0) and float16 the first (its loop compares
// with <=), in 99.7% (float32) and 99.1% (float64) of arrays; the rest follow its SIMD lanes, which differ between
// CPUs (AVX2, AVX-512), so no rule reproduces every one. bfloat16, fp8 and GGUF blocks are
// NumPy float32 arrays once decoded: the last. The kernels find the extreme's value in
// any lane order; its sign comes from the first or last zero in element order, found per
// block and carried through the merges in index order, so it never depends on threads.
#include <cstring>

#include "stats/moments.hpp"

namespace tensor_inspect {
namespace {

// Whether element i is a zero, and its sign bit: the bits without the sign are all 0.
template <typename Word>
bool zero_at(const std::byte* p, std::int64_t i, bool& negative) {
  Word w;
  std::memcpy(&w, p + static_cast<std::size_t>(i) * sizeof(Word), sizeof(Word));
  constexpr Word sign = static_cast<Word>(Word{1} << (8 * sizeof(Word) - 1));
  negative = (w & sign) != 0;
  return static_cast<Word>(w & static_cast<Word>(~sign)) == 0;
}

// Whether any of the kGroup words at p is a zero: a fixed-length loop the compiler
// vectorizes, so a block whose only zero lies far from the end it is searched from costs
// about a tenth of a pass, not a scalar one.
constexpr std::int64_t kGroup = 32;
template <typename Word>
bool group_has_zero(const std::byte* p) {
  Word w[kGroup];
  std::memcpy(w, p, sizeof w);
  constexpr Word magnitude = static_cast<Word>(~(Word{1} << (8 * sizeof(Word) - 1)));
  int zeros = 0;
  for (std::int64_t k = 0; k < kGroup; ++k) zeros += static_cast<Word>(w[k] & magnitude) == 0 ? 1 : 0;
  return zeros != 0;
}

// Only the zero the dtype's rule reads is searched for: the first for float16, the last
// for the others.
template <typename Word>
void scan_zero_signs(Moments& m, const std::byte* p, std::int64_t n, bool first) {
  bool negative = false;
  if (first) {
    std::int64_t i = 0;
    while (i + kGroup <= n && !group_has_zero<Word>(p + static_cast<std::size_t>(i) * sizeof(Word))) i += kGroup;
    for (; i < n; ++i)
      if (zero_at<Word>(p, i, negative)) {
        m.first_zero_negative = negative;
        break;
      }
    return;
  }
  std::int64_t j = n;
  while (j - kGroup >= 0 && !group_has_zero<Word>(p + static_cast<std::size_t>(j - kGroup) * sizeof(Word))) j -= kGroup;
  for (; j-- > 0;)
    if (zero_at<Word>(p, j, negative)) {
      m.last_zero_negative = negative;
      break;
    }
}

}  // namespace

void note_zero_signs(Moments& m, const std::byte* p, std::int64_t n, std::size_t itemsize, bool float16) {
  if (m.zero == 0 || (m.fmin != 0 && m.fmax != 0)) return;
  switch (itemsize) {
    case 2: scan_zero_signs<std::uint16_t>(m, p, n, float16); break;
    case 4: scan_zero_signs<std::uint32_t>(m, p, n, float16); break;
    case 8: scan_zero_signs<std::uint64_t>(m, p, n, float16); break;
    default: break;
  }
}

double numpy_zero_extreme(const Moments& m, bool float16) {
  return (float16 ? m.first_zero_negative : m.last_zero_negative) ? -0.0 : 0.0;
}

}  // namespace tensor_inspect
