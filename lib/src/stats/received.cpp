// stats/received.cpp — the moments of a remote tensor's chunks taken as its bytes arrive
// (stream_bytes), instead of fetched into memory and scanned there: each chunk is scanned
// straight from the receive buffer, or from a chunk-sized staging copy when it arrives in
// pieces, while it is still in the cache. No page of the file is committed, zeroed or
// given back, so memory is a few chunks however large the tensor.
// NOTE: measured on a 1 GiB float32 safetensors file through a local nginx (bench/README.md):
// fetching 32 MiB windows into memory and scanning them ran at 2.2-2.6x `curl -o /dev/null`;
// most of the difference was zeroing and mapping fresh pages and the waits between windows.
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "buffer/byte_source.hpp"
#include "decode/lanes.hpp"
#include "stats/bit_patterns.hpp"
#include "stats/parts.hpp"

namespace tensor_inspect {
namespace {

// A request of the stream asks for whole chunks: an eighth of the tensor (the transfers
// at once of http_source.cpp), at least kMinRequest and at most kMaxRequest bytes.
// NOTE: measured through a local nginx (1 GiB, four tensors, 7 alternated runs): requests of
// 4 MiB took 1.7x curl's time, of 16 MiB 1.1x, of 32 MiB 1.05x, with 8, 4 or 1 in flight alike.
constexpr std::uint64_t kMinRequest = std::uint64_t{4} << 20;
constexpr std::uint64_t kMaxRequest = std::uint64_t{32} << 20;

// The bit pattern counts of every request (ScanOptions::bit_patterns), added up as each ends.
struct PatternTotals {
  std::mutex lock;
  std::vector<std::uint64_t>* into;
  std::size_t itemsize;
};

// Chunks [first, last) of a source, consumed in order as their bytes arrive.
class ReceivedChunks final : public RangeSink {
 public:
  ReceivedChunks(const StoredElements& source, Lane lane, std::vector<Moments>& parts, std::int64_t first,
                 std::int64_t last, std::uint64_t& done, const ScanOptions& options, PatternTotals* totals)
      : source_(source), lane_(lane), parts_(parts), first_(first), last_(last), done_(done), options_(options),
        totals_(totals), one_(source) {
    one_.file = nullptr;  // one chunk's bytes in a buffer of ours, described as the source's
    one_.keep = nullptr;
  }

  void restart() override {
    chunk_ = first_;
    filled_ = 0;
    counts_.clear();  // counted again from the first chunk
  }

  void consume(std::span<const std::byte> bytes) override {
    while (!bytes.empty() && chunk_ < last_) {
      const std::uint64_t want = chunk_size(chunk_) - filled_;
      if (filled_ == 0 && bytes.size() >= want) {  // the whole chunk in this piece: scanned where it lies
        finish(bytes.data());
        bytes = bytes.subspan(static_cast<std::size_t>(want));
        continue;
      }
      const auto take = static_cast<std::size_t>(std::min<std::uint64_t>(want, bytes.size()));
      if (staging_.size() < chunk_size(chunk_)) staging_.resize(static_cast<std::size_t>(chunk_size(chunk_)));
      std::memcpy(staging_.data() + filled_, bytes.data(), take);
      filled_ += take;
      bytes = bytes.subspan(take);
      if (filled_ == chunk_size(chunk_)) finish(staging_.data());
    }
    if (chunk_ == last_ && !reported_) {  // bytes past the last chunk are refused by the transfer's own check
      reported_ = true;
      staging_ = {};
      if (totals_ && !counts_.empty()) {
        const std::lock_guard held(totals_->lock);
        for (std::size_t k = 0; k < counts_.size(); ++k) (*totals_->into)[k] += counts_[k];
      }
      counts_ = {};
      done_ += byte_offset(last_) - byte_offset(first_);
      if (options_.progress) options_.progress(done_);
    }
  }

 private:
  std::uint64_t byte_offset(std::int64_t chunk) const {
    return chunk * kStatsChunk >= source_.numel ? source_.bytes.size() : byte_offset_of(source_, chunk * kStatsChunk);
  }
  std::uint64_t chunk_size(std::int64_t chunk) const { return byte_offset(chunk + 1) - byte_offset(chunk); }

  // Chunk chunk_'s bytes are whole at `at`: its moments, exactly as the in-place scan takes them.
  void finish(const std::byte* at) {
    one_.numel = std::min(kStatsChunk, source_.numel - chunk_ * kStatsChunk);
    one_.shape.assign(1, one_.numel);
    one_.bytes = {at, static_cast<std::size_t>(chunk_size(chunk_))};
    parts_[static_cast<std::size_t>(chunk_)] = chunk_moments(one_, lane_, 0);
    if (totals_) {
      if (counts_.empty()) counts_.assign(totals_->into->size(), 0);
      count_patterns(one_.bytes, totals_->itemsize, counts_.data());
    }
    ++chunk_;
    filled_ = 0;
  }

  const StoredElements& source_;
  Lane lane_;
  std::vector<Moments>& parts_;
  std::int64_t first_, last_;
  std::uint64_t& done_;
  const ScanOptions& options_;
  PatternTotals* totals_;              ///< null: no patterns counted
  std::vector<std::uint64_t> counts_;  ///< this request's pattern counts so far
  StoredElements one_;  ///< the chunk being scanned, as a source of its own
  std::int64_t chunk_ = 0;
  std::uint64_t filled_ = 0;
  std::vector<std::byte> staging_;
  bool reported_ = false;
};

}  // namespace

bool receive_chunk_moments(const StoredElements& source, Lane lane, const ScanOptions& options,
                           std::vector<Moments>& parts) {
  if (source.bytes.empty() || source.decode || !remote_files_open()) return false;
  const auto chunks = static_cast<std::int64_t>(parts.size());
  const std::uint64_t chunk_bytes =
      std::max<std::uint64_t>(1, byte_offset_of(source, std::min(source.numel, kStatsChunk)));
  const std::uint64_t request = std::clamp(source.bytes.size() / 8, kMinRequest, kMaxRequest);
  const std::int64_t per_request = std::max<std::int64_t>(1, static_cast<std::int64_t>(request / chunk_bytes));
  std::uint64_t done = 0;
  PatternTotals totals{{}, options.bit_patterns, dtype_info(source.stored).itemsize};
  const bool count = options.bit_patterns && counts_bit_patterns(source);
  if (count) options.bit_patterns->assign(pattern_count(source), 0);
  std::vector<std::unique_ptr<ReceivedChunks>> sinks;
  std::vector<StreamedRange> ranges;
  for (std::int64_t c = 0; c < chunks; c += per_request) {
    const std::int64_t end = std::min(chunks, c + per_request);
    const std::uint64_t begin = byte_offset_of(source, c * kStatsChunk);
    const std::uint64_t stop = end == chunks ? source.bytes.size() : byte_offset_of(source, end * kStatsChunk);
    sinks.push_back(
        std::make_unique<ReceivedChunks>(source, lane, parts, c, end, done, options, count ? &totals : nullptr));
    ranges.push_back({source.bytes.data() + begin, stop - begin, sinks.back().get()});
  }
  const bool streamed = stream_bytes(ranges);
  if (!streamed && count) options.bit_patterns->clear();
  return streamed;
}

}  // namespace tensor_inspect
