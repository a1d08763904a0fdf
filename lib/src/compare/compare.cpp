// compare/compare.cpp — two tensors of one shape compared element by element in one pass:
// both stream side by side through the executor (for_each_chunk_zipped), each fixed chunk
// of 2048 elements folds into its own partial on whichever thread runs it, and a batch's
// partials fold in chunk order on the calling thread, so every figure is the same on any
// number of threads and memory stays flat.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <optional>
#include <vector>

#include "tensor_inspect/compare.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/realize.hpp"
#include "tensor_inspect/stats.hpp"
#include "compare/batch_windows.hpp"
#include "tensor/broadcast.hpp"

namespace tensor_inspect {
namespace {

// Chunks per batch: 4096 chunks of 2048 elements (2**23 elements, 360 KiB of partials):
// few enough batches that the threads rarely wait at the batch barrier.
constexpr std::int64_t kBatchChunks = 4096;

// The figures of one chunk (or of everything folded so far).
struct Partial {
  std::int64_t mismatched = 0;
  std::int64_t first_mismatch = -1;  // C-order index, -1: none
  double max_abs = 0, max_rel = 0;
  double sumsq = 0, dot = 0, norm_a = 0, norm_b = 0;
  std::int64_t counted = 0;       // pairs without NaN (the figures' population)
  bool all_equal_finite = true;   // every finite pair equal (cosine of two zero tensors is 1)
  bool infinity_differs = false;  // a pair with an infinity that differs: no cosine

  // Folds `p`, the partial of the chunks right after this one's.
  void fold(const Partial& p) {
    if (first_mismatch < 0) first_mismatch = p.first_mismatch;
    mismatched += p.mismatched;
    max_abs = std::max(max_abs, p.max_abs);
    max_rel = std::max(max_rel, p.max_rel);
    sumsq += p.sumsq;
    dot += p.dot;
    norm_a += p.norm_a;
    norm_b += p.norm_b;
    counted += p.counted;
    all_equal_finite = all_equal_finite && p.all_equal_finite;
    infinity_differs = infinity_differs || p.infinity_differs;
  }
};

struct Rule {
  double rtol, atol;
  bool nan_equal;
};

// One element pair. T is double when both sides are floats (their float64 values are
// exact), long double otherwise (exact for every int64 and uint64 and every double).
// `bits_differ`: -1 when values decide, else whether the elements' bits differ (--exact).
template <class T>
inline void add_pair(Partial& p, const Rule& rule, T x, T y, std::int64_t index, int bits_differ) {
  const bool nan_x = std::isnan(x), nan_y = std::isnan(y);
  bool mismatch;
  if (bits_differ >= 0) mismatch = bits_differ == 1;
  else if (nan_x || nan_y) mismatch = !(nan_x && nan_y && rule.nan_equal);
  else if (x == y) mismatch = false;
  else if (std::isinf(x) || std::isinf(y)) mismatch = true;
  else mismatch = !(std::fabs(static_cast<double>(x - y)) <= rule.atol + rule.rtol * std::fabs(static_cast<double>(y)));
  if (mismatch) {
    if (p.first_mismatch < 0) p.first_mismatch = index;
    ++p.mismatched;
  }
  if (nan_x || nan_y) return;
  const double d = x == y ? 0.0 : static_cast<double>(std::fabs(x - y));
  p.max_abs = std::max(p.max_abs, d);
  // An infinite difference is infinitely far relative to anything (inf / inf would be NaN,
  // which max would drop: -inf against inf showed max_rel 0).
  if (d > 0)
    p.max_rel = std::max(p.max_rel, y == 0 || std::isinf(d) ? INFINITY : d / static_cast<double>(std::fabs(y)));
  p.sumsq += d * d;
  ++p.counted;
  if (std::isinf(x) || std::isinf(y)) {
    p.infinity_differs = p.infinity_differs || d > 0;  // equal infinities leave the cosine be
    return;
  }
  const auto dx = static_cast<double>(x), dy = static_cast<double>(y);
  p.dot += dx * dy;
  p.norm_a += dx * dx;
  p.norm_b += dy * dy;
  p.all_equal_finite = p.all_equal_finite && d == 0;
}

// The hot path: two float chunks, no --exact. A chunk of finite pairs folds in a
// branch-free loop over kLanes fixed lanes (the compiler vectorizes it; lanes combine in
// a fixed order, so the sums do not depend on threads); a chunk holding a NaN or an
// infinity goes pair by pair through add_pair, so the rules live in one place.
constexpr std::size_t kLanes = 8;

void fold_floats(Partial& p, const Rule& rule, const ValueChunk& a, const ValueChunk& b) {
  const double* x = a.f;
  const double* y = b.f;
  const std::size_t n = a.size, whole = n / kLanes * kLanes;
  const double atol = rule.atol, rtol = rule.rtol;
  // Doubles only (the mismatch count too: exact far beyond a chunk), so the lanes vectorize.
  double bad[kLanes] = {}, max_abs[kLanes] = {}, max_rel[kLanes] = {}, sumsq[kLanes] = {}, dot[kLanes] = {},
         na[kLanes] = {}, nb[kLanes] = {};
  for (std::size_t k = 0; k < whole; k += kLanes) {
    for (std::size_t l = 0; l < kLanes; ++l) {
      const double xv = x[k + l], yv = y[k + l];
      const double d = std::fabs(xv - yv), ay = std::fabs(yv);
      bad[l] += d <= atol + rtol * ay ? 0.0 : 1.0;
      max_abs[l] = d > max_abs[l] ? d : max_abs[l];
      const double rel = d / ay;  // d > 0 over 0 is inf; 0 / 0 is NaN, which `>` skips
      max_rel[l] = rel > max_rel[l] ? rel : max_rel[l];
      sumsq[l] += d * d;
      dot[l] += xv * yv;
      na[l] += xv * xv;
      nb[l] += yv * yv;
    }
  }
  for (std::size_t k = whole; k < n; ++k) {
    const std::size_t l = k - whole;
    const double xv = x[k], yv = y[k];
    const double d = std::fabs(xv - yv), ay = std::fabs(yv);
    bad[l] += d <= atol + rtol * ay ? 0.0 : 1.0;
    max_abs[l] = d > max_abs[l] ? d : max_abs[l];
    const double rel = d / ay;
    max_rel[l] = rel > max_rel[l] ? rel : max_rel[l];
    sumsq[l] += d * d;
    dot[l] += xv * yv;
    na[l] += xv * xv;
    nb[l] += yv * yv;
  }
  Partial q;
  double mismatched = 0;
  for (std::size_t l = 0; l < kLanes; ++l) {
    mismatched += bad[l];
    q.max_abs = std::max(q.max_abs, max_abs[l]);
    q.max_rel = std::max(q.max_rel, max_rel[l]);
    q.sumsq += sumsq[l];
    q.dot += dot[l];
    q.norm_a += na[l];
    q.norm_b += nb[l];
  }
  // A NaN or an infinity (or squares past double's range) shows in the norms: then the
  // chunk goes pair by pair through add_pair, the reference rules.
  if (!std::isfinite(q.norm_a) || !std::isfinite(q.norm_b) || !std::isfinite(q.sumsq)) {
    for (std::size_t k = 0; k < n; ++k)
      add_pair<double>(p, rule, x[k], y[k], a.start + static_cast<std::int64_t>(k), -1);
    return;
  }
  q.mismatched = static_cast<std::int64_t>(mismatched);
  if (q.mismatched)
    for (std::size_t k = 0; k < n; ++k)
      if (!(std::fabs(x[k] - y[k]) <= atol + rtol * std::fabs(y[k]))) {
        q.first_mismatch = a.start + static_cast<std::int64_t>(k);
        break;
      }
  q.counted = static_cast<std::int64_t>(n);
  q.all_equal_finite = q.max_abs == 0;
  p.fold(q);
}

long double exact_value(const ValueChunk& c, std::size_t k) {
  if (c.f) return c.f[k];
  if (c.i) return static_cast<long double>(c.i[k]);
  return static_cast<long double>(c.u[k]);
}

// The unsigned integer of the same size as a float dtype, to compare its bits.
DType bits_dtype(DType d) {
  switch (dtype_info(d).itemsize) {
    case 1: return DType::UInt8;
    case 2: return DType::UInt16;
    case 4: return DType::UInt32;
    default: return DType::UInt64;
  }
}

}  // namespace

Comparison compare_tensors(const Tensor& a, const Tensor& b, const CompareOptions& options,
                           const std::function<void(std::int64_t done)>& progress) {
  if (a.shape() != b.shape())
    throw Error(ErrorCode::BadShape,
                "compare: shapes " + shape_repr(a.shape()) + " and " + shape_repr(b.shape()) + " differ");
  // Both broadcast along the same axes (torch's expand saved as is: a few stored values
  // shown as 10**12): each pair repeats along them, so the pairs are compared once and
  // counted for every repetition. The figures are the same (every pair has the same
  // weight); counts scale, and the first mismatch is the same pair's first place.
  if (const std::optional<CommonBroadcast> common = common_broadcast(a, b)) {
    const std::int64_t repeats = common->repeats;
    auto scaled = [&](std::int64_t done) {
      if (progress) progress(done * repeats);
    };
    Comparison c = compare_tensors(common->a, common->b, options, scaled);
    c.numel = a.numel();
    c.mismatched *= repeats;
    c.sum_sq_a *= static_cast<double>(repeats);  // every repetition counts, as in a dense tensor
    c.sum_sq_diff *= static_cast<double>(repeats);
    if (c.first_mismatch) c.first_mismatch = unreduced_index(*c.first_mismatch, common->a.shape(), a.shape());
    return c;
  }
  if (broadcast_source(a) && broadcast_source(b) && static_cast<std::uint64_t>(a.numel()) > limits().broadcast_pairs)
    throw limit_error("broadcast_pairs",
                      "compare: both tensors broadcast their stored values along different axes, shape " +
                          shape_repr(a.shape()) + ": " + std::to_string(a.numel()) + " pairs to visit" +
                          limit_hint("broadcast_pairs"));
  Comparison c;
  c.numel = a.numel();
  // Weak dtypes (literals) commit first, as data() would: a cast to the committed dtype.
  const DType da = commit_dtype(a.dtype(), options.defaults), db = commit_dtype(b.dtype(), options.defaults);
  const Tensor ta = a.dtype() == da ? a : a.cast(da), tb = b.dtype() == db ? b : b.cast(db);
  // --exact on one float dtype compares bits: the same-size uint views stream alongside.
  const bool bits = options.exact && da == db && is_float(da);
  std::vector<NodePtr> roots{ta.node(), tb.node()};
  if (bits) {
    roots.push_back(ta.bitcast(bits_dtype(da)).node());
    roots.push_back(tb.bitcast(bits_dtype(db)).node());
  }
  const Rule rule{options.exact ? 0 : options.rtol, options.exact ? 0 : options.atol, options.nan_equal};
  const bool floats = is_float(da) && is_float(db) && !options.exact;

  // A tensor read in its stored C order (as its file holds it) gives its pages back behind
  // the batches, as --stats' scan does: a diff of two 1 GiB files stays flat.
  struct StoredRun {
    std::optional<StoredElements> s;
    std::uint64_t released = 0;  ///< bytes given back so far
    void behind(std::int64_t done) {
      if (!s || !s->c_order || !s->file || s->numel == 0) return;
      const std::uint64_t itemsize = s->bytes.size() / static_cast<std::uint64_t>(s->numel);
      const std::uint64_t end = itemsize * static_cast<std::uint64_t>(done);
      const auto base = static_cast<std::uint64_t>(s->bytes.data() - s->file->bytes().data());
      if (end > released) s->file->release_pages(base + released, end - released);
      released = end;
    }
  };
  StoredRun run_a{stored_elements(ta, false)}, run_b{stored_elements(tb, false)};
  Partial total;
  std::vector<Partial> parts(static_cast<std::size_t>(kBatchChunks));
  std::int64_t batch_first = 0;  // index of the batch's first chunk
  constexpr auto kChunkElements = static_cast<std::int64_t>(1) << 11;
  BatchWindows windows(run_a.s, run_b.s, kBatchChunks * kChunkElements, kChunkElements);
  windows.before(0);
  auto chunk_slot = [&](std::int64_t start) { return static_cast<std::size_t>(start / kChunkElements - batch_first); };
  for_each_chunk_zipped(
      roots, windows.batch() / kChunkElements,
      [&](const ValueChunk* v) {
        Partial& p = parts[chunk_slot(v[0].start)];
        p = Partial{};
        if (floats) {
          fold_floats(p, rule, v[0], v[1]);
          return;
        }
        for (std::size_t k = 0; k < v[0].size; ++k) {
          const int differ = bits ? (v[2].u[k] != v[3].u[k] ? 1 : 0) : -1;
          add_pair<long double>(p, rule, exact_value(v[0], k), exact_value(v[1], k),
                                v[0].start + static_cast<std::int64_t>(k), differ);
        }
      },
      [&](std::int64_t done) {
        const std::int64_t chunks = (done + kChunkElements - 1) / kChunkElements - batch_first;
        for (std::int64_t i = 0; i < chunks; ++i) total.fold(parts[static_cast<std::size_t>(i)]);
        batch_first += chunks;
        windows.after(done);
        run_a.behind(done);
        run_b.behind(done);
        if (progress) progress(done);
      });

  c.mismatched = total.mismatched;
  if (total.first_mismatch >= 0) c.first_mismatch = total.first_mismatch;
  c.max_abs = total.max_abs;
  c.max_rel = total.max_rel;
  c.sum_sq_a = total.norm_a;
  c.sum_sq_diff = total.sumsq;
  c.rmse = total.counted ? std::sqrt(total.sumsq / static_cast<double>(total.counted)) : 0.0;
  // Rounding can carry the quotient just past 1 (identical tensors): clamp to [-1, 1].
  // Equal tensors have cosine 1 also where the squared norms overflow (1e300 squared is inf,
  // and inf / inf would say nan) and where both are zero.
  // A pair with an infinity that differs leaves the angle undefined (NumPy's dot over norms
  // says nan), however well the finite pairs agree.
  if (total.infinity_differs) c.cosine = std::nullopt;
  else if (total.all_equal_finite) c.cosine = 1.0;
  else if (total.norm_a > 0 && total.norm_b > 0)
    c.cosine = std::clamp(total.dot / (std::sqrt(total.norm_a) * std::sqrt(total.norm_b)), -1.0, 1.0);
  return c;
}

}  // namespace tensor_inspect
