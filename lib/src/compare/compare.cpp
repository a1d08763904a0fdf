// compare/compare.cpp — two tensors of one shape compared element by element in one pass:
// both stream side by side through the executor (for_each_chunk_zipped), each fixed chunk
// of 2048 elements folds into its own partial on whichever thread runs it, and a batch's
// partials fold in chunk order on the calling thread, so every figure is the same on any
// number of threads and memory stays flat.
#include <optional>
#include <vector>

#include "tensor_inspect/compare.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/realize.hpp"
#include "tensor_inspect/stats.hpp"
#include "compare/batch_windows.hpp"
#include "compare/pair_fold.hpp"
#include "compare/received_pairs.hpp"
#include "tensor/broadcast.hpp"

namespace tensor_inspect {
using namespace compare_detail;
namespace {

// Chunks per batch: 4096 chunks of 2048 elements (2**23 elements, 360 KiB of partials):
// few enough batches that the threads rarely wait at the batch barrier.
constexpr std::int64_t kBatchChunks = 4096;

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
  // Two remote tensors read as stored: compared as their bytes arrive, both transfers at once.
  if (!bits && run_a.s && run_b.s && run_a.s->stored == da && run_b.s->stored == db)
    if (std::optional<Partial> t = fold_received_pairs(*run_a.s, *run_b.s, rule, floats, progress)) {
      finish_comparison(c, *t);
      return c;
    }
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
        fold_chunk_pair(p, rule, v[0], v[1], floats, bits ? &v[2] : nullptr, bits ? &v[3] : nullptr);
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

  finish_comparison(c, total);
  return c;
}

}  // namespace tensor_inspect
