// kernels.hpp — the executor's kernel runners and its one parallel loop.
//
// Parallelism lives here and nowhere above: parallel_for runs a fixed partition of work
// items on OpenMP's threads with a static schedule, and every runner makes each item's
// result independent of which thread computed it, so results never depend on the thread
// count. Long loops report their progress between fixed batches of items.
#pragma once

#include <algorithm>
#include <cstdint>
#include <atomic>
#include <exception>
#include <mutex>
#include <vector>

#include "realize/program.hpp"
#include "realize/release_behind.hpp"
#include "tensor_inspect/context.hpp"
#include "tensor_inspect/realize.hpp"

namespace tensor_inspect::realize_detail {

/// Work items a kernel's parallel loops run between two progress reports, and hold
/// results for at once: a reduction keeps at most this many block partials
/// (tree_fold_batched), whatever its input's size.
inline constexpr std::int64_t kBatchItems = 4096;

/// Hands `done` of `total` work items of the running kernel to the progress hook
/// (realize.hpp's set_progress_hook), if one is set. Calling thread only.
void report_progress(std::int64_t done, std::int64_t total);

/// parallel_for's default batch hook: nothing.
struct NoBatchHook {
  void operator()(std::int64_t) const {}
};

/// Runs body(evaluator_state, i) for i in [0, count) on all threads (statically
/// scheduled), or on the calling thread alone when `serial`; `make_state()` builds one
/// state per thread (scratch buffers). Over `batch` items (kBatchItems, or fewer when each
/// reads far apart in a file: ReleaseBehind::batch_items), they run in batches of `batch`
/// with report_progress after each (a state per thread and batch). After each batch, items
/// [0, end) all done, the calling thread calls after_batch(end) (a kernel gives back the
/// pages it has read: release_behind.hpp). The exception of the lowest item that throws is
/// rethrown once all threads stop, whatever the thread count: the items after it are skipped,
/// those before it all run (export --dtype int8 of a tensor with a nan, then an inf, named
/// either of them at random on 2 threads).
template <typename MakeState, typename Body, typename AfterBatch = NoBatchHook>
void parallel_for(std::int64_t count, MakeState make_state, Body body, bool serial = false,
                  AfterBatch after_batch = {}, std::int64_t batch = kBatchItems) {
  batch = std::max<std::int64_t>(1, batch);
  const bool report = count > kBatchItems;
  if (count <= 1 || serial) {  // no team at all: starting one costs more than a small kernel
    auto state = make_state();
    for (std::int64_t i = 0; i < count; ++i) {
      body(state, i);
      if ((i + 1) % batch != 0 && i + 1 != count) continue;
      after_batch(i + 1);
      if (report) report_progress(i + 1, count);
    }
    return;
  }
  for (std::int64_t first = 0; first < count; first += batch) {
    const std::int64_t end = std::min(count, first + batch);
    std::exception_ptr error;
    std::atomic<std::int64_t> failed{INT64_MAX};  // the lowest item that threw so far
    std::mutex m;
    const Context& caller = current_context();
#pragma omp parallel
    {
      const ContextScope inherited = ContextScope::borrowing(caller);  // the caller's caps in every worker
      auto state = make_state();
#pragma omp for schedule(static)
      for (std::int64_t i = first; i < end; ++i) {
        if (i > failed.load(std::memory_order_relaxed)) continue;
        try {
          body(state, i);
        } catch (...) {
          std::lock_guard<std::mutex> lock(m);
          if (i < failed.load(std::memory_order_relaxed)) {
            error = std::current_exception();
            failed.store(i, std::memory_order_relaxed);
          }
        }
      }
    }
    if (error) std::rethrow_exception(error);
    after_batch(end);
    if (report) report_progress(end, count);
  }
}

/// The fixed pairwise tree over p[0, n), n >= 1: combine(tree of the first n / 2, tree of
/// the rest). Every reduction combines its block partials in this order.
template <typename T, typename Combine>
T tree_fold(const T* p, std::int64_t n, const Combine& combine) {
  if (n == 1) return p[0];
  const std::int64_t half = n / 2;
  return combine(tree_fold(p, half, combine), tree_fold(p + half, n - half, combine));
}

/// tree_fold over the leaves [first, first + n), made on demand and at most `batch` at a
/// time: a subtree of up to `batch` leaves has them made by make(first, count, out) into
/// `scratch` and folded; a larger one splits in halves as the tree does. The result is
/// tree_fold's over all the leaves, bit for bit; the memory is `batch` values, whatever n.
/// done(count) follows each make.
template <typename T, typename Make, typename Combine, typename Done>
T tree_fold_batched(std::int64_t first, std::int64_t n, std::int64_t batch, std::vector<T>& scratch, const Make& make,
                    const Combine& combine, const Done& done) {
  scratch.reserve(static_cast<std::size_t>(std::min(n, batch)));  // once: never more than a batch
  if (n > batch) {
    const std::int64_t half = n / 2;
    const T left = tree_fold_batched(first, half, batch, scratch, make, combine, done);
    return combine(left, tree_fold_batched(first + half, n - half, batch, scratch, make, combine, done));
  }
  scratch.resize(static_cast<std::size_t>(n));
  make(first, n, scratch.data());
  done(n);
  return tree_fold(scratch.data(), n, combine);
}

/// A Loop kernel: its fused body evaluated chunk by chunk into a new CPU buffer.
NodePtr run_loop(const Kernel& k, const BufferMap& buffers);
/// A Reduce kernel: per-block partials combined in a fixed tree, kBatchItems at a time (reduce.cpp).
NodePtr run_reduce(const Kernel& k, const BufferMap& buffers);
/// A Scan kernel: running sums in tinygrad's cumsum order, lanes on all threads (scan_sum.cpp).
NodePtr run_scan(const Kernel& k, const BufferMap& buffers);
/// The passes a Scan kernel makes over its input: 2 where tinygrad splits the sum of its chunk
/// totals (a first pass makes them: rows past about 2**23), else 1.
int scan_passes(const Kernel& k);
/// The fraction of a Scan kernel's rows it reads: those up to the last it outputs (x.cumsum(0)[:5]
/// reads 5), over all of them.
double scan_rows_read(const Kernel& k);
/// A Reduce kernel that is a matrix product BLAS can compute (matmul.cpp), or nullptr.
NodePtr try_run_matmul(const Kernel& k, const BufferMap& buffers);

}  // namespace tensor_inspect::realize_detail
