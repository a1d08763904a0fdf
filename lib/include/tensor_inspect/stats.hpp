// tensor_inspect/stats.hpp — statistics and histograms of a tensor's values, computed in
// one pass over its stored bytes (decoded chunk by chunk, on all cores).
//
// A tensor from a file is scanned where it lies, in the memory map: stored_elements()
// finds the bytes behind a lazy tensor (any dtype, big-endian, GGUF blocks), and the scan
// decodes fixed chunks of them in parallel (OpenMP, static schedule). Anything else (an
// expression's result, a compressed member) is computed by the executor: scan_source()
// realizes it, compute_stats_streamed() streams it a window at a time.
//
//   ti::StoredElements s = ti::scan_source(tensor);          // in place, or realized
//   ti::TensorStats st = ti::compute_stats(s);                // min max mean std absmax, counts
//   ti::Histogram h = ti::compute_histogram(s, 20, *st.min_value(), *st.max_value());
//
// Summation (the rule that makes results independent of the thread count): elements are
// cut into blocks of kStatsBlock and chunks of kStatsChunk elements, fixed by the element
// index alone. A block's sum is taken in double (ints: exactly, in 128 bits) and its
// squared deviations around the block's own mean (float32, float16, bfloat16, fp8 and GGUF
// values in one pass: around the block's first finite value, then corrected to its mean,
// the cancellation costing at most a factor n + 1 over the sums' rounding); blocks fold
// into their chunk in index order; chunks combine in a fixed pairwise tree over their
// index (Chan, Golub and LeVeque's update for the squared deviations). Which thread ran a
// chunk never matters.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/dtype.hpp"
#include "tensor_inspect/stored_elements.hpp"
#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect {

/// Elements per block: the unit whose sum and squared deviations are taken in one go
/// (decoded into a 16-32 KiB buffer that stays in the L1 cache).
inline constexpr std::int64_t kStatsBlock = 4096;
/// Elements per chunk: the unit of parallel work and of the combine tree.
inline constexpr std::int64_t kStatsChunk = 16 * kStatsBlock;

/// stored_elements(t), or else t realized on the CPU (weak dtypes committed with
/// `defaults`), which allocates the result. Throws what realize throws.
StoredElements scan_source(const Tensor& t, const Defaults& defaults = {});

/// GGUF block-quantized bytes as a scan source: `bytes` are whole blocks of `ggml_type`
/// (which must be dequantizable) making `shape`. Throws Error(Unsupported) for a type this
/// tool cannot dequantize, Error(BadFile) when bytes do not hold whole blocks for shape.
StoredElements gguf_blocks_source(std::span<const std::byte> bytes, std::uint32_t ggml_type, const Shape& shape,
                                  std::shared_ptr<const MappedFile> file);

/// How a scan runs.
struct ScanOptions {
  /// Drop each chunk's pages from the resident set once its thread has scanned it, on every
  /// pass over a source: memory stays flat however large the file, and the unmapping
  /// is shared by the threads instead of done alone at exit. Only file mappings are
  /// affected (a later read maps the pages again from the page cache).
  bool release_pages = false;
  /// Called after each window with the bytes scanned so far (progress display).
  std::function<void(std::uint64_t bytes_done)> progress;
  /// When set, and counts_bit_patterns(source), compute_stats also counts each stored bit
  /// pattern in the same pass, into this vector (resized to 256 or 65,536 entries: entry k
  /// counts the elements whose bytes, read as a little-endian integer, are k), so that a
  /// histogram needs no second pass over the elements (histogram_of_patterns): a remote
  /// file's is not fetched twice. Left empty when the pass did not count.
  std::vector<std::uint64_t>* bit_patterns = nullptr;
};

/// Statistics of a tensor's values (decoded: float16, bfloat16, fp8 and GGUF blocks as
/// their float values). Floats: min, max, mean, std and absmax are over the finite values
/// (nan, +inf, -inf counted apart), as NumPy's on x[np.isfinite(x)]; std is the population
/// std (ddof=0). Bool and ints: min, max, absmax and the sum exact (128-bit), mean the exact
/// sum over count rounded once, std from double deviations as NumPy's. bool is 0/1.
struct TensorStats {
  DType dtype = DType::Float32;  ///< the dtype the values are of
  std::int64_t count = 0;        ///< elements
  std::int64_t finite = 0;       ///< elements that min..absmax are over (ints: all)
  Scalar min, max;               ///< exact, of `dtype`'s kind; meaningless when finite == 0
  Scalar absmax;                 ///< max |x|: a float, or an unsigned int for ints
  double mean = 0, std = 0;      ///< meaningless when finite == 0
  std::uint64_t nan = 0, posinf = 0, neginf = 0, zero = 0;  ///< counts (zero: +0 and -0)
  /// min and max as doubles (ints rounded), nullopt when finite == 0.
  std::optional<double> min_value() const;
  std::optional<double> max_value() const;
};

/// One fused pass over the elements. Results depend on the chunk partition only (see the
/// header comment), never on the number of threads. Throws nothing for valid sources.
TensorStats compute_stats(const StoredElements& source, const ScanOptions& options = {});

/// Counts of equal-width bins over [lo, hi] of the finite values, as NumPy's
/// np.histogram(x.astype(float64)[finite], bins, range=(lo, hi)): edge i is lo + i * (hi -
/// lo) / bins, the last bin includes hi, values outside are not counted. lo == hi widens
/// to lo - 0.5, hi + 0.5 (NumPy's rule).
struct Histogram {
  double lo = 0, hi = 1;
  std::vector<std::uint64_t> counts;
  std::uint64_t nan = 0, posinf = 0, neginf = 0;  ///< counted apart, never in a bin
  std::uint64_t outside = 0;                      ///< finite values outside [lo, hi]
  /// Edge i (0 <= i <= bins) exactly as np.linspace computes it.
  double edge(std::size_t i) const;
};

/// A second pass over the elements filling `bins` (>= 1) bins over [lo, hi]. Throws
/// Error(Usage) when bins is 0 or lo > hi or either is not finite.
Histogram compute_histogram(const StoredElements& source, std::size_t bins, double lo, double hi,
                            const ScanOptions& options = {});

/// True when `source`'s elements are stored whole in 1 or 2 bytes each (int8, uint8, bool,
/// float16, bfloat16, the fp8 types, int16, uint16; not GGUF blocks, not decoded on
/// demand): each value is a function of its bit pattern alone, so at most 65,536 counts
/// describe them all (ScanOptions::bit_patterns).
bool counts_bit_patterns(const StoredElements& source);

/// compute_histogram(source, bins, lo, hi) from the counts of its bit patterns that
/// compute_stats took (ScanOptions::bit_patterns): each pattern decoded once and put in
/// its bin with its count, the same counts without reading the elements again. Throws
/// Error(Usage) as compute_histogram does.
Histogram histogram_of_patterns(const StoredElements& source, const std::vector<std::uint64_t>& counts,
                                std::size_t bins, double lo, double hi);

/// compute_stats of a tensor the executor computes (weak dtypes committed with
/// `defaults`), streamed through the executor one chunk (kStatsChunk elements) at a time on
/// the thread that scans it (for_each_run_parallel) instead of realized whole: the same
/// numbers as compute_stats(scan_source(t, defaults)), with memory flat at about 1 MiB per
/// thread however large t is (plus what the kernels before the last realize, e.g. a
/// reduction's output). Throws what realize throws.
/// `options` apply when t is decoded in runs (a quantization scheme's logical tensor):
/// with release_pages, its stored parts' pages leave the resident set behind the scan.
TensorStats compute_stats_streamed(const Tensor& t, const Defaults& defaults = {}, const ScanOptions& options = {});

/// compute_histogram of such a tensor, streamed the same way (the executor runs again).
/// Throws Error(Usage) as compute_histogram does.
Histogram compute_histogram_streamed(const Tensor& t, const Defaults& defaults, std::size_t bins, double lo, double hi,
                                     const ScanOptions& options = {});

/// The values of `source` as doubles, in its stored order, `first` .. `first + out.size()`
/// (a quantized source decodes the blocks that cover the range). For heatmaps and tests.
void decode_values(const StoredElements& source, std::int64_t first, std::span<double> out);

}  // namespace tensor_inspect
