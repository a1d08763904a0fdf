// remote/cached_stream.cpp — RemoteBytes::stream_cached: a remote file's ranges streamed to
// their sinks with a block cache (--cache) open, for readers that must not read fetched bytes
// in place (a block cache of a column walk, a copy of the tensor on disk: block_reads.hpp,
// buffer/spill_file.hpp). Before, such readers fetched into the file's memory with --cache, and
// kept it: the cache bounded the disk, not the memory.
#include <algorithm>
#include <memory>
#include <vector>

#include "remote/block_cache.hpp"
#include "remote/remote_file.hpp"

namespace tensor_inspect {
namespace {

/// Blocks written to the cache at once: each write checks the cache's room (a few fstat).
constexpr std::uint64_t kCacheRun = 16;

/// Ranges of at least this many bytes are requested from their first block's start to their last
/// block's end, so that every block they touch is cached: a copy's 16 MiB pieces begin and end
/// inside blocks (a tensor's bytes begin anywhere), which no piece held whole, so a second run
/// found none of them whole in the cache and fetched the copy again.
constexpr std::uint64_t kWholeBlocks = std::uint64_t{1} << 20;

/// Hands the bytes [keep, keep + kept) of one requested range [offset, offset + length) to its sink
/// and writes the whole blocks among them to the cache, a run of up to kCacheRun blocks at a time.
/// A block the request holds only part of is not cached.
class CachingSink final : public RangeSink {
 public:
  CachingSink(RangeSink& sink, BlockCache& cache, std::uint64_t offset, std::uint64_t length, std::uint64_t keep,
              std::uint64_t kept, std::uint64_t size)
      : sink_(sink), cache_(cache), offset_(offset), length_(length), keep_(keep), kept_(kept), size_(size) {}
  void restart() override {
    sink_.restart();
    at_ = 0, run_.clear();
  }
  void consume(std::span<const std::byte> bytes) override {
    const std::uint64_t start = offset_ + at_;
    const std::uint64_t from = std::max(start, keep_), to = std::min(start + bytes.size(), keep_ + kept_);
    if (from < to)
      sink_.consume(bytes.subspan(static_cast<std::size_t>(from - start), static_cast<std::size_t>(to - from)));
    while (!bytes.empty()) {
      const std::uint64_t pos = offset_ + at_;
      if (pos % kRemoteBlock == 0 && run_.empty()) first_ = pos / kRemoteBlock;
      // Bytes up to the end of this block; those of a block begun before the range are skipped.
      const std::uint64_t n = std::min<std::uint64_t>(bytes.size(), kRemoteBlock - pos % kRemoteBlock);
      const bool in_run = !run_.empty() || pos % kRemoteBlock == 0;
      if (in_run) run_.insert(run_.end(), bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
      at_ += n;
      bytes = bytes.subspan(static_cast<std::size_t>(n));
      const std::uint64_t end = offset_ + at_;
      const bool block_done = end % kRemoteBlock == 0 || end == size_;
      if (in_run && block_done && (run_.size() >= kCacheRun * kRemoteBlock || at_ == length_ || end == size_))
        flush();
      if (in_run && !block_done && at_ == length_) run_.resize(run_.size() / kRemoteBlock * kRemoteBlock), flush();
    }
  }

 private:
  void flush() {
    if (!run_.empty()) {
      const std::uint64_t blocks = (run_.size() + kRemoteBlock - 1) / kRemoteBlock;
      cache_.write_from(first_, first_ + blocks - 1, run_.data());
    }
    run_.clear();
  }
  RangeSink& sink_;
  BlockCache& cache_;
  std::uint64_t offset_, length_, keep_, kept_, size_;
  std::uint64_t at_ = 0;
  std::uint64_t first_ = 0;     ///< the block run_ begins with
  std::vector<std::byte> run_;  ///< whole blocks (and the one arriving) not yet written
};

}  // namespace

void RemoteBytes::stream_cached(std::span<const StreamedRange> ranges) {
  std::vector<HttpSource::Range> requests;
  std::vector<std::unique_ptr<CachingSink>> tees;
  std::vector<std::byte> staging;
  for (const StreamedRange& g : ranges) {
    if (g.length == 0) continue;
    const auto offset = static_cast<std::uint64_t>(g.begin - base_);
    const std::uint64_t b0 = offset / kRemoteBlock, b1 = (offset + g.length - 1) / kRemoteBlock;
    bool held = true;
    for (std::uint64_t b = b0; b <= b1 && held; ++b) held = cache_->holds(b);
    if (held) {
      staging.resize(static_cast<std::size_t>((b1 - b0 + 1) * kRemoteBlock));
      const std::vector<bool> ok = cache_->read_into(b0, b1, staging.data());
      if (std::all_of(ok.begin(), ok.end(), [](bool b) { return b; })) {
        g.sink->restart();
        g.sink->consume(std::span(staging).subspan(static_cast<std::size_t>(offset - b0 * kRemoteBlock),
                                                   static_cast<std::size_t>(g.length)));
        continue;
      }
    }
    const bool whole = g.length >= kWholeBlocks;
    const std::uint64_t begin = whole ? b0 * kRemoteBlock : offset;
    const std::uint64_t end = whole ? std::min(size_, (b1 + 1) * kRemoteBlock) : offset + g.length;
    tees.push_back(std::make_unique<CachingSink>(*g.sink, *cache_, begin, end - begin, offset, g.length, size_));
    requests.push_back({begin, end - begin, nullptr, tees.back().get()});
  }
  if (!requests.empty()) source_->fetch(requests);
}

}  // namespace tensor_inspect
