// tensor_inspect/realize.hpp — the scheduler and the CPU executor: the one door from the
// lazy graph to bytes.
//
// The executor runs each kernel as typed loops over fixed chunks of elements on all cores
// (OpenMP, static schedules); reductions fold fixed blocks and combine them in a fixed
// tree, so every result is the same on 1 or 16 threads (OMP_NUM_THREADS). Float32/float64
// matrix products go through BLAS (OpenBLAS) over fixed row blocks, equally deterministic.
//
// schedule() cuts the graph into kernels at realization boundaries (file/producer sources,
// contiguous, reductions, scans, bitcasts). Element-wise ops and the movement ops between them
// fuse into one loop per output buffer, so no intermediate buffer exists. The list is
// plain data: print it (`--graph`) or test it.
//
//   auto kernels = ti::schedule(t.node());             // nothing runs yet
//   for (auto& k : kernels) std::cout << k.to_string() << '\n';
//   NodePtr done = ti::realize(t.node());             // a BUFFER node over CPU bytes
//   ti::for_each_chunk(t.node(), 1 << 16, [&](const ti::ValueChunk& c) {
//     for (std::size_t k = 0; k < c.size; ++k) total += c.f[k];   // a float tensor, C order
//   });
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tensor_inspect/graph.hpp"

namespace tensor_inspect {

/// What a kernel does.
enum class KernelKind {
  Loop,     ///< one fused element-wise loop (with movement ops folded into its loads)
  Reduce,   ///< one loop over the input of a reduction, element-wise ops fused in
  Produce,  ///< a Producer fills a new buffer (decompression, dequantization)
  Alias,    ///< no loop: the input buffer re-read under a new dtype/shape (bitcast, contiguous no-op)
  Scan,     ///< running sums along one axis (cumsum), element-wise ops fused into its input
};

/// One kernel of a schedule.
struct Kernel {
  KernelKind kind;
  NodePtr output;              ///< the node whose value this kernel makes into a buffer
  std::vector<NodePtr> inputs; ///< buffer nodes (or earlier kernels' outputs) it reads
  std::vector<Op> fused;       ///< the ops inside the loop, sources first
  /// One line: `kernel 1: LOOP float32 (3, 2) <- %0 [PERMUTE ADD MUL]`.
  std::string to_string(std::size_t index) const;
};

/// The kernels that realize `root`, in execution order; empty when root is already a
/// buffer. Allocates nothing.
std::vector<Kernel> schedule(const NodePtr& root);

/// What `--graph` shows for `t`: with `dot`, graph_to_dot of its graph; else "graph:\n", its
/// graph_to_string, "schedule:\n" and one line per kernel of realizing it (Kernel::to_string).
/// Runs nothing; throws as schedule() does.
std::string graph_report(const NodePtr& root, bool dot);

/// Runs the schedule of `root` on the CPU and returns a Buffer node (C-contiguous, same
/// dtype and shape). Output buffers are the only allocations. Throws what producers throw.
NodePtr realize(const NodePtr& root);

/// A run of consecutive elements of a tensor, as for_each_chunk hands them out. The
/// values are in the widest form of the dtype's kind, as a Scalar holds them (dtype.hpp):
/// exactly one pointer is set — `f` for every float dtype (the exact value of the
/// float16/bfloat16/fp8/float32 element as a double), `i` for signed ints, `u` for
/// unsigned ints and for bools (0 or 1). Valid only during the sink call.
struct ValueChunk {
  DType dtype;
  std::int64_t start;  ///< C-order index (elements) of the first value in the tensor
  std::size_t size;    ///< number of values
  const double* f;
  const std::int64_t* i;
  const std::uint64_t* u;
  /// Value k of the chunk as a Scalar of the dtype's kind.
  Scalar at(std::size_t k) const;
};
/// Receives the chunks of for_each_chunk, in C order, on the calling thread.
using ChunkSink = std::function<void(const ValueChunk&)>;

/// Streams the values of `root` in C order without materializing it: every kernel before
/// the last is realized as usual (a reduction's output, a decompressed member), then the
/// last element-wise kernel (loads, decoders — float16, bfloat16, fp8, byte swaps — and
/// fused ops) is computed on all threads, at most `max_elements` values at a time
/// (rounded up to the executor's chunk of 2048), and handed to `sink` in order. Memory:
/// 8 bytes per value of one batch, plus what the earlier kernels realize. An empty tensor
/// calls `sink` never. Throws what realize throws, and whatever `sink` throws.
void for_each_chunk(const NodePtr& root, std::size_t max_elements, const ChunkSink& sink);

/// Like for_each_chunk, for sinks that can run concurrently: `sink` is called from the
/// executor's threads, at the same time, once per chunk, in no particular order. Chunks
/// are the fixed runs [2048 k, 2048 (k + 1)) of the tensor's C order, whatever the
/// thread count, so per-chunk results combined by `start` (a fixed tree, or in order)
/// are deterministic. Memory: 8 bytes per value of one chunk per thread. The first
/// exception a sink throws is rethrown after the threads stop (other chunks may still
/// have been handed out).
void for_each_chunk_parallel(const NodePtr& root, const ChunkSink& sink);

/// for_each_chunk_parallel with longer runs: each sink call holds the fixed run
/// [run k, run (k + 1)) of the C order (the last one shorter), where run is `run_elements`
/// rounded up to a multiple of the executor's chunk of 2048, so a caller can keep its own
/// fixed partition (statistics: chunks of 65536) while the values are computed on the
/// thread that consumes them. Memory: 8 bytes per value of one run per thread. Throws as
/// for_each_chunk_parallel does.
void for_each_run_parallel(const NodePtr& root, std::size_t run_elements, const ChunkSink& sink);

/// Receives a long kernel's progress: `done` of `total` work items (the executor's own
/// fixed partition of the kernel's loop: only the ratio means something), on the thread
/// that called realize or for_each_*, after each batch of about 8 million elements, and
/// done == total when the kernel ends. A kernel of one batch or less reports nothing.
using ProgressHook = std::function<void(std::int64_t done, std::int64_t total)>;
/// Installs `hook` in the process default Context for all later kernels (an empty one, the
/// default, reports nothing); returns the hook it replaces. Not thread-safe: set it before
/// realizing. A thread under a ContextScope reports to its Context's hook (context.hpp).
ProgressHook set_progress_hook(ProgressHook hook);

/// Receives the same chunk of several tensors at once (one ValueChunk per root, in order).
using ZippedChunkSink = std::function<void(const ValueChunk* chunks)>;

/// Streams several tensors of one element count side by side, in one pass: like
/// for_each_chunk_parallel, `sink` is called concurrently from the executor's threads,
/// once per fixed chunk [2048 k, 2048 (k + 1)) of C order, with that chunk of every root
/// (`chunks[r]` for roots[r]). Chunks run in batches of `batch_chunks` (fixed, whatever the
/// thread count); after each batch, on the calling thread, `batch_done(end)` gets the
/// elements done, so a caller can fold the batch's per-chunk results in chunk order and
/// keep memory bounded. Earlier kernels of each root are realized once, up front. Throws
/// Error(BadShape) when the element counts differ, what realize throws, and the first
/// exception a sink or batch_done throws.
void for_each_chunk_zipped(const std::vector<NodePtr>& roots, std::int64_t batch_chunks, const ZippedChunkSink& sink,
                           const std::function<void(std::int64_t done)>& batch_done);

}  // namespace tensor_inspect
