// block_table.hpp — which cache slot holds which block of a Load's bytes, for BlockReads
// (block_reads.hpp): a table of one pointer per block while the tensor has at most 2**19
// blocks (one load a lookup), else an open-addressed hash of the blocks held, sized by the
// slots (at most half full), so that small blocks of a large tensor cost memory in proportion
// to the cache, not to the file: 256-byte blocks of a 1 GiB tensor would have been a table of
// 32 MiB.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tensor_inspect::realize_detail {

/// Block number -> the slot that holds it (null: not held). Not thread-safe.
class BlockTable {
 public:
  /// Blocks a direct table indexes at most: 2**19 pointers (4 MiB).
  static constexpr std::uint64_t kMaxDirect = std::uint64_t{1} << 19;

  /// Empties the table for a tensor of `blocks` blocks of which at most `slots` are held at once.
  void reset(std::uint64_t blocks, std::size_t slots) {
    direct_.clear(), keys_.clear(), values_.clear();
    if (blocks <= kMaxDirect) {
      direct_.assign(static_cast<std::size_t>(std::max<std::uint64_t>(blocks, 1)), nullptr);
      return;
    }
    const std::size_t capacity = std::bit_ceil(std::max<std::size_t>(16, 2 * slots));
    keys_.assign(capacity, kEmpty), values_.assign(capacity, nullptr);
    mask_ = capacity - 1;
    shift_ = 64 - static_cast<unsigned>(std::countr_zero(capacity));
  }
  /// Frees the table's memory; empty() from then on.
  void release() { direct_ = {}, keys_ = {}, values_ = {}; }
  /// True before reset() and after release().
  bool empty() const { return direct_.empty() && keys_.empty(); }

  /// The slot holding `block`, or null.
  const std::byte* find(std::uint64_t block) const {
    if (!direct_.empty()) return direct_[static_cast<std::size_t>(block)];
    for (std::size_t i = home(block);; i = (i + 1) & mask_) {
      if (keys_[i] == block) return values_[i];
      if (keys_[i] == kEmpty) return nullptr;
    }
  }
  /// Enters `block` as held in `slot` (replacing what it was held in).
  void set(std::uint64_t block, const std::byte* slot) {
    if (!direct_.empty()) {
      direct_[static_cast<std::size_t>(block)] = slot;
      return;
    }
    std::size_t i = home(block);
    while (keys_[i] != block && keys_[i] != kEmpty) i = (i + 1) & mask_;
    keys_[i] = block, values_[i] = slot;
  }
  /// `block` is held no longer (nothing when it was not).
  void erase(std::uint64_t block) {
    if (!direct_.empty()) {
      direct_[static_cast<std::size_t>(block)] = nullptr;
      return;
    }
    std::size_t i = home(block);
    while (keys_[i] != block) {
      if (keys_[i] == kEmpty) return;
      i = (i + 1) & mask_;
    }
    // Backward-shift deletion (linear probing, no tombstones): each entry after the gap moves
    // into it unless its home lies cyclically in (gap, entry], where a lookup still finds it.
    for (std::size_t j = (i + 1) & mask_; keys_[j] != kEmpty; j = (j + 1) & mask_) {
      const std::size_t k = home(keys_[j]);
      const bool stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
      if (stays) continue;
      keys_[i] = keys_[j], values_[i] = values_[j];
      i = j;
    }
    keys_[i] = kEmpty, values_[i] = nullptr;
  }

 private:
  static constexpr std::uint64_t kEmpty = UINT64_MAX;
  /// Fibonacci hashing: the top bits of the block number times 2**64 / phi.
  std::size_t home(std::uint64_t block) const {
    return static_cast<std::size_t>((block * 0x9E3779B97F4A7C15ULL) >> shift_);
  }
  std::vector<const std::byte*> direct_;
  std::vector<std::uint64_t> keys_;
  std::vector<const std::byte*> values_;
  std::size_t mask_ = 0;
  unsigned shift_ = 64;
};

}  // namespace tensor_inspect::realize_detail
