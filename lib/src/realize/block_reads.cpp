// block_reads.cpp — BlockReads: see block_reads.hpp.
#include "realize/block_reads.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <span>
#include <string>

#include "buffer/byte_source.hpp"
#include "buffer/mapped_read.hpp"
#include "buffer/spill_file.hpp"
#include "tensor_inspect/buffer.hpp"
#include "log/log.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect::realize_detail {
namespace {

/// Bits the record of blocks read before keeps at most (4 MiB): past that, blocks share bits
/// (block mod this), and a block read for the first time may count as read again.
constexpr std::uint64_t kMaxSeenBits = std::uint64_t{1} << 25;

/// A ranged request's bytes, in order, into one slot.
class SlotSink final : public RangeSink {
 public:
  explicit SlotSink(std::byte* slot) : slot_(slot) {}
  void restart() override { at_ = 0; }
  void consume(std::span<const std::byte> bytes) override {
    std::memcpy(slot_ + at_, bytes.data(), bytes.size());
    at_ += bytes.size();
  }

 private:
  std::byte* slot_;
  std::size_t at_ = 0;
};

}  // namespace

/// The slots' memory: an anonymous map of whole huge pages asked for with MADV_HUGEPAGE, as a
/// cache of 16 MiB faulted in 4 KiB pages took 4,096 faults for each evaluator (17,000 in an
/// x.T.sum() of a 256 MiB file; 900 for the map it replaces). Falls back to the heap.
class BlockReads::Memory {
 public:
  explicit Memory(std::size_t bytes) {
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    const std::size_t length = (bytes + kHuge - 1) / kHuge * kHuge;
    void* p =
        ::mmap(nullptr, length + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
      heap_.reset(new std::byte[bytes]);
      return;
    }
    // Trim to a huge-page boundary at both ends, so each huge page can back it.
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t aligned = (at + kHuge - 1) / kHuge * kHuge;
    if (aligned > at) ::munmap(p, aligned - at);
    ::munmap(reinterpret_cast<void*>(aligned + length), at + kHuge - aligned);
    map_ = reinterpret_cast<std::byte*>(aligned);
    length_ = length;
    ::madvise(map_, length_, MADV_HUGEPAGE);
  }
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;
  ~Memory() {
    if (map_) ::munmap(map_, length_);
  }
  std::byte* get() const { return map_ ? map_ : heap_.get(); }

 private:
  std::byte* map_ = nullptr;
  std::size_t length_ = 0;
  std::unique_ptr<std::byte[]> heap_;
};

BlockReads::BlockReads(const std::byte* base, std::uint64_t nbytes, std::size_t itemsize, bool remote,
                       std::uint64_t budget, std::atomic<unsigned>* learned)
    : base_(base),
      map_(base),
      nbytes_(nbytes),
      itemsize_(itemsize),
      remote_(remote),
      budget_(budget),
      learned_(learned) {
  // kFetchBlock, a remote file's fetch granularity; 256 bytes, a pread of which costs about a
  // fifth of a 16 KiB one (block_reads.hpp).
  min_shift_ = remote_ ? 16 : 8;
  shift_ = remote_ ? 18U : 14U;  // 256 KiB a request when the rows allow
}

BlockReads::~BlockReads() = default;

unsigned BlockReads::settle(const std::vector<std::int64_t>& sample, std::uint64_t nbytes, std::size_t itemsize,
                            bool remote, std::uint64_t budget) {
  const BlockReads sizes(nullptr, nbytes, itemsize, remote, budget);
  std::vector<std::uint64_t> reads, blocks;
  reads.reserve(sample.size());
  for (unsigned shift = sizes.shift_;; --shift) {
    // The sample's reads through a cache of this many slots, oldest out first, as gather runs
    // them: the blocks fit when it reads each one once (no block read again after its eviction).
    reads.clear();
    for (const std::int64_t i : sample)
      if (i >= 0) reads.push_back(static_cast<std::uint64_t>(i) * itemsize >> shift);
    blocks = reads;
    std::sort(blocks.begin(), blocks.end());
    blocks.erase(std::unique(blocks.begin(), blocks.end()), blocks.end());
    const auto slots = static_cast<std::size_t>(std::max<std::uint64_t>(2, budget >> shift));
    std::vector<std::int64_t> held(blocks.size(), -1);  // block (by rank) -> its slot
    std::vector<std::size_t> owner(slots, SIZE_MAX);
    std::size_t next = 0, misses = 0;
    for (const std::uint64_t b : reads) {
      const auto id = static_cast<std::size_t>(std::lower_bound(blocks.begin(), blocks.end(), b) - blocks.begin());
      if (held[id] >= 0) continue;
      ++misses;
      if (owner[next] != SIZE_MAX) held[owner[next]] = -1;
      owner[next] = id, held[id] = static_cast<std::int64_t>(next);
      next = next + 1 == slots ? 0 : next + 1;
    }
    if (misses <= blocks.size() + blocks.size() / 8) return shift;
    if (shift == sizes.min_shift_) break;
  }
  return kThroughMap;
}

void BlockReads::lay_out() {
  const std::uint64_t blocks = (nbytes_ + block_bytes() - 1) >> shift_;
  slots_ =
      static_cast<std::size_t>(std::clamp<std::uint64_t>(budget_ >> shift_, 2, std::max<std::uint64_t>(blocks, 2)));
  used_ = next_ = 0;
  referenced_.assign(sharers_ > 1 ? slots_ : 0, 0);
  table_.reset(blocks, slots_);
  owner_.assign(slots_, 0);
  seen_bits_ = std::min(std::max<std::uint64_t>(blocks, 1), kMaxSeenBits);
  seen_.assign(static_cast<std::size_t>((seen_bits_ + 63) / 64), 0);
  if (slots_ << shift_ > memory_bytes_) {  // uninitialised: committed as slots are read into
    memory_ = std::make_unique<Memory>(slots_ << shift_);
    memory_bytes_ = slots_ << shift_;
  }
  window_used_ = window_read_ = window_reread_ = 0;
}

bool BlockReads::thrashing(std::uint64_t block) {
  window_read_ += block_bytes();
  const std::uint64_t at = block % seen_bits_;
  std::uint64_t& word = seen_[static_cast<std::size_t>(at / 64)];
  const std::uint64_t bit = std::uint64_t{1} << (at % 64);
  if (!(word & bit)) {
    word |= bit;
    return false;
  }
  window_reread_ += block_bytes();
  if (window_reread_ <= reread_allowed()) return false;
  // 4 elements used or more for each block read: a run of rows in each (rows shorter than the
  // block), which a block a quarter the size holds as well (block_reads.hpp). Blocks of at most a
  // row's bytes read one element a row; they fit when their slots hold every row the walk crosses,
  // the tensor's bytes over a row's (each pass over a column reads every block).
  const std::uint64_t blocks_read = std::max<std::uint64_t>(1, window_read_ >> shift_);
  const bool runs = window_used_ >= 4 * itemsize_ * blocks_read;
  unsigned fits = 0;  // the largest block size (its log2) that holds the rows, or 0
  if (runs) {
    const double per_block = static_cast<double>(window_used_) / static_cast<double>(itemsize_ * blocks_read);
    const double row = static_cast<double>(block_bytes()) / per_block;
    const double rows = static_cast<double>(nbytes_) / row;
    for (unsigned s = shift_ - 1; s >= min_shift_ && fits == 0; --s)
      if (static_cast<double>(std::uint64_t{1} << s) <= row && static_cast<double>(budget_ >> s) >= rows) fits = s;
  }
  if (fits != 0 || (shift_ > min_shift_ && !runs)) {  // rows' blocks, or a quarter the size: four times as many
    shift_ = fits != 0 ? fits : std::max(min_shift_, shift_ - 2);
    if (learned_) learned_->store(shift_, std::memory_order_relaxed);
  } else {
    if (!spill()) {
      give_up_to_map();
      if (learned_) learned_->store(kThroughMap, std::memory_order_relaxed);
    }
    return true;
  }
  lay_out();
  return true;
}

std::byte* BlockReads::take_slot(std::uint64_t block) {
  // The slots in turn, the oldest block evicted first: see the file comment of block_reads.hpp.
  std::size_t s = next_;
  const auto after = [&](std::size_t k) { return k + 1 == slots_ ? 0 : k + 1; };
  // A shared cache's slots read since the hand last passed them get a second chance (CLOCK).
  if (used_ == slots_ && !referenced_.empty())
    for (; referenced_[s]; s = after(s)) referenced_[s] = 0;
  next_ = after(s);
  if (used_ < slots_) ++used_;
  else table_.erase(owner_[s]);
  if (!referenced_.empty()) referenced_[s] = 1;
  owner_[s] = block;
  ++reads_;
  return memory_->get() + (s << shift_);
}

void BlockReads::read_remote(std::span<const std::uint64_t> blocks) {
  std::vector<std::byte*> slots;
  std::vector<SlotSink> sinks;
  std::vector<StreamedRange> ranges;
  slots.reserve(blocks.size()), sinks.reserve(blocks.size()), ranges.reserve(blocks.size());
  for (const std::uint64_t b : blocks) {
    slots.push_back(take_slot(b));
    sinks.emplace_back(slots.back());
    const std::uint64_t at = b << shift_;
    ranges.push_back({base_ + at, std::min(block_bytes(), nbytes_ - at), &sinks.back()});
  }
  // NOTE: a slot taken above may be the victim of a later one; its block is then not entered.
  // Streamed even where a scan of the same file fetched them: it may release them under a read
  // in place (release_behind.cpp counts on this Load never reading the file's fetched bytes).
  if (!stream_bytes(ranges, true)) {  // a source that does not stream (no remote file does): read them in place
    for (const StreamedRange& r : ranges) {
      fetch_bytes(std::span(r.begin, r.length));
      sinks[static_cast<std::size_t>(&r - ranges.data())].consume(std::span(r.begin, r.length));
    }
  }
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    const auto s = static_cast<std::size_t>(slots[k] - memory_->get()) >> shift_;
    if (owner_[s] == blocks[k]) table_.set(blocks[k], slots[k]);
  }
}

const std::byte* BlockReads::slot_of(std::uint64_t block) {
  if (thrashing(block)) return nullptr;
  if (remote_) {
    read_remote(std::span(&block, 1));
    return table_.find(block);
  }
  std::byte* slot = take_slot(block);
  const std::uint64_t at = block << shift_;
  const std::byte* from = base_ + at;
  const std::span<std::byte> to(slot, static_cast<std::size_t>(std::min(block_bytes(), nbytes_ - at)));
  if (spill_) spill_->read(at, to);
  else if (!read_mapped(from, to)) std::memcpy(to.data(), from, to.size());  // no kept descriptor: the map itself
  table_.set(block, slot);
  return slot;
}

void BlockReads::read_ahead(const std::int64_t* idx, std::size_t n) {
  missing_.clear();
  for (std::size_t i = 0; i < n; ++i)
    if (idx[i] >= 0) {
      const std::uint64_t b = static_cast<std::uint64_t>(idx[i]) * itemsize_ >> shift_;
      if (!table_.find(b) && (missing_.empty() || missing_.back() != b)) missing_.push_back(b);
    }
  if (missing_.size() < 2) return;
  std::sort(missing_.begin(), missing_.end());
  missing_.erase(std::unique(missing_.begin(), missing_.end()), missing_.end());
  // The rest as the copies reach them; a shared cache's threads each take their share.
  missing_.resize(std::min(missing_.size(), slots_ / 2 / sharers_));
  for (const std::uint64_t b : missing_)
    if (thrashing(b)) return;
  read_remote(missing_);
}

void BlockReads::give_up_to_map() {
  through_map_ = true;
  table_.release(), owner_ = {}, seen_ = {}, memory_.reset(), memory_bytes_ = 0;
  if (spill_) map_ = spill_->map();
}

bool BlockReads::spill() {
  // The error again for the threads still at work: they fetched the whole tensor, falling back to
  // the map, before the first one's error stopped the run.
  if (spill_error_) std::rethrow_exception(spill_error_);
  if (!remote_ || spill_tried_) return false;
  spill_tried_ = true;
  std::string why;
  const auto start = std::chrono::steady_clock::now();
  try {
    spill_ = SpillFile::make(base_, nbytes_, why);
    // A remote file's other scans release what they read, and this Load may not read those bytes
    // in place (release_behind.cpp): no copy, no way on.
    if (!spill_)
      throw Error(ErrorCode::Io, "reading " + std::to_string(nbytes_) +
                                     " bytes of a remote file out of order needs a temporary copy of them: " + why +
                                     " (set TMPDIR to a folder with room)");
  } catch (...) {
    spill_error_ = std::current_exception();
    throw;
  }
  lib_log().info("realize: {} bytes of a remote file read out of order were copied to a temporary file in {} in "
                 "{:.0f} ms (a cache of fetched blocks would fetch them again and again)",
                 nbytes_, spill_->folder(),
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  // From now on the copy is read as a local file is (block_reads.hpp), its block size found anew.
  // The other threads' next batches read it through caches of their own (BlockReadsPerThread::mine),
  // but until their batches end they share this one: it keeps the whole budget (a thread's share
  // made the two thrash now and then, and give up to the copy's map: 296 MiB instead of 40).
  read_copy(spill_, 14, nullptr);
  budget_ = std::max(budget_, limits().out_of_order_bytes / sharers_);  // as the copy's other caches
  memory_.reset(), memory_bytes_ = 0;  // the remote cache's slots, given back: lay_out maps them anew
  lay_out();
  return true;
}

void BlockReads::read_copy(std::shared_ptr<SpillFile> copy, unsigned shift, std::atomic<unsigned>* learned) {
  spill_ = std::move(copy), spill_tried_ = true;
  remote_ = false, min_shift_ = 8, shift_ = shift, learned_ = learned;
}

bool BlockReads::through_map() {
  std::unique_lock<std::mutex> hold;
  if (lock_) hold = std::unique_lock(*lock_);
  return through_map_held() && !spill_;
}

bool BlockReads::through_map_held() {
  if (!through_map_ && learned_ && learned_->load(std::memory_order_relaxed) == kThroughMap && !spill())
    give_up_to_map();
  return through_map_;
}

template <std::size_t kSize>
std::size_t BlockReads::copy(const std::int64_t* idx, std::size_t i, std::size_t n, std::byte* out) {
  const std::size_t size = kSize ? kSize : itemsize_;
  const std::uint64_t mask = block_bytes() - 1;
  std::uint64_t last = UINT64_MAX;  // the block of the last read: runs along a row read one block
  const std::byte* slot = nullptr;
  for (out += i * size; i < n; ++i, out += size) {
    if (idx[i] < 0) [[unlikely]] {
      std::memset(out, 0, size);
      continue;
    }
    const std::uint64_t at = static_cast<std::uint64_t>(idx[i]) * size;
    const std::uint64_t block = at >> shift_;
    if (block != last) {
      slot = table_.find(block);
      if (!slot) [[unlikely]] {
        slot = slot_of(block);
        if (!slot) return i;  // laid out anew (or given up): go on from element i
      }
      last = block;
      if (!referenced_.empty()) referenced_[static_cast<std::size_t>(slot - memory_->get()) >> shift_] = 1;
    }
    std::memcpy(out, slot + (at & mask), size);
  }
  return n;
}

void BlockReads::gather(const std::int64_t* idx, std::size_t n, std::byte* out) {
  std::unique_lock<std::mutex> hold;
  if (lock_) hold = std::unique_lock(*lock_);
  if (!through_map_ && table_.empty()) {
    // What another evaluator of this Load learned: the smaller blocks, or the map.
    const unsigned learned = learned_ ? learned_->load(std::memory_order_relaxed) : 0;
    if (learned == kThroughMap && !spill()) give_up_to_map();  // a copy's caches: its own map, not base_
    else if (learned >= min_shift_ && learned < shift_) shift_ = learned;
    if (!through_map_) lay_out();
  }
  window_used_ += n * itemsize_;
  if (window_used_ >= kWindowBytes && window_reread_ <= reread_allowed())
    window_used_ = window_read_ = window_reread_ = 0;
  // A remote file's missing blocks in one set of parallel requests, not one round trip each.
  if (remote_ && !through_map_) read_ahead(idx, n);
  for (std::size_t i = 0; i < n;) {
    if (through_map_held()) {  // thrashing at the smallest block: the map, as before (block_reads.hpp)
      for (; i < n; ++i) {
        std::byte* to = out + i * itemsize_;
        if (idx[i] < 0) {
          std::memset(to, 0, itemsize_);
          continue;
        }
        std::memcpy(to, map_ + static_cast<std::uint64_t>(idx[i]) * itemsize_, itemsize_);
      }
      return;
    }
    switch (itemsize_) {
      case 1: i = copy<1>(idx, i, n, out); break;
      case 2: i = copy<2>(idx, i, n, out); break;
      case 4: i = copy<4>(idx, i, n, out); break;
      case 8: i = copy<8>(idx, i, n, out); break;
      default: i = copy<0>(idx, i, n, out);
    }
  }
}

}  // namespace tensor_inspect::realize_detail
