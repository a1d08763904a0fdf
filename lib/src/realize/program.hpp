// program.hpp — one fused kernel body lowered to a flat program over chunks.
//
// Movement ops are pushed down to the leaves, as tinygrad's ShapeTrackers are: every
// node of the program is an *instance* of a graph node under one index map (a stack of
// Views from the kernel's index space to the node's own C order), so a chunk of output
// indices becomes, at each leaf, a chunk of buffer indices. An instance is made once per
// distinct (node, index map): a graph that uses a node twice under the same map (x % x,
// t * t) computes it once per chunk, and the program is a DAG in topological order that
// a chunk walks once, node by node — linear in its size, never exponential.
#pragma once

#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "realize/block_reads_per_thread.hpp"
#include "realize/chunk.hpp"
#include "realize/chunk_order.hpp"
#include "tensor_inspect/graph.hpp"

namespace tensor_inspect::realize_detail {

/// Realized nodes of the schedule so far: graph node -> its BUFFER node.
using BufferMap = std::unordered_map<const Node*, NodePtr>;

/// One node of a lowered kernel.
struct Instance {
  enum Kind { Load, Const, Formula, Elem, Bitcast, MulAcc } kind = Const;
  Op op = Op::Const;
  DType dtype = DType::Float32;
  std::vector<std::size_t> src;       ///< earlier instances (program order)
  std::vector<View> views;            ///< index map, top (kernel space) view last; empty: identity
  bool masked = false;                ///< some view has a mask: hidden elements read as 0
  const std::byte* data = nullptr;    ///< Load: the buffer's bytes
  /// Load of a file's mapping or of a remote file that reads it in order: with no views (kernel
  /// index i reads element i), or under views of scan order `order` (view_order.hpp: a stepped
  /// slice, a shrink, a pad, a flip), so a kernel's finished indices are finished bytes. That
  /// file, and where `data` (the buffer's element 0) lies in it; null for other Loads.
  const MappedFile* file = nullptr;
  std::uint64_t file_offset = 0, file_bytes = 0;
  int order = 1;  ///< +1: the buffer index read never decreases with the kernel index; -1: never increases
  /// Load of a remote file's bytes, not fetched when the program was built: each chunk's
  /// elements are fetched (MappedFile::fetch) before they are read, so a scan holds only the
  /// windows it reads (release_behind.hpp fetches them ahead and gives them back behind).
  /// With no views, or under views read in order that reach more than a few elements.
  bool fetch_on_read = false;
  /// Load of a tensor of more than Limits::out_of_order_bytes in a file (local map or remote)
  /// that the kernel reads out of order (a permute, a broadcast): its elements are read through
  /// a bounded block cache of each thread (block_caches, block_reads.hpp), not through `data`'s
  /// pages; `file_bytes` is the buffer's length.
  enum class BlockReadsFrom : std::uint8_t { None, LocalMap, RemoteFile } block_reads = BlockReadsFrom::None;
  /// Its caches, one per thread, shared by the copies of the program's evaluators.
  std::shared_ptr<BlockReadsPerThread> block_caches;
  Word value{};                       ///< Const: the value as a word of its dtype
  const Producer* formula = nullptr;  ///< Formula: element(i)
  /// MulAcc (realize/mulacc.hpp): src {a, b, c}, the value (±a*b) + (±c) in one rounding.
  bool neg_product = false, neg_addend = false;
  /// The graph node's element count and rank, and whether its value depends on a realized
  /// reduction (a load of one, or an op over such a value): where tinygrad cuts kernels.
  std::int64_t node_numel = 0;
  std::size_t node_rank = 0;
  bool after_reduce = false;
};

/// A lowered kernel body: instances in topological order, the last one is the root.
struct Program {
  Shape space;                     ///< the kernel's index space (C order)
  std::vector<Instance> nodes;
  /// The order its chunks run in: linear (as lower() makes it), or banded for a Loop kernel (run_loop
  /// and the streams set it: ChunkOrder::of), which the block caches' first reads sample in the same
  /// order.
  ChunkOrder order;
  std::size_t root() const { return nodes.size() - 1; }
  /// True when the root is a load: the kernel only moves stored elements (a slice, a
  /// flip, a permute, a pad), so ChunkEvaluator::gather can copy them as bytes.
  bool moves_only() const { return nodes.back().kind == Instance::Load; }
  /// True when the root is a constant under no mask: every chunk holds the same value.
  bool is_constant() const { return nodes.back().kind == Instance::Const && !nodes.back().masked; }
  /// True when chunks must run on one thread: a Producer's element formula may keep state
  /// (GGUF's keeps the last dequantized block) and graph.hpp promises it no thread safety;
  /// only its float_range is thread-safe, and loops use that for unmoved reads.
  bool serial() const {
    for (const auto& n : nodes)
      if (n.kind == Instance::Formula && !(n.formula->float_range && n.views.empty())) return true;
    return false;
  }
};

/// Lowers `body` over the index space `body->shape`, or, with `permute`, over that shape
/// with its axes reordered (a reduction puts its reduced axes last). Nodes found in
/// `buffers` (and BUFFER nodes) are loads.
/// With `fetch` false, nothing of a remote file is fetched: a program only looked at, never run.
Program lower(const NodePtr& body, const BufferMap& buffers,
              const std::optional<std::vector<std::int64_t>>& permute = {}, bool fetch = true);

/// A linear index of `v.shape` mapped through the view to a linear index of the space under
/// it, or -1 where the view's mask hides it.
std::int64_t map_index(const View& v, std::int64_t idx);

/// Per-thread scratch for evaluating chunks of one program (chunk_evaluator.cpp).
class ChunkEvaluator {
 public:
  explicit ChunkEvaluator(const Program& program);
  /// Computes elements [start, start + n) of the kernel space (n <= kChunk, and
  /// start + n <= the space's element count) at every
  /// instance; returns the root's words, valid until the next call.
  const Word* run(std::int64_t start, std::size_t n);
  /// The words instance `k` took in the last run (valid until the next call).
  const Word* values(std::size_t k) const { return values_[k].data(); }
  /// Copies the stored bytes of elements [start, start + n) of Load instance `k` to `out`
  /// (itemsize bytes each; an element a mask hides is zero bytes, the 0 of every dtype).
  /// Moving elements this way keeps every bit, NaN payloads included, where decoding
  /// them into words and encoding them back would quiet a signalling NaN.
  void gather(std::size_t k, std::int64_t start, std::size_t n, std::byte* out);

 private:
  const std::int64_t* indices(const Instance& inst, std::int64_t start, std::size_t n);
  const Program& program_;
  std::size_t capacity_;  ///< elements per chunk: kChunk, or the whole space when smaller
  std::vector<std::vector<Word>> values_;
  std::vector<std::int64_t> idx_, counter_;
  std::vector<std::byte> bytes_;
  std::vector<bool> const_ready_;
  /// For each Load with block_reads, this thread's cache (found at its first read).
  std::vector<BlockReads*> block_reads_;
  BlockReads& block_reads(std::size_t k);
};

}  // namespace tensor_inspect::realize_detail
