// remote/remote_file.hpp — the state behind a remote MappedFile (the ByteSource of
// buffer/byte_source.hpp): which 64 KiB blocks of its reserved address space hold fetched
// bytes, the block cache (--cache) that may hold more, and the HTTP source that fetches
// the rest. Blocks a scan is past are released (their memory given back, their bits
// cleared), so a scan of any size holds only the windows it reads and fetches ahead.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "buffer/byte_source.hpp"
#include "remote/http_source.hpp"

namespace tensor_inspect {

class BlockCache;

/// Fetch granularity: a remote file is read in aligned blocks of this many bytes.
inline constexpr std::uint64_t kRemoteBlock = kFetchBlock;

class RemoteBytes final : public ByteSource {
 public:
  /// Registers [base, base + size) so fetch_bytes() finds it; `head` bytes are present
  /// (`head_cached` of them read from `cache`, which may be null).
  RemoteBytes(std::unique_ptr<HttpSource> source, std::byte* base, std::uint64_t size, std::uint64_t head,
              std::unique_ptr<BlockCache> cache, std::uint64_t head_cached);
  RemoteBytes(const RemoteBytes&) = delete;
  RemoteBytes& operator=(const RemoteBytes&) = delete;
  ~RemoteBytes() override;

  /// Fetches the missing blocks of [offset, offset + length) (see MappedFile::fetch).
  void fetch(std::uint64_t offset, std::uint64_t length) override;
  /// Fetches the missing blocks of every range in one set of requests (several at once).
  void fetch_ranges(std::span<const std::pair<std::uint64_t, std::uint64_t>> ranges) override;
  /// Streams the ranges from the server to their sinks (several requests at once). Unless
  /// `even_if_fetched`, declines when a block cache is open (its runs keep what they fetch: the
  /// ranges are fetched and read instead) or every block of the ranges is here already (read
  /// where they are); with it and a block cache, stream_cached().
  bool stream(std::span<const StreamedRange> ranges, bool even_if_fetched) override;
  /// Gives back the fetched blocks wholly inside [offset, offset + length) (madvise
  /// MADV_DONTNEED on the anonymous reservation, which then reads as zeros until fetched
  /// again, so their bits are cleared first). The file's last, partial block counts as whole.
  void release(std::uint64_t offset, std::uint64_t length) override;
  const std::byte* base() const override { return base_; }
  std::uint64_t size() const override { return size_; }

  /// Logs what this file transferred (-v with --cache, -vv otherwise), once: the
  /// destructor logs it unless log_transfers() did already.
  void log_transfers();

 private:
  std::atomic<bool> logged_{false};
  bool present(std::uint64_t block) const;
  void mark(std::uint64_t first, std::uint64_t last);
  using Runs = std::vector<std::pair<std::uint64_t, std::uint64_t>>;
  Runs read_cached(const Runs& runs);
  /// Fetches `runs` of missing blocks (ascending, under mutex_): from the block cache, then in
  /// ranged requests several at once; cached, then marked present.
  void fetch_runs(Runs runs);
  /// stream() with a block cache open (under mutex_; remote/cached_stream.cpp): a range whose
  /// blocks the cache holds, and which pass their checks, from the cache; the others from the
  /// server, their whole blocks written to the cache as they arrive. Nothing is marked present.
  void stream_cached(std::span<const StreamedRange> ranges);
  std::unique_ptr<HttpSource> source_;
  std::unique_ptr<BlockCache> cache_;
  std::uint64_t head_cached_ = 0;
  std::byte* base_;
  std::uint64_t size_;
  std::uint64_t blocks_;
  std::vector<std::atomic<std::uint64_t>> bits_;
  std::mutex mutex_;             ///< one fetch at a time per file
  std::uint64_t next_block_ = 0; ///< the block after the last small read: read-ahead when reads go on from it
  std::uint64_t window_ = 1;     ///< read-ahead in blocks, doubled while reads run sequentially
};

}  // namespace tensor_inspect
