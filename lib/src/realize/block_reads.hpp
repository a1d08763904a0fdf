// block_reads.hpp — a Load that reads a large file out of order (`x.T.sum()` of a file of few
// rows, `x.T[::2]`, a broadcast of rows, `(x + x.T)`), read through a bounded cache of private
// memory instead of the file map.
//
// Why not the map: a read fault on a file map maps the whole page-cache folio it lands in (up
// to 2 MiB on the kernels we run on, MADV_RANDOM or not), and those pages stay resident until
// unmapped. A permuted read touches every row of the file for each column it steps to, so it
// held the whole file (261 MiB for x.T.sum() of a 256 MiB file of 150 or 300 rows), and giving
// pages back between batches cannot help when each touch maps 2 MiB again. Here a miss copies
// one aligned block of the tensor's bytes into a cache slot (pread through the map's kept
// descriptor, buffer/mapped_read.hpp, so the page cache serves it and nothing is mapped; for a
// remote file a ranged request streamed into the slot, byte_source.hpp), and the kernel's
// element reads come from the slots. The cache is fully associative through a
// block-to-slot table (block_table.hpp: a pointer per block, or a hash of the blocks held when
// the tensor has more than 2**19), and evicts the oldest block when full: a column walk reads
// each row's next block as it leaves the last one, so the oldest blocks are those it has left.
// A cache the threads share (a remote file's) gives a block read since the hand last passed it a
// second chance (CLOCK): its threads walk different columns and drift apart, and the oldest block
// may be one the slower thread still reads (x.T.sum() of a remote file of 150 rows under
// remote_memory_bytes=128M fetched 1.04 to 1.4 times the file, varying from run to run).
// A walk over more rows than the cache holds would read each block again for every element of
// it; a look at the kernel's first reads sizes the blocks so the rows fit (settle), and a count
// of bytes read again against bytes used catches the rest: blocks a quarter the size, then, below
// 256 bytes, the map as before (through_map). A 2 KiB pread costs about what reading its page
// through the map did (x.T[::2].sum() of 8,192 rows of 32 KiB ran 1.3-1.6 times as long as through
// the map); blocks of 512 and 256 bytes let 16 MiB hold 32,768 and 65,536 rows: export -e 'x.T' of
// a 256 MiB file of 32,768 rows, 1.3 times the map's time at 50 MiB instead of 265.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <mutex>
#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <vector>

#include "realize/block_table.hpp"

namespace tensor_inspect {
class SpillFile;
}

namespace tensor_inspect::realize_detail {

/// The bytes of one Load's buffer (element 0 at `base`, `nbytes` long, in a local file map or
/// a remote file's reserved address space) read in blocks into at most `budget` bytes of slots.
/// Not thread-safe: one per thread (BlockReadsPerThread).
class BlockReads {
 public:
  /// `remote`: the buffer lies in a remote file (misses stream ranged requests; blocks of at
  /// least kFetchBlock). Nothing is allocated or read until the first gather.
  /// `learned` (may be null) is shared by the evaluators of one Load: the block size the
  /// thrashing check settled on (its log2), kThroughMap, or 0 before any did; read at the first
  /// gather, written when the check changes the size.
  BlockReads(const std::byte* base, std::uint64_t nbytes, std::size_t itemsize, bool remote, std::uint64_t budget,
             std::atomic<unsigned>* learned = nullptr);
  /// `learned`'s value once the cache gave up to the map.
  static constexpr unsigned kThroughMap = 1;
  /// A first value for `learned` from the buffer indices `sample` of the kernel's first elements
  /// (-1 masked): the largest block size at which a cache of `budget` bytes, run over the sample,
  /// reads each block about once (at most 1/8 of them again), or kThroughMap when none does (a
  /// column walk over more rows than any holds: it would read each block again for every element).
  static unsigned settle(const std::vector<std::int64_t>& sample, std::uint64_t nbytes, std::size_t itemsize,
                         bool remote, std::uint64_t budget);
  BlockReads(const BlockReads&) = delete;
  BlockReads& operator=(const BlockReads&) = delete;
  ~BlockReads();

  /// Copies elements idx[0..n) (buffer element indices, each < nbytes / itemsize; -1: a masked
  /// element, zero bytes) to `out`, itemsize bytes each. Throws Error(Io) as MappedFile::fetch
  /// when a remote block cannot be had. Under `lock` (lock_with) when one is set.
  void gather(const std::int64_t* idx, std::size_t n, std::byte* out);
  /// Makes gather and through_map take `lock` first: one cache read by `threads` threads at once,
  /// each of which reads ahead into a share of its slots only.
  void lock_with(std::mutex* lock, std::size_t threads) { lock_ = lock, sharers_ = std::max<std::size_t>(1, threads); }

  /// Bytes one block holds: a power of two, 16 KiB at first (256 KiB for a remote file), down to
  /// 256 bytes (64 KiB, the remote fetch block) when rows do not fit.
  std::uint64_t block_bytes() const { return std::uint64_t{1} << shift_; }
  /// True once a local file's cache gave up to the map (thrashing at its smallest block): the Load
  /// is then read as any other, through `base` (gather still works). A remote file's cache copies
  /// the tensor to a temporary file instead (buffer/spill_file.hpp) and reads that as a local
  /// file's, giving up to the copy's own map: never true, gather reads the copy. Throws Error(Io)
  /// when no copy can be made, or as MappedFile::fetch.
  bool through_map();
  /// The remote tensor's copy on disk this cache reads once it spilled; null before (or never).
  const std::shared_ptr<SpillFile>& copy() const { return spill_; }
  /// Reads `copy`, the remote tensor's copy on disk, from now on, as a local file's cache does:
  /// blocks of 2**shift bytes at first; `learned` (may be null) as the constructor's, shared by the
  /// caches of the copy. Before the first gather, or from spill().
  void read_copy(std::shared_ptr<SpillFile> copy, unsigned shift, std::atomic<unsigned>* learned);
  /// Blocks read so far (misses), for tests and -vv.
  std::uint64_t reads() const { return reads_; }

 private:
  /// Bytes read again per byte used past which the cache is thrashing (a column walk over more
  /// rows than its slots hold reads a block again for each element of it): bytes of blocks read
  /// a second time (or more) over bytes the kernel reads, in windows of kWindowBytes used. Blocks
  /// read once do not count, however little of them a read uses (x.T[::1000]: its blocks, the
  /// map's pages alike, hold a few elements each). A table of C columns read column by column
  /// reads it C times whatever the block size, a ratio of C: up to 16 it stays in the cache
  /// (x.T.argmax() of a (2**21, 16) float64: 1.55 times as long as through the map, 38 MiB
  /// instead of 267), past that it goes to the map.
  static constexpr std::uint64_t kThrashRatio = 16;
  /// Bytes the window may read again before the cache is thrashing: kThrashRatio times the bytes
  /// used, or, for a remote file's cache, where a block read again is fetched again, twice them or
  /// one cache-ful, whichever is more (a table of 16 columns fetched 11 to 16 times the tensor before
  /// it gave up to its copy on disk; a cache-ful is what the threads' shares fetch again where they
  /// meet, 150 blocks for 150 rows).
  std::uint64_t reread_allowed() const {
    const std::uint64_t used = std::max(window_used_, kWindowBytes);
    return remote_ ? std::max(2 * used, budget_) : kThrashRatio * used;
  }
  static constexpr std::uint64_t kWindowBytes = std::uint64_t{4} << 20;
  /// An empty cache of slots_ blocks of the current size.
  void lay_out();
  /// Frees the cache: reads go through the map from now on (through_map_), a spill's own once
  /// there is one.
  void give_up_to_map();
  /// A remote file's cache, giving up: copies the tensor to a temporary file and reads that from
  /// now on, as a local file is read, through slots laid out anew (true). False when this is no
  /// remote file's cache (or one tried before): then the map. Throws Error(Io) when no copy can be
  /// made (every later call throws it again).
  bool spill();
  /// through_map() under the lock gather holds.
  bool through_map_held();
  /// Counts a read of `block`; when the bytes read again pass kThrashRatio, lays the cache out
  /// anew with smaller blocks (true), or gives up to the map. A column walk over more rows than
  /// the slots hold reads one element a block (a row's): blocks a quarter the size make four times
  /// as many slots, down to the smallest. One that reads 4 elements or more of each block reads a
  /// run of rows from each (rows shorter than the block): blocks of a row's bytes or less, when
  /// their slots hold every row (the tensor's bytes over a row's; a (60,000, 256) float32 went to
  /// the map), else the map: a tall table read column by column (2**20 rows of 32 float64) reads
  /// each block again in each column's pass, whatever its size.
  bool thrashing(std::uint64_t block);
  /// Reads `block` into a free or evicted slot: its bytes; null when the cache was laid out
  /// anew instead (thrashing), so no pointer taken before stays valid.
  const std::byte* slot_of(std::uint64_t block);
  /// A free slot, or a random victim's, now owned by `block` (not yet in the table).
  std::byte* take_slot(std::uint64_t block);
  /// Reads remote `blocks` into slots in one set of ranged requests (several at once).
  void read_remote(std::span<const std::uint64_t> blocks);
  /// The blocks elements idx[0..n) miss, read at once (remote files).
  void read_ahead(const std::int64_t* idx, std::size_t n);
  /// Copies elements [i, n) of a kSize-byte dtype (0: itemsize_) until the cache is laid out
  /// anew: where it stopped.
  template <std::size_t kSize>
  std::size_t copy(const std::int64_t* idx, std::size_t i, std::size_t n, std::byte* out);
  const std::byte* base_;
  const std::byte* map_;  ///< what through_map_ reads: base_, or the spill's own map
  std::uint64_t nbytes_;
  std::size_t itemsize_;
  bool remote_;
  std::uint64_t budget_;
  std::atomic<unsigned>* learned_;
  unsigned shift_ = 14, min_shift_ = 12;
  bool through_map_ = false;    ///< thrashing at the smallest block: read through the map
  bool spill_tried_ = false;
  std::exception_ptr spill_error_;  ///< why the copy could not be made: thrown again at every try
  std::shared_ptr<SpillFile> spill_;  ///< a remote tensor's copy on disk, read as a local file
  std::size_t slots_ = 0;       ///< slots the budget holds (at least 2)
  std::size_t used_ = 0;        ///< slots filled so far
  std::size_t next_ = 0;        ///< the slot to fill next (the oldest once all are used), the CLOCK's hand
  std::vector<std::uint8_t> referenced_;  ///< a shared cache's (sharers_ > 1): slot read since the hand passed
  BlockTable table_;                     ///< block -> its slot
  std::vector<std::uint64_t> owner_;     ///< slot -> block
  class Memory;
  std::unique_ptr<Memory> memory_;
  std::size_t memory_bytes_ = 0;
  std::vector<std::uint64_t> missing_;  ///< read_ahead's scratch
  std::vector<std::uint64_t> seen_;  ///< a bit for each block (mod seen_bits_): read before (at this block size)
  std::uint64_t seen_bits_ = 1;
  std::uint64_t window_used_ = 0;    ///< bytes the kernel read in this window
  std::uint64_t window_read_ = 0, window_reread_ = 0;  ///< bytes read into slots, of them read again
  std::uint64_t reads_ = 0;
  std::mutex* lock_ = nullptr;  ///< lock_with's
  std::size_t sharers_ = 1;     ///< threads reading this cache
};

}  // namespace tensor_inspect::realize_detail
