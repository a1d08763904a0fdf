// kernels.hpp — the executor's kernel runners and its one parallel loop.
//
// Parallelism lives here and nowhere above: parallel_for runs a fixed partition of work
// items on OpenMP's threads with a static schedule, and every runner makes each item's
// result independent of which thread computed it, so results never depend on the thread
// count.
#pragma once

#include <cstdint>
#include <atomic>
#include <exception>
#include <mutex>

#include "realize/program.hpp"
#include "tensor_inspect/realize.hpp"

namespace tensor_inspect::realize_detail {

/// Runs body(evaluator_state, i) for i in [0, count) on all threads (statically
/// scheduled), or on the calling thread alone when `serial`; `make_state()` builds one
/// state per thread (scratch buffers). The first exception thrown by any item is rethrown
/// once all threads stop.
template <typename MakeState, typename Body>
void parallel_for(std::int64_t count, MakeState make_state, Body body, bool serial = false) {
  if (count <= 1 || serial) {  // no team at all: starting one costs more than a small kernel
    auto state = make_state();
    for (std::int64_t i = 0; i < count; ++i) body(state, i);
    return;
  }
  std::exception_ptr error;
  std::atomic<bool> failed{false};
  std::mutex m;
#pragma omp parallel
  {
    auto state = make_state();
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) {
      if (failed.load(std::memory_order_relaxed)) continue;
      try {
        body(state, i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(m);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

/// A Loop kernel: its fused body evaluated chunk by chunk into a new CPU buffer.
NodePtr run_loop(const Kernel& k, const BufferMap& buffers);
/// A Reduce kernel: per-chunk partials combined in a fixed tree (reduce.cpp).
NodePtr run_reduce(const Kernel& k, const BufferMap& buffers);
/// A Scan kernel: running sums in tinygrad's cumsum order, lanes on all threads (scan_sum.cpp).
NodePtr run_scan(const Kernel& k, const BufferMap& buffers);
/// A Reduce kernel that is a matrix product BLAS can compute (matmul.cpp), or nullptr.
NodePtr try_run_matmul(const Kernel& k, const BufferMap& buffers);

}  // namespace tensor_inspect::realize_detail
