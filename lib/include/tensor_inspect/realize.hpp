// tensor_inspect/realize.hpp — the scheduler and the CPU executor: the one door from the
// lazy graph to bytes.
//
// schedule() cuts the graph into kernels at realization boundaries (file/producer sources,
// contiguous, reductions, bitcasts). Element-wise ops and the movement ops between them
// fuse into one loop per output buffer, so no intermediate buffer exists. The list is
// plain data: print it (`--graph`) or test it.
//
//   auto kernels = ti::schedule(t.node());             // nothing runs yet
//   for (auto& k : kernels) std::cout << k.to_string() << '\n';
//   NodePtr done = ti::realize(t.node());             // a BUFFER node over CPU bytes
#pragma once

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

/// Runs the schedule of `root` on the CPU and returns a Buffer node (C-contiguous, same
/// dtype and shape). Output buffers are the only allocations. Throws what producers throw.
NodePtr realize(const NodePtr& root);

}  // namespace tensor_inspect
