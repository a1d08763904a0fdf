// compare/received_pairs.cpp — two remote tensors compared as their bytes arrive
// (received_pairs.hpp).
// NOTE: measured on a 1 GiB float32 safetensors file against a second name of it through a local
// nginx (bench/remote_compare.py): fetching 32 MiB windows of both into memory and comparing them
// there took 2.3x the time of `curl -o /dev/null` of both files one after the other; zeroing and
// mapping fresh pages was a quarter of the profile.
#include "compare/received_pairs.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "buffer/byte_source.hpp"
#include "decode/lanes.hpp"
#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect::compare_detail {
namespace {

constexpr std::int64_t kChunk = 2048;  // elements per Partial, as the executor's pass folds them
// A request asks for an eighth of the larger tensor, at least 4 MiB and at most 16 MiB: as
// stats/received.cpp measured, 16 MiB requests run at 1.1x curl's time, 4 MiB ones at 1.7x; two
// slots of each side's staging then hold 64 MiB.
constexpr std::uint64_t kMinRequest = std::uint64_t{4} << 20;
constexpr std::uint64_t kMaxRequest = std::uint64_t{16} << 20;

// One staging slot: 2 MiB-aligned memory in transparent huge pages, never zeroed here (the
// received bytes fill it). A std::vector's resize zeroed its 16 MiB and faulted it in 4 KiB
// pages: 8 % of a remote diff's profile went to that memset alone.
class StagingSlot {
 public:
  StagingSlot() = default;
  StagingSlot(const StagingSlot&) = delete;
  StagingSlot& operator=(const StagingSlot&) = delete;
  ~StagingSlot() { std::free(base_); }
  std::byte* data() const { return base_; }
  std::size_t size() const { return size_; }
  /// At least `need` bytes; what the slot held is not kept. Throws std::bad_alloc.
  void reserve(std::size_t need) {
    if (need <= size_) return;
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    const std::size_t n = (need + kHuge - 1) / kHuge * kHuge;
    void* p = std::aligned_alloc(kHuge, n);
    if (p == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    ::madvise(p, n, MADV_HUGEPAGE);
#endif
    std::free(base_);
    base_ = static_cast<std::byte*>(p);
    size_ = n;
  }

 private:
  std::byte* base_ = nullptr;
  std::size_t size_ = 0;
};

bool streamable(const StoredElements& s) {
  return s.file != nullptr && s.file->is_remote() && s.c_order && !s.ggml_type && !s.decode && s.numel > 0 &&
         s.bytes.size() == static_cast<std::uint64_t>(s.numel) * dtype_info(s.stored).itemsize;
}

// The values of one chunk of stored bytes, as a ValueChunk of the dtype's kind.
class ChunkValues {
 public:
  // `one`'s values decoded into `lane`.
  template <class T>
  static const T* decoded(std::vector<T>& lane, const StoredElements& one) {
    lane.resize(static_cast<std::size_t>(one.numel));
    decode_block(one, 0, one.numel, lane.data());
    return lane.data();
  }

  ValueChunk read(const StoredElements& like, const std::byte* at, std::int64_t start, std::int64_t n) {
    StoredElements one;
    one.bytes = {at, static_cast<std::size_t>(n) * dtype_info(like.stored).itemsize};
    one.stored = like.stored;
    one.swap_bytes = like.swap_bytes;
    one.numel = n;
    one.shape = {n};
    ValueChunk v{like.stored, start, static_cast<std::size_t>(n), nullptr, nullptr, nullptr};
    const auto count = static_cast<std::size_t>(n);
    switch (lane_of(one)) {
      case Lane::F32:
        f64_.resize(count);
        v.f = f64_.data();
        std::copy_n(decoded(f32_, one), count, f64_.begin());
        break;
      case Lane::F64: v.f = decoded(f64_, one); break;
      case Lane::I64: v.i = decoded(i64_, one); break;
      case Lane::U64: v.u = decoded(u64_, one); break;
    }
    return v;
  }

 private:
  std::vector<float> f32_;
  std::vector<double> f64_;
  std::vector<std::int64_t> i64_;
  std::vector<std::uint64_t> u64_;
};

class Pairing {
 public:
  Pairing(const StoredElements& a, const StoredElements& b, const Rule& rule, bool floats,
          const std::function<void(std::int64_t)>& progress)
      : sides_{Side{&a, 1, {nullptr, nullptr}, {0, 0}}, Side{&b, 1, {nullptr, nullptr}, {0, 0}}},
        rule_(rule),
        floats_(floats),
        progress_(progress),
        numel_(a.numel) {
    const std::size_t widest = std::max(dtype_info(a.stored).itemsize, dtype_info(b.stored).itemsize);
    // Four slots (two per side) take at most half of Limits::remote_memory_bytes.
    const std::uint64_t cap = std::max<std::uint64_t>(limits().remote_memory_bytes / 8, std::uint64_t{1} << 20);
    const std::uint64_t request =
        std::min(std::clamp(std::max(a.bytes.size(), b.bytes.size()) / 8, kMinRequest, kMaxRequest), cap);
    per_range_ = std::max<std::int64_t>(kChunk, static_cast<std::int64_t>(request / widest) / kChunk * kChunk);
    ranges_ = (numel_ + per_range_ - 1) / per_range_;
    float32_ = floats && a.stored == DType::Float32 && b.stored == DType::Float32 && !a.swap_bytes && !b.swap_bytes;
    for (int k = 0; k < 2; ++k) {
      Side& s = sides_[k];
      s.itemsize = dtype_info(s.source->stored).itemsize;
      for (int slot = 0; slot < 2; ++slot) {
        s.staging[slot] = &staging_pool()[2 * k + slot];
        const std::size_t need = static_cast<std::size_t>(std::min(per_range_, numel_)) * s.itemsize;
        s.staging[slot]->reserve(need);
      }
    }
  }

  // The staging buffers, kept from one pair of tensors to the next: a checkpoint's hundreds of
  // tensors fault and zero their pages once (fresh pages were a third of the profile), not once
  // each. fold_received_pairs holds staging_mutex() while they are in use.
  static StagingSlot* staging_pool() {
    static StagingSlot pool[4];
    return pool;
  }

  // Streams side `k`'s ranges in order, each once the range before is compared.
  void run_side(int k) {
    try {
      for (std::int64_t r = 0; r < ranges_; ++r) {
        {
          std::unique_lock<std::mutex> lock(mutex_);
          // one range ahead of the one being folded, in the other slot
          advanced_.wait(lock, [&] { return range_ >= r - 1 || failed_; });
          if (failed_) return;
        }
        Side& s = sides_[k];
        Sink sink(*this, s, static_cast<int>(r % 2));
        const std::uint64_t first = static_cast<std::uint64_t>(r * per_range_) * s.itemsize;
        const std::uint64_t length = static_cast<std::uint64_t>(range_elements(r)) * s.itemsize;
        const StreamedRange range{s.source->bytes.data() + first, length, &sink};
        if (!stream_bytes(std::span(&range, 1))) {
          fail(nullptr);
          return;
        }
      }
    } catch (...) {
      fail(std::current_exception());
    }
  }

  std::optional<Partial> result() {
    if (error_) std::rethrow_exception(error_);
    if (failed_ || range_ < ranges_) return std::nullopt;
    return total_;
  }

 private:
  struct Side {
    const StoredElements* source;
    std::size_t itemsize = 1;
    /// Two slots: range r's bytes received so far in slot r % 2, `received` of them (under mutex_).
    StagingSlot* staging[2];
    std::uint64_t received[2] = {0, 0};
  };

  // Takes one range's bytes in order; a retried request delivers from its start again, and the
  // bytes already held are skipped (the same bytes: a request is made under one validator).
  class Sink final : public RangeSink {
   public:
    Sink(Pairing& pairing, Side& side, int slot) : pairing_(pairing), side_(side), slot_(slot) {}
    void restart() override {
      std::lock_guard<std::mutex> lock(pairing_.mutex_);
      skip_ = side_.received[slot_];
      seen_ = 0;
    }
    void consume(std::span<const std::byte> bytes) override {
      if (seen_ < skip_) {
        const auto drop = static_cast<std::size_t>(std::min<std::uint64_t>(skip_ - seen_, bytes.size()));
        seen_ += drop;
        bytes = bytes.subspan(drop);
      }
      if (bytes.empty()) return;
      std::unique_lock<std::mutex> lock(pairing_.mutex_);
      const std::uint64_t at = side_.received[slot_];
      lock.unlock();
      // Only this thread writes past `received`; the folding thread reads below it.
      StagingSlot& staging = *side_.staging[slot_];
      const std::size_t take = std::min<std::size_t>(bytes.size(), staging.size() - at);
      std::memcpy(staging.data() + at, bytes.data(), take);
      seen_ += bytes.size();
      lock.lock();
      side_.received[slot_] = at + take;
      pairing_.advance(lock);
    }

   private:
    Pairing& pairing_;
    Side& side_;
    int slot_;
    std::uint64_t skip_ = 0, seen_ = 0;
  };

  std::int64_t range_elements(std::int64_t r) const { return std::min(per_range_, numel_ - r * per_range_); }

  void fail(std::exception_ptr e) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (e && !error_) error_ = e;
    failed_ = true;
    advanced_.notify_all();
  }

  // Folds the whole chunks both sides hold, in order, on one thread at a time (called with the
  // lock held; it is released while folding, and the other thread only appends meanwhile).
  void advance(std::unique_lock<std::mutex>& lock) {
    if (folding_) return;
    folding_ = true;
    while (!failed_ && range_ < ranges_) {
      const std::int64_t total = range_elements(range_);
      const auto slot = static_cast<std::size_t>(range_ % 2);
      const std::int64_t held = std::min(static_cast<std::int64_t>(sides_[0].received[slot] / sides_[0].itemsize),
                                         static_cast<std::int64_t>(sides_[1].received[slot] / sides_[1].itemsize));
      const std::int64_t upto = held == total ? total : held / kChunk * kChunk;
      if (upto <= compared_) break;
      const std::int64_t from = compared_, base = range_ * per_range_;
      lock.unlock();
      for (std::int64_t c = from; c < upto; c += kChunk) {
        const std::int64_t n = std::min(kChunk, upto - c);
        const auto at = static_cast<std::size_t>(c);
        if (float32_) {  // read where they lie (memcpy made floats of the staged bytes)
          Partial p;
          const auto* x = reinterpret_cast<const float*>(sides_[0].staging[slot]->data()) + at;
          const auto* y = reinterpret_cast<const float*>(sides_[1].staging[slot]->data()) + at;
          fold_float32(p, rule_, x, y, static_cast<std::size_t>(n), base + c);
          total_.fold(p);
          continue;
        }
        const ValueChunk va =
            values_[0].read(*sides_[0].source, sides_[0].staging[slot]->data() + at * sides_[0].itemsize, base + c, n);
        const ValueChunk vb =
            values_[1].read(*sides_[1].source, sides_[1].staging[slot]->data() + at * sides_[1].itemsize, base + c, n);
        Partial p;
        fold_chunk_pair(p, rule_, va, vb, floats_);
        total_.fold(p);
      }
      lock.lock();
      compared_ = upto;
      if (progress_) progress_(base + upto);
      if (compared_ == total) {  // the range is done: the next one starts on both sides
        ++range_;
        compared_ = 0;
        sides_[0].received[slot] = sides_[1].received[slot] = 0;
        advanced_.notify_all();
      }
    }
    folding_ = false;
  }

  Side sides_[2];
  Rule rule_;
  bool floats_;
  bool float32_ = false;  ///< both native float32: folded from the staging buffers themselves
  const std::function<void(std::int64_t)>& progress_;
  std::int64_t numel_, per_range_ = kChunk, ranges_ = 0;
  std::mutex mutex_;
  std::condition_variable advanced_;
  std::int64_t range_ = 0;     ///< the range both sides receive
  std::int64_t compared_ = 0;  ///< its elements folded
  bool folding_ = false, failed_ = false;
  std::exception_ptr error_;
  Partial total_;
  ChunkValues values_[2];  ///< used by the folding thread alone
};

}  // namespace

std::optional<Partial> fold_received_pairs(const StoredElements& a, const StoredElements& b, const Rule& rule,
                                           bool floats, const std::function<void(std::int64_t done)>& progress) {
  if (!remote_files_open() || !streamable(a) || !streamable(b) || a.numel != b.numel) return std::nullopt;
  const std::uint64_t larger = std::max(a.bytes.size(), b.bytes.size());
  if (larger < kMinRequest) return std::nullopt;  // a few requests: fetched and compared in memory
  static std::mutex staging_mutex;
  std::lock_guard<std::mutex> staging(staging_mutex);
  Pairing pairing(a, b, rule, floats, progress);
  std::thread other([&] { pairing.run_side(1); });
  pairing.run_side(0);
  other.join();
  return pairing.result();
}

}  // namespace tensor_inspect::compare_detail
