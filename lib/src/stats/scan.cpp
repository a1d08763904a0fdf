// stats/scan.cpp — one pass over a source's elements: fixed chunks decoded block by block
// on all cores (OpenMP, static schedule), partials combined in a fixed tree; each chunk's
// pages dropped behind the scan when asked. Statistics and histograms are its two uses.
#include <omp.h>

#include <algorithm>
#include <utility>
#include <cmath>
#include <limits>

#include "decode/lanes.hpp"
#include "buffer/byte_source.hpp"
#include "stats/bit_patterns.hpp"
#include "stats/float_moments.hpp"
#include "stats/histogram_bins.hpp"
#include "stats/parts.hpp"
#include "stats/moments.hpp"
#include "tensor_inspect/context.hpp"
#include "buffer/window_fetcher.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/stats.hpp"

namespace tensor_inspect {
namespace {

// Progress is reported after each window of this many bytes.
constexpr std::uint64_t kWindowBytes = std::uint64_t{32} << 20;

std::int64_t chunk_count(const StoredElements& s) { return (s.numel + kStatsChunk - 1) / kStatsChunk; }

// Chunks per window of `bytes`: at least one, so a window always advances.
std::int64_t window_chunks(const StoredElements& s, std::uint64_t bytes = kWindowBytes) {
  const std::uint64_t chunk_bytes = std::max<std::uint64_t>(1, byte_offset_of(s, std::min(s.numel, kStatsChunk)));
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(bytes / chunk_bytes));
}

// A remote source's window: an eighth of what it may hold, at least 1 MiB, at most kWindowBytes.
std::uint64_t remote_window_bytes() {
  return std::clamp<std::uint64_t>(limits().remote_memory_bytes / 8, std::uint64_t{1} << 20, kWindowBytes);
}

// Bytes [begin, end) of source.bytes for chunks [c0, c1).
std::pair<std::uint64_t, std::uint64_t> chunk_bytes(const StoredElements& s, std::int64_t c0, std::int64_t c1) {
  return {byte_offset_of(s, c0 * kStatsChunk),
          c1 == chunk_count(s) ? s.bytes.size() : byte_offset_of(s, c1 * kStatsChunk)};
}

// Scanned pages are released in runs of at least this many bytes: each release is a TLB
// flush on every core running the process.
constexpr std::uint64_t kReleaseBytes = std::uint64_t{4} << 20;
// A decoded source (a quantization scheme's logical tensor) is released in runs of this
// many elements: at least 4 MiB of its codes at 4 bits a value.
constexpr std::int64_t kReleaseElements = std::int64_t{8} << 20;

// Calls body(chunk) for every chunk, window by window; the chunks of a window run in
// parallel. With release_pages, the pages a thread has scanned leave the resident set as
// it goes (in runs of kReleaseBytes): unmapping costs about as much as mapping (measured:
// 11 ms of CPU per 98 MB of 4 KiB pages), and done here it is shared by the threads
// instead of done alone at exit. A decoded source has no bytes of its own: each thread
// hands its finished runs of elements to the source's release_scanned (which drops only
// the pages no other element reads, so which thread finished what does not matter), and
// the whole tensor once at the end. After a window, progress is reported.
// NOTE: pages are mapped by the faults of the scan itself (the kernel maps 64 KiB around
// each): measured, that is faster than MADV_POPULATE_READ ahead of each chunk (11 ms
// against 15 ms per 98 MB), whose page walk costs more than the faults it saves, and than
// pread(2) of each chunk into a per-thread buffer (61 against 50 ms of CPU per 98 MB of
// bfloat16: the page cache's per-folio lookups remain and a copy at about 5 GB/s is
// added). Measured and not kept either: threads taking chunks as they come free (a dynamic
// schedule) instead of a static half each, no faster in 160 alternated runs.
template <typename Body>
void for_each_chunk(const StoredElements& s, const ScanOptions& o, Body&& body) {
  const std::int64_t chunks = chunk_count(s);
  // A remote source is read window by window, fetched ahead on a thread of its own.
  const bool remote = !s.bytes.empty() && remote_files_open();  // a slice of one too (a zip member)
  const std::int64_t per_window = remote       ? window_chunks(s, remote_window_bytes())
                                  : o.progress ? window_chunks(s)
                                               : std::max<std::int64_t>(1, chunks);
  const bool release = o.release_pages && s.file;
  const auto base = s.file ? static_cast<std::uint64_t>(s.bytes.data() - s.file->bytes().data()) : 0;
  const bool release_decoded = o.release_pages && s.release_scanned;
  const Context& caller = current_context();
  std::optional<WindowFetcher> fetcher;
  if (remote) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> windows;
    for (std::int64_t w0 = 0; w0 < chunks; w0 += per_window)
      windows.push_back(chunk_bytes(s, w0, std::min(chunks, w0 + per_window)));
    fetcher.emplace(s.bytes, std::move(windows), limits().remote_memory_bytes / 2 / remote_window_bytes());
  }
  for (std::int64_t w0 = 0; w0 < chunks; w0 += per_window) {
    const std::int64_t w1 = std::min(chunks, w0 + per_window);
    if (fetcher) fetcher->wait(static_cast<std::size_t>(w0 / per_window));
#pragma omp parallel if (w1 - w0 > 1)
    {
      const ContextScope inherited = ContextScope::borrowing(caller);  // the caller's caps in every worker
      // The bytes this thread scanned and has not released: one run, as a static schedule
      // gives each thread consecutive chunks.
      std::uint64_t begin = 0, end = 0;
      const auto flush = [&] {
        if (end > begin) s.file->release_pages(base + begin, end - begin);  // the whole pages inside
        begin = end;
      };
      std::int64_t first_done = 0, last_done = 0;  // elements, for a decoded source
      const auto flush_decoded = [&] {
        if (last_done > first_done) s.release_scanned(first_done, last_done);
        first_done = last_done;
      };
#pragma omp for schedule(static) nowait
      for (std::int64_t c = w0; c < w1; ++c) {
        body(c);
        if (release_decoded) {
          if (c * kStatsChunk != last_done) {
            flush_decoded();
            first_done = c * kStatsChunk;
          }
          last_done = std::min(s.numel, (c + 1) * kStatsChunk);
          if (last_done - first_done >= kReleaseElements) flush_decoded();
        }
        if (!release) continue;
        const std::pair<std::uint64_t, std::uint64_t> bytes = chunk_bytes(s, c, c + 1);
        if (bytes.first != end) {
          flush();
          begin = bytes.first;
        }
        end = bytes.second;
        if (end - begin >= kReleaseBytes) flush();
      }
      if (release) flush();
      if (release_decoded) flush_decoded();
    }
    if (fetcher) {
      // From the start again: the blocks a window shares with the one before are whole now.
      if (release && s.file->is_remote()) s.file->release_pages(base, chunk_bytes(s, w0, w1).second);
      fetcher->done(static_cast<std::size_t>(w0 / per_window));
    }
    if (o.progress) o.progress(chunk_bytes(s, w0, w1).second);
  }
  if (release_decoded && s.numel > 0) s.release_scanned(0, s.numel);  // what only whole passes free
}

}  // namespace

Moments chunk_moments(const StoredElements& s, Lane lane, std::int64_t chunk) {
  alignas(64) std::byte buf[kStatsBlock * 8];
  Moments m;
  const std::int64_t first = chunk * kStatsChunk, last = std::min(s.numel, first + kStatsChunk);
  const StoredBlockKernel stored_kernel = stored_block_kernel(s);
  for (std::int64_t b = first; b < last; b += kStatsBlock) {
    const std::int64_t n = std::min(kStatsBlock, last - b);
    Moments part;
    if (stored_kernel) {
      const std::byte* p = s.bytes.data() + byte_offset_of(s, b);
      part = stored_kernel(p, n);
      note_zero_signs(part, p, n, dtype_info(s.stored).itemsize,
                      s.stored == DType::Float16);  // float32, bfloat16, float16 as stored
      merge_moments(m, part, lane);
      continue;
    }
    decode_block(s, b, n, buf);
    switch (lane) {
      case Lane::F32: part = block_moments_f32(reinterpret_cast<const float*>(buf), n); break;
      case Lane::F64: part = block_moments_f64(reinterpret_cast<const double*>(buf), n); break;
      case Lane::I64: part = block_moments_i64(reinterpret_cast<const std::int64_t*>(buf), n); break;
      case Lane::U64: part = block_moments_u64(reinterpret_cast<const std::uint64_t*>(buf), n); break;
    }
    if (lane == Lane::F32 || lane == Lane::F64)
      note_zero_signs(part, buf, n, lane == Lane::F32 ? 4 : 8, !s.ggml_type && s.stored == DType::Float16);
    merge_moments(m, part, lane);
  }
  return m;
}

namespace {

Scalar int_scalar(DType dtype, std::int64_t i, std::uint64_t u) {
  if (dtype == DType::Bool) return Scalar::from_bool(u != 0);
  return dtype_info(dtype).kind == DKind::Signed ? Scalar::from_int(i) : Scalar::from_uint(u);
}

std::uint64_t magnitude(std::int64_t v) {
  return v < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
}

}  // namespace

std::optional<double> TensorStats::min_value() const {
  if (finite == 0) return std::nullopt;
  return min.as_double();
}

std::optional<double> TensorStats::max_value() const {
  if (finite == 0) return std::nullopt;
  return max.as_double();
}

TensorStats compute_stats(const StoredElements& s, const ScanOptions& o) {
  const Lane lane = lane_of(s);
  std::vector<Moments> parts(static_cast<std::size_t>(chunk_count(s)));
  if (o.bit_patterns) o.bit_patterns->clear();
  if (receive_chunk_moments(s, lane, o, parts)) {
  } else if (!o.bit_patterns || !counts_bit_patterns(s)) {
    for_each_chunk(s, o, [&](std::int64_t c) { parts[static_cast<std::size_t>(c)] = chunk_moments(s, lane, c); });
  } else {  // the chunks' bit patterns counted too, a table a thread (counts add up in any order)
    const std::size_t itemsize = dtype_info(s.stored).itemsize;
    std::vector<std::vector<std::uint64_t>> counts(static_cast<std::size_t>(omp_get_max_threads()),
                                                   std::vector<std::uint64_t>(pattern_count(s), 0));
    for_each_chunk(s, o, [&](std::int64_t c) {
      parts[static_cast<std::size_t>(c)] = chunk_moments(s, lane, c);
      const auto [begin, end] = chunk_bytes(s, c, c + 1);
      count_patterns(s.bytes.subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin)), itemsize,
                     counts[static_cast<std::size_t>(omp_get_thread_num())].data());
    });
    o.bit_patterns->assign(pattern_count(s), 0);
    for (const auto& mine : counts)
      for (std::size_t k = 0; k < mine.size(); ++k) (*o.bit_patterns)[k] += mine[k];
  }
  return stats_of_parts(parts, lane, s.ggml_type ? DType::Float32 : s.stored, s.numel);
}

TensorStats stats_of_parts(std::vector<Moments>& parts, Lane lane, DType dtype, std::int64_t count) {
  // The fixed combine tree: neighbours at distance 1, 2, 4, ... over the chunk index.
  for (std::size_t step = 1; step < parts.size(); step *= 2)
    for (std::size_t i = 0; i + step < parts.size(); i += 2 * step) merge_moments(parts[i], parts[i + step], lane);
  const Moments m = parts.empty() ? Moments{} : parts[0];

  TensorStats st;
  st.dtype = dtype;
  st.count = count;
  st.finite = m.finite;
  st.nan = m.nan;
  st.posinf = m.posinf;
  st.neginf = m.neginf;
  st.zero = m.zero;
  if (m.finite == 0) return st;
  const double n = static_cast<double>(m.finite);
  switch (lane) {
    case Lane::F32:
    case Lane::F64:
      // A zero extreme is the zero NumPy returns, by position (zero_sign.cpp).
      st.min = Scalar::from_float(m.fmin == 0 ? numpy_zero_extreme(m, dtype == DType::Float16) : m.fmin);
      st.max = Scalar::from_float(m.fmax == 0 ? numpy_zero_extreme(m, dtype == DType::Float16) : m.fmax);
      st.absmax =
          Scalar::from_float(std::max(std::fabs(m.fmin), std::fabs(m.fmax)));  // |-0.0| is 0.0, as np.abs(x).max()
      st.mean = m.fsum / n;
      break;
    case Lane::I64:
      st.min = int_scalar(st.dtype, m.imin, 0);
      st.max = int_scalar(st.dtype, m.imax, 0);
      st.absmax = Scalar::from_uint(std::max(magnitude(m.imin), magnitude(m.imax)));
      st.mean = static_cast<double>(m.isum) / n;
      break;
    case Lane::U64:
      st.min = int_scalar(st.dtype, 0, m.umin);
      st.max = int_scalar(st.dtype, 0, m.umax);
      st.absmax = Scalar::from_uint(m.umax);
      st.mean = static_cast<double>(m.isum) / n;
      break;
  }
  st.std = std::sqrt(m.m2 / n);
  return st;
}

double Histogram::edge(std::size_t i) const {
  // np.linspace(lo, hi, bins + 1): arange(0, num) * step + start, the last set to stop.
  const std::size_t bins = counts.size();
  if (i >= bins) return hi;
  if (!std::isfinite(hi - lo)) {
    // A range wider than the largest double (-1e308 to 1e308): the same rule on the halved
    // range, doubled back, so every edge stays finite and in [lo, hi] (NumPy's linspace
    // gives nan and inf here, and np.histogram fails).
    const double half_step = (hi / 2 - lo / 2) / static_cast<double>(bins);
    return 2 * (static_cast<double>(i) * half_step + lo / 2);
  }
  const double step = (hi - lo) / static_cast<double>(bins);
  if (step == 0) return static_cast<double>(i) / static_cast<double>(bins) * (hi - lo) + lo;
  const double scaled = static_cast<double>(i) * step;
  return scaled + lo;
}

Histogram compute_histogram(const StoredElements& s, std::size_t bins, double lo, double hi, const ScanOptions& o) {
  Histogram h = histogram_frame(bins, lo, hi);
  const HistogramBins slots(h);
  const Lane lane = lane_of(s);
  const int threads = omp_get_max_threads();
  // Integer counts add up the same in any order: each thread keeps its own.
  std::vector<std::vector<std::uint64_t>> per_thread(static_cast<std::size_t>(threads),
                                                     std::vector<std::uint64_t>(slots.slots(), 0));
  for_each_chunk(s, o, [&](std::int64_t c) {
    auto& counts = per_thread[static_cast<std::size_t>(omp_get_thread_num())];
    double values[kStatsBlock];
    alignas(64) std::byte buf[kStatsBlock * 8];
    const std::int64_t first = c * kStatsChunk, last = std::min(s.numel, first + kStatsChunk);
    for (std::int64_t b = first; b < last; b += kStatsBlock) {
      const std::int64_t n = std::min(kStatsBlock, last - b);
      decode_block(s, b, n, buf);
      lane_values(lane, buf, n, values);
      for (std::int64_t i = 0; i < n; ++i) ++counts[slots.slot(values[i])];
    }
  });
  for (const auto& counts : per_thread) slots.add_to(h, counts);
  return h;
}

void decode_values(const StoredElements& s, std::int64_t first, std::span<double> out) {
  const Lane lane = lane_of(s);
  std::int64_t align = 1;
  if (s.ggml_type) align = kStatsBlock;  // a multiple of every GGUF block size
  alignas(64) std::byte buf[kStatsBlock * 8];
  const std::int64_t end = first + static_cast<std::int64_t>(out.size());
  for (std::int64_t b = first / align * align; b < end; b += kStatsBlock) {
    const std::int64_t n = std::min(kStatsBlock, s.numel - b);
    decode_block(s, b, n, buf);
    for (std::int64_t i = std::max(b, first); i < std::min(b + n, end); ++i) {
      const std::int64_t j = i - b;
      double v = 0;
      switch (lane) {
        case Lane::F32: v = static_cast<double>(reinterpret_cast<const float*>(buf)[j]); break;
        case Lane::F64: v = reinterpret_cast<const double*>(buf)[j]; break;
        case Lane::I64: v = static_cast<double>(reinterpret_cast<const std::int64_t*>(buf)[j]); break;
        case Lane::U64: v = static_cast<double>(reinterpret_cast<const std::uint64_t*>(buf)[j]); break;
      }
      out[static_cast<std::size_t>(i - first)] = v;
    }
  }
}

}  // namespace tensor_inspect
