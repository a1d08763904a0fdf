// compare/compare.cpp — two tensors of one shape compared element by element, streamed
// through the executor in fixed slices of C order.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "tensor_inspect/compare.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/memoryview.hpp"

namespace tensor_inspect {
namespace {

// The dtype a slice is realized in: float64 for floats, int64/uint64 for integers, so
// every value is exact before it is compared.
DType wide_dtype(DType d) {
  if (is_float(d)) return DType::Float64;
  return is_unsigned(d) ? DType::UInt64 : DType::Int64;
}

struct Slice {
  MemoryView mv;
  DKind kind;  // of the wide dtype
  const std::byte* p() const { return mv.buffer->bytes().data(); }
  // Loads go through memcpy: a slice read in place from a file may be unaligned.
  long double exact(std::int64_t i) const {
    const std::byte* at = p() + i * 8;
    if (kind == DKind::Float) { double v; std::memcpy(&v, at, 8); return v; }
    if (kind == DKind::Unsigned) { std::uint64_t v; std::memcpy(&v, at, 8); return static_cast<long double>(v); }
    std::int64_t v; std::memcpy(&v, at, 8); return static_cast<long double>(v);
  }
};

Slice realize_slice(const Tensor& flat, std::int64_t begin, std::int64_t end, const Defaults& defaults) {
  const DType wide = wide_dtype(commit_dtype(flat.dtype(), defaults));
  DataOptions dopt;
  dopt.defaults = defaults;
  Slice s{data(flat.shrink({{begin, end}}).cast(wide), dopt), DKind::Float};
  s.kind = wide == DType::Float64 ? DKind::Float : wide == DType::UInt64 ? DKind::Unsigned : DKind::Signed;
  return s;
}

MemoryView realize_bits(const Tensor& flat, std::int64_t begin, std::int64_t end, const Defaults& defaults) {
  DataOptions dopt;
  dopt.defaults = defaults;
  return data(flat.shrink({{begin, end}}), dopt);
}

// Folds element pairs into a Comparison. T is double when both sides are floats (their
// float64 values are exact), long double otherwise (exact for every int64 and uint64).
struct Accumulator {
  Comparison& c;
  const CompareOptions& o;
  double rtol, atol;
  double sumsq = 0, dot = 0, norm_a = 0, norm_b = 0;
  std::int64_t counted = 0;
  bool all_equal_finite = true;

  // `bits_differ`: -1 when values decide, else whether the elements' bytes differ (--exact).
  template <class T>
  void add(T x, T y, std::int64_t index, int bits_differ) {
    const bool nan_x = std::isnan(x), nan_y = std::isnan(y);
    bool mismatch;
    if (bits_differ >= 0) mismatch = bits_differ == 1;
    else if (nan_x || nan_y) mismatch = !(nan_x && nan_y && o.nan_equal);
    else if (x == y) mismatch = false;
    else if (std::isinf(x) || std::isinf(y)) mismatch = true;
    else mismatch = !(std::fabs(static_cast<double>(x - y)) <= atol + rtol * std::fabs(static_cast<double>(y)));
    if (mismatch) {
      if (!c.first_mismatch) c.first_mismatch = index;
      ++c.mismatched;
    }
    if (nan_x || nan_y) return;
    const double d = x == y ? 0.0 : static_cast<double>(std::fabs(x - y));
    c.max_abs = std::max(c.max_abs, d);
    if (d > 0) c.max_rel = std::max(c.max_rel, y == 0 ? INFINITY : d / static_cast<double>(std::fabs(y)));
    sumsq += d * d;
    ++counted;
    if (std::isinf(x) || std::isinf(y)) return;
    const auto dx = static_cast<double>(x), dy = static_cast<double>(y);
    dot += dx * dy;
    norm_a += dx * dx;
    norm_b += dy * dy;
    all_equal_finite &= d == 0;
  }
};

double load_double(const std::byte* p, std::int64_t i) {
  double v;
  std::memcpy(&v, p + i * 8, 8);
  return v;
}

}  // namespace

Comparison compare_tensors(const Tensor& a, const Tensor& b, const CompareOptions& options,
                           const std::function<void(std::int64_t done)>& progress) {
  if (a.shape() != b.shape())
    throw Error(ErrorCode::BadShape, "compare: shapes " + shape_repr(a.shape()) + " and " + shape_repr(b.shape()) + " differ");
  Comparison c;
  c.numel = a.numel();
  const Tensor fa = a.reshape({c.numel}), fb = b.reshape({c.numel});
  const bool bits = options.exact && commit_dtype(a.dtype(), options.defaults) == commit_dtype(b.dtype(), options.defaults);
  Accumulator acc{c, options, options.exact ? 0 : options.rtol, options.exact ? 0 : options.atol};
  const std::int64_t chunk = std::max<std::int64_t>(1, options.chunk);
  for (std::int64_t begin = 0; begin < c.numel; begin += chunk) {
    const std::int64_t end = std::min(c.numel, begin + chunk), n = end - begin;
    const Slice sa = realize_slice(fa, begin, end, options.defaults), sb = realize_slice(fb, begin, end, options.defaults);
    if (bits) {
      const MemoryView ba = realize_bits(fa, begin, end, options.defaults), bb = realize_bits(fb, begin, end, options.defaults);
      const auto itemsize = static_cast<std::size_t>(ba.itemsize);
      const std::byte *pa = ba.buffer->bytes().data(), *pb = bb.buffer->bytes().data();
      for (std::int64_t i = 0; i < n; ++i) {
        const auto off = static_cast<std::size_t>(i) * itemsize;
        acc.add(sa.exact(i), sb.exact(i), begin + i, std::memcmp(pa + off, pb + off, itemsize) != 0);
      }
    } else if (sa.kind == DKind::Float && sb.kind == DKind::Float) {
      const std::byte *pa = sa.p(), *pb = sb.p();
      for (std::int64_t i = 0; i < n; ++i) acc.add(load_double(pa, i), load_double(pb, i), begin + i, -1);
    } else {
      for (std::int64_t i = 0; i < n; ++i) acc.add(sa.exact(i), sb.exact(i), begin + i, -1);
    }
    if (progress) progress(end);
  }
  c.rmse = acc.counted ? std::sqrt(acc.sumsq / static_cast<double>(acc.counted)) : 0.0;
  // Rounding can carry the quotient just past 1 (identical tensors): clamp to [-1, 1].
  if (acc.norm_a > 0 && acc.norm_b > 0) c.cosine = std::clamp(acc.dot / (std::sqrt(acc.norm_a) * std::sqrt(acc.norm_b)), -1.0, 1.0);
  else if (acc.norm_a == 0 && acc.norm_b == 0 && acc.all_equal_finite) c.cosine = 1.0;
  return c;
}

}  // namespace tensor_inspect
