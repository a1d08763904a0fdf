// buffer/byte_source.hpp — what buffer/ needs of a file whose bytes arrive on demand (a
// remote file, implemented in remote/): fetch a range before it is read, release a range a
// scan is past. The registry maps an address inside a MappedFile's bytes to its source, so
// readers that hold only a span (fetch_bytes) or a DISK Buffer find it; remote/ registers
// its files here, and realize/ and buffer/ never include remote/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>

namespace tensor_inspect {

/// Fetch granularity of on-demand sources: bytes arrive in aligned blocks of this many, so
/// a reader gathering scattered reads coalesces those closer than this.
inline constexpr std::uint64_t kFetchBlock = std::uint64_t{1} << 16;

/// Takes the bytes of one range in order as they arrive, without their being kept
/// (stream_bytes): a scan that decodes while it receives.
class RangeSink {
 public:
  virtual ~RangeSink() = default;
  /// The range starts over from its first byte (its request is retried): what consume()
  /// was given before is void. Also called once before the first bytes.
  virtual void restart() = 0;
  /// The next bytes of the range, in order; all of them arrive before stream_bytes returns.
  virtual void consume(std::span<const std::byte> bytes) = 0;
};

/// Bytes [begin, begin + length) of a source's bytes, handed to `sink` as they arrive.
struct StreamedRange {
  const std::byte* begin = nullptr;
  std::uint64_t length = 0;
  RangeSink* sink = nullptr;
};

/// Bytes [base(), base() + size()) that are readable only after fetch() of them.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// Makes bytes [offset, offset + length) (clamped to size()) readable; thread-safe.
  /// Throws Error(Io) when they cannot be had.
  virtual void fetch(std::uint64_t offset, std::uint64_t length) = 0;
  /// fetch() of several ranges (offset, length), their requests several at once where the
  /// source can; the bytes between them are not fetched. Throws as fetch() does.
  virtual void fetch_ranges(std::span<const std::pair<std::uint64_t, std::uint64_t>> ranges) {
    for (const auto& [offset, length] : ranges) fetch(offset, length);
  }
  /// Gives back the memory of the whole fetch blocks inside [offset, offset + length): a
  /// later read must fetch() them again. Thread-safe against fetches of other ranges.
  virtual void release(std::uint64_t offset, std::uint64_t length) = 0;
  /// Hands each range's bytes (offsets from base()) to its sink as they arrive, several
  /// ranges at once, and keeps none of them: nothing becomes readable. False, with nothing
  /// delivered, when this source does not stream these ranges (then fetch and read them): when
  /// it keeps what it fetches (a block cache) or they are all fetched already, unless
  /// `even_if_fetched` (a reader that must not read fetched bytes in place, which a scan may
  /// release under it): a remote file then never declines. Throws as fetch() does.
  virtual bool stream(std::span<const StreamedRange> ranges, bool even_if_fetched) {
    (void)ranges, (void)even_if_fetched;
    return false;
  }
  virtual const std::byte* base() const = 0;
  virtual std::uint64_t size() const = 0;
};

/// Records `source` so fetch_bytes() finds it (until unregister_byte_source).
void register_byte_source(ByteSource* source);
void unregister_byte_source(ByteSource* source);
/// Calls `visit` for every registered source, under the registry's shared lock.
void visit_byte_sources(const std::function<void(ByteSource&)>& visit);

/// ByteSource::release() of the whole fetch blocks inside `bytes`, of the source holding them;
/// nothing for bytes of no on-demand source.
void release_bytes(std::span<const std::byte> bytes);

/// ByteSource::fetch_ranges() of the source whose bytes hold `within`, for ranges (offset, length)
/// of `within` (each inside it): nothing for bytes of no on-demand source. Throws as fetch_bytes().
void fetch_byte_ranges(std::span<const std::byte> within,
                       std::span<const std::pair<std::uint64_t, std::uint64_t>> ranges);

/// ByteSource::stream() of the source whose bytes hold every range (all in one source);
/// false, with nothing delivered, for bytes of no on-demand source or one that does not
/// stream them. Throws as fetch_bytes() does.
bool stream_bytes(std::span<const StreamedRange> ranges, bool even_if_fetched = false);

/// True while any on-demand source is open (DISK buffers then fetch their bytes at first use).
bool remote_files_open();

}  // namespace tensor_inspect
