// stats/streamed.cpp — statistics and histograms of a tensor the executor computes (an
// expression's result, a slice, a cast), streamed through the executor one chunk of the
// fixed partition (kStatsChunk elements) at a time on the thread that scans it
// (for_each_run_parallel), instead of realized whole: memory stays at a chunk's values per
// thread however large the result. Each chunk is held in its lane and scanned exactly as
// an in-place source is, so the numbers are those of compute_stats(scan_source(t)).
#include <cstring>
#include <mutex>
#include <optional>
#include <variant>

#include "decode/lanes.hpp"
#include "stats/parts.hpp"
#include "tensor/broadcast.hpp"
#include "tensor_inspect/graph.hpp"
#include "tensor_inspect/realize.hpp"
#include "tensor_inspect/stats.hpp"

namespace tensor_inspect {
namespace {

// The dtype a lane's values are held in while a chunk is scanned.
DType lane_dtype(Lane lane) {
  switch (lane) {
    case Lane::F32: return DType::Float32;
    case Lane::F64: return DType::Float64;
    case Lane::I64: return DType::Int64;
    case Lane::U64: return DType::UInt64;
  }
  return DType::Float64;
}

Lane lane_of_dtype(DType dtype) {
  StoredElements probe;
  probe.stored = dtype;
  return lane_of(probe);
}

// Calls scan(chunk index, source) for every chunk of `t` (committed dtype), from the
// executor's threads in no particular order: a source over the chunk's values in their
// lane. float64 and the ints are the executor's own words; the other floats are narrowed
// to float32, exactly (every float16, bfloat16, fp8 and float32 value is a float).
template <typename Scan>
void for_each_stats_chunk(const Tensor& t, Lane lane, Scan&& scan) {
  for_each_run_parallel(t.node(), static_cast<std::size_t>(kStatsChunk), [&](const ValueChunk& c) {
    thread_local std::vector<float> narrow;
    StoredElements w;
    w.stored = lane_dtype(lane);
    w.numel = static_cast<std::int64_t>(c.size);
    w.shape = {w.numel};
    const void* data = lane == Lane::F64   ? static_cast<const void*>(c.f)
                       : lane == Lane::I64 ? static_cast<const void*>(c.i)
                                           : static_cast<const void*>(c.u);
    if (lane == Lane::F32) {
      narrow.resize(c.size);
      for (std::size_t k = 0; k < c.size; ++k) narrow[k] = static_cast<float>(c.f[k]);
      data = narrow.data();
    }
    w.bytes = std::span<const std::byte>(static_cast<const std::byte*>(data), c.size * dtype_info(w.stored).itemsize);
    scan(c.start / kStatsChunk, w);
  });
}

// A float32 tensor whose producer decodes it in runs (a quantization scheme's logical
// tensor, loaders/decoded_tensor.hpp) as a scan source: each block decoded straight into the
// float lane on the scan's threads, no executor in between. The numbers are the streamed
// ones: the same chunks and blocks, the same float32 values. nullopt for anything else.
std::optional<StoredElements> decoded_source(const Tensor& t) {
  const Node& n = *t.node();
  if (n.op != Op::Producer || n.dtype != DType::Float32) return std::nullopt;
  const auto& producer = std::get<std::shared_ptr<const Producer>>(n.arg);
  if (!producer || !producer->float32_range) return std::nullopt;
  StoredElements s;
  s.stored = DType::Float32;
  s.numel = t.numel();
  s.shape = t.shape();
  s.decode = producer->float32_range;
  s.release_scanned = producer->release_scanned;
  return s;
}

}  // namespace

TensorStats compute_stats_streamed(const Tensor& input, const Defaults& defaults, const ScanOptions& options) {
  // A broadcast repeats its source's values: their statistics, each counted `repeats`
  // times (min, max, absmax, mean and std are those of the source), so a 0-stride view of
  // 10**12 elements over one stored value costs one value.
  if (const std::optional<Broadcast> b = broadcast_source(input)) {
    TensorStats s = compute_stats_streamed(b->source, defaults, options);
    const auto r = static_cast<std::uint64_t>(b->repeats);
    s.count *= b->repeats;
    s.finite *= b->repeats;
    s.nan *= r;
    s.posinf *= r;
    s.neginf *= r;
    s.zero *= r;
    return s;
  }
  const Tensor t = input.cast(commit_dtype(input.dtype(), defaults));
  if (const std::optional<StoredElements> s = decoded_source(t)) return compute_stats(*s, options);
  const Lane lane = lane_of_dtype(t.dtype());
  const std::int64_t numel = t.numel();
  std::vector<Moments> parts(static_cast<std::size_t>((numel + kStatsChunk - 1) / kStatsChunk));
  for_each_stats_chunk(t, lane, [&](std::int64_t chunk, const StoredElements& w) {
    parts[static_cast<std::size_t>(chunk)] = chunk_moments(w, lane, 0);
  });
  return stats_of_parts(parts, lane, t.dtype(), numel);
}

Histogram compute_histogram_streamed(const Tensor& input, const Defaults& defaults, std::size_t bins, double lo,
                                     double hi, const ScanOptions& options) {
  if (const std::optional<Broadcast> b = broadcast_source(input)) {  // as for the statistics
    Histogram h = compute_histogram_streamed(b->source, defaults, bins, lo, hi, options);
    const auto r = static_cast<std::uint64_t>(b->repeats);
    for (std::uint64_t& c : h.counts) c *= r;
    h.nan *= r;
    h.posinf *= r;
    h.neginf *= r;
    h.outside *= r;
    return h;
  }
  const Tensor t = input.cast(commit_dtype(input.dtype(), defaults));
  if (const std::optional<StoredElements> s = decoded_source(t)) return compute_histogram(*s, bins, lo, hi, options);
  const Lane lane = lane_of_dtype(t.dtype());
  StoredElements none;
  none.stored = lane_dtype(lane);
  Histogram total = compute_histogram(none, bins, lo, hi);  // the range checked, no counts yet
  std::mutex m;
  for_each_stats_chunk(t, lane, [&](std::int64_t, const StoredElements& w) {
    const Histogram h = compute_histogram(w, bins, lo, hi);  // counts add up in any order
    std::lock_guard<std::mutex> lock(m);
    for (std::size_t i = 0; i < bins; ++i) total.counts[i] += h.counts[i];
    total.nan += h.nan;
    total.posinf += h.posinf;
    total.neginf += h.neginf;
    total.outside += h.outside;
  });
  return total;
}

}  // namespace tensor_inspect
