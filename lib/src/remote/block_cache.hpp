// remote/block_cache.hpp — `--cache DIR`: fetched 64 KiB blocks of remote files kept on
// disk, so a second look at a file is local.
//
// One entry per URL, DIR/<16 hex digits of XXH3-64 of the URL>/:
//   1. `info`   text: a magic line, the URL as display_url() shows it (never a token or a
//               query string), a second hash of the full URL (two URLs sharing a folder name
//               are told apart), the file's validator (`ETag "..."` or `Last-Modified ...`),
//               its size and the block size;
//   2. `data`   a sparse file of the remote size; each block written at its own offset;
//   3. `blocks` one little-endian uint64 per block: 0 while the block is absent, else the
//               XXH3-64 of its bytes (0 written as 1), stored after the block's pwrite.
// A block is used only when its bytes hash to its slot, so a torn write, a lost page after
// a power cut or a damaged file costs a refetch, never a wrong byte; slots of one version
// never disagree, so concurrent runs need no lock. An entry is replaced whole (a new folder
// renamed into place) when the server's validator or size differs, and read through one
// directory descriptor, so a run never mixes two entries' files. DIR's allocated bytes stay
// under the cap: before writing, whole least recently used entries (by the mtime of
// `blocks`) are evicted; an entry that alone would pass the cap keeps the blocks that fit
// and stops growing.
//
//   auto cache = BlockCache::open(options.cache_dir, options.cache_size, url, name);
//   if (cache) if (auto c = cache->cached_head()) ...     // a conditional probe
//   cache->adopt(validator, size);                         // after the probe
//   cache->read(b0, b1, base);  cache->write(b0, b1, base);
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "buffer/byte_source.hpp"

namespace tensor_inspect {

/// What an entry's `info` file says.
struct CacheInfo {
  std::string url;             ///< display_url() of the URL: for people reading DIR
  std::uint64_t url_check = 0; ///< cache_url_hash(url, 1) of the full URL
  std::string validator;       ///< `ETag "..."` or `Last-Modified <date>`: one line, printable ASCII
  std::uint64_t size = 0;      ///< the remote file's length in bytes
  std::uint64_t block = 0;     ///< block size in bytes (kRemoteBlock)
};

/// The `info` text for `info`.
std::string format_cache_info(const CacheInfo& info);
/// `info` parsed back; nullopt when any line is missing, out of order or malformed (the
/// entry is then discarded, never trusted).
std::optional<CacheInfo> parse_cache_info(std::string_view text);
/// XXH3-64 of `url` with `seed`: seed 0 names the folder, seed 1 is the info's check.
std::uint64_t cache_url_hash(std::string_view url, std::uint64_t seed);
/// A block's slot value: XXH3-64 of its bytes, 0 mapped to 1 (0 means absent).
std::uint64_t cache_block_hash(const std::byte* data, std::size_t length);
/// The validator to cache under, from a response's ETag and Last-Modified headers: a strong
/// ETag, else the date (RFC 9110 §13.1: parts may be combined only under a strong
/// validator); empty (not cached) for a weak ETag, none at all, or one with control characters.
std::string cache_validator(std::string_view etag, std::string_view last_modified);
/// The conditional request header for a validator: `If-None-Match: ...` or `If-Modified-Since: ...`.
std::string cache_condition(std::string_view validator);

class BlockCache {
 public:
  /// The cache in `dir` (created, mode 0700, with a CACHEDIR.TAG) for `url`, shown as
  /// `name`, holding at most `cap` bytes on disk. nullptr when `dir` cannot be used (not a
  /// folder, not writable, another user's or writable by anyone): said once at -v, and the
  /// run goes on uncached.
  static std::unique_ptr<BlockCache> open(const std::string& dir, std::uint64_t cap, const std::string& url,
                                          const std::string& name);
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;
  ~BlockCache();

  /// What a conditional probe needs: the validator's header, the size and the verified
  /// first block (min(size, block) bytes). nullopt without a sound entry holding block 0.
  struct Head {
    std::string condition;
    std::uint64_t size = 0;
    std::vector<std::byte> bytes;
  };
  std::optional<Head> cached_head();

  /// After the probe: the file is `size` bytes under `validator` (cache_validator()). Keeps
  /// the entry when both match, else replaces it with an empty one; with no validator or an
  /// empty file nothing is cached. Failures turn the cache off (said at -v).
  void adopt(const std::string& validator, std::uint64_t size);

  /// True when block `b` has a slot (its bytes are checked on read()).
  bool holds(std::uint64_t b) const;
  /// Reads blocks [first, last] (each holds()) into `to`, block `first` at its start; returns
  /// for each whether it arrived and matched its hash. A block that did not is forgotten (fetch it).
  std::vector<bool> read_into(std::uint64_t first, std::uint64_t last, std::byte* to);
  /// read_into() the file's bytes at `base`: block b at base + b * block (kFetchBlock, kRemoteBlock).
  std::vector<bool> read(std::uint64_t first, std::uint64_t last, std::byte* base) {
    return read_into(first, last, base + first * kFetchBlock);
  }
  /// Stores blocks [first, last] from `from`, block `first` at its start, within the size cap:
  /// when they do not all fit, those that do, from `first`, and no more blocks after them.
  void write_from(std::uint64_t first, std::uint64_t last, const std::byte* from);
  /// write_from() the file's bytes at `base`: block b at base + b * block.
  void write(std::uint64_t first, std::uint64_t last, const std::byte* base) {
    write_from(first, last, base + first * kFetchBlock);
  }

  /// Bytes read() delivered (for -v).
  std::uint64_t bytes_read() const { return bytes_read_; }

 private:
  BlockCache() = default;
  bool load_entry();
  bool create_entry();
  void remove_entry(const std::string& folder);
  void close_entry();
  /// Bytes this entry may still allocate under the cap, after evicting least recently used
  /// entries until `want` fits or no other entry is left.
  std::uint64_t room(std::uint64_t want);
  void off(const std::string& why);
  std::string display_url_for_cache() const;

  std::string dir_, url_, name_;
  std::uint64_t cap_ = 0;
  std::string folder_;        ///< the entry's folder name in dir_
  int dir_fd_ = -1;           ///< dir_
  int entry_fd_ = -1;         ///< the entry's folder, or -1
  int data_fd_ = -1, blocks_fd_ = -1;
  bool damaged_ = false;      ///< an entry exists but cannot be trusted
  bool full_ = false;         ///< the entry reached the cap: no more writes
  std::optional<CacheInfo> info_;
  std::vector<std::uint64_t> slots_;  ///< the `blocks` table in memory
  std::uint64_t others_ = 0;          ///< allocated bytes of DIR outside this entry, at the last scan
  bool scanned_ = false;
  std::uint64_t bytes_read_ = 0;
};

}  // namespace tensor_inspect
