// block_reads_per_thread.cpp — BlockReadsPerThread: see block_reads_per_thread.hpp.
#include "realize/block_reads_per_thread.hpp"

#include <omp.h>

#include <algorithm>
#include <string>

#include "buffer/spill_file.hpp"
#include "log/log.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect::realize_detail {

BlockReadsPerThread::BlockReadsPerThread(const std::byte* base, std::uint64_t nbytes, std::size_t itemsize, bool remote)
    : base_(base),
      nbytes_(nbytes),
      itemsize_(itemsize),
      remote_(remote),
      threads_(static_cast<std::uint64_t>(std::max(1, omp_get_max_threads()))),
      budget_(remote ? limits().remote_memory_bytes / 4 : limits().out_of_order_bytes / threads_) {}

BlockReadsPerThread::~BlockReadsPerThread() {
  if (caches_.empty()) return;
  std::uint64_t reads = 0, bytes = 0;
  for (const auto& [id, cache] : caches_) reads += cache->reads(), bytes = cache->block_bytes();
  const bool spilled =
      std::any_of(caches_.begin(), caches_.end(), [](const auto& c) { return c.second->copy() != nullptr; });
  if (learned_.load(std::memory_order_relaxed) == BlockReads::kThroughMap && !spilled)
    lib_log().debug(
        "realize: {} bytes read out of order through the file map: caches of {} KiB would read blocks again and again",
        nbytes_, budget_ >> 10);
  else
    lib_log().debug("realize: {} bytes read out of order through {} caches of {} KiB: {} blocks of {} read{}",
                    nbytes_, caches_.size(), budget_ >> 10, reads,
                    bytes >= 1024 ? std::to_string(bytes >> 10) + " KiB" : std::to_string(bytes) + " bytes",
                    spilled ? " from a temporary copy" : "");
}

BlockReads& BlockReadsPerThread::mine(const std::function<std::vector<std::int64_t>()>& sample) {
  const std::lock_guard lock(mutex_);
  // A remote file's one cache holds each thread's rows at once: sized for its share of them.
  if (learned_.load(std::memory_order_relaxed) == 0)
    learned_.store(BlockReads::settle(sample(), nbytes_, itemsize_, remote_, thread_share()),
                   std::memory_order_relaxed);
  const std::thread::id me = std::this_thread::get_id();
  if (remote_ && !caches_.empty()) {
    BlockReads& shared = *caches_.front().second;
    std::shared_ptr<SpillFile> copy;
    {
      const std::lock_guard held(shared_);
      copy = shared.copy();
    }
    if (!copy) return shared;  // a remote file's one cache (see the class comment)
    // Copied to disk: each thread reads the copy through a cache of its own, as a local file's.
    for (auto& [id, cache] : caches_)
      if (id == me) return *cache;
    // The copy is a local file: caches of a local file's share (out_of_order_bytes), or the remote
    // one's when larger (a share of remote_memory_bytes / 4 under --limit remote_memory_bytes=16M made
    // 4 threads' caches thrash, and give up to the copy's map: the whole tensor resident).
    const std::uint64_t local = std::max(budget_, limits().out_of_order_bytes) / threads_;
    caches_.emplace_back(me, std::make_unique<BlockReads>(base_, nbytes_, itemsize_, false, local));
    caches_.back().second->read_copy(std::move(copy), 14, &copy_learned_);
    return *caches_.back().second;
  }
  for (auto& [id, cache] : caches_)
    if (id == me) return *cache;
  caches_.emplace_back(me, std::make_unique<BlockReads>(base_, nbytes_, itemsize_, remote_, budget_, &learned_));
  if (remote_) caches_.back().second->lock_with(&shared_, static_cast<std::size_t>(threads_));
  return *caches_.back().second;
}

}  // namespace tensor_inspect::realize_detail
