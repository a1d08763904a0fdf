// block_reads_per_thread.hpp — the block caches of one Load read out of order
// (block_reads.hpp), one for each thread that reads it, or one shared by the threads of a remote
// file, kept for as long as its program.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "realize/block_reads.hpp"

namespace tensor_inspect::realize_detail {

/// The caches of one Load, one for each thread that reads it, kept as long as its program: a
/// thread's evaluator of the next batch goes on with the blocks the last one read (a cache per
/// evaluator read each row's blocks again at each batch: 1.6 times a remote file's bytes). A
/// remote file's threads share one cache, under a lock: each thread's share of the kernel
/// begins and ends inside rows' blocks, which separate caches each fetched (1.55 times the
/// tensor's bytes for x.T.sum() of 150 rows on 2 threads, and blocks a quarter the size for
/// the half budget each; 1.1 times shared), and the network, not the copying, bounds them.
/// Thread-safe.
class BlockReadsPerThread {
 public:
  /// The Load's bytes as BlockReads takes them; Limits::out_of_order_bytes split among OpenMP's
  /// threads (a remote file: remote_memory_bytes / 4 for its one cache), read when made.
  BlockReadsPerThread(const std::byte* base, std::uint64_t nbytes, std::size_t itemsize, bool remote);
  /// Keeps 1/`loads` of the budget: a kernel's `loads` Loads read through caches share the cap.
  /// Before the first mine().
  void share(std::uint64_t loads) { budget_ /= std::max<std::uint64_t>(1, loads); }
  /// The bytes of blocks one thread's reads may hold: its cache's budget, or its share of a
  /// remote file's one cache (what the block size settles for).
  std::uint64_t thread_share() const { return remote_ ? budget_ / threads_ : budget_; }
  /// True for a remote file's caches, whose blocks are at least kFetchBlock (64 KiB).
  bool remote() const { return remote_; }
  /// The calling thread's cache. The first call of all settles the block size
  /// (BlockReads::settle) from `sample()`, the buffer indices of the kernel's first elements.
  BlockReads& mine(const std::function<std::vector<std::int64_t>()>& sample);
  /// Logs (-vv) what the caches read: blocks and their size, or that they gave up to the map.
  ~BlockReadsPerThread();
  BlockReadsPerThread(const BlockReadsPerThread&) = delete;
  BlockReadsPerThread& operator=(const BlockReadsPerThread&) = delete;

 private:
  const std::byte* base_;
  std::uint64_t nbytes_;
  std::size_t itemsize_;
  bool remote_;
  std::uint64_t threads_;  ///< OpenMP's, when made
  std::uint64_t budget_;
  std::atomic<unsigned> learned_{0};
  std::atomic<unsigned> copy_learned_{0};  ///< learned_ of the caches of a remote tensor's copy
  std::mutex mutex_;
  std::mutex shared_;  ///< a remote file's one cache's lock
  std::vector<std::pair<std::thread::id, std::unique_ptr<BlockReads>>> caches_;
};

}  // namespace tensor_inspect::realize_detail
