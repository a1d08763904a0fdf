// buffer/spill_file.hpp — a remote tensor's bytes copied to a temporary file on disk, for a
// kernel that reads them in an order no bounded cache of fetched blocks serves: a column walk
// over more rows than the cache holds (`(x + x.T).sum()` of a remote (8192, 8192) float32).
//
// Why: such a walk reads each 64 KiB fetch block again for every column it crosses, so the
// remote block cache (block_reads.hpp) gives up; before this file it then fetched the whole
// tensor into memory (274 MiB for a 256 MiB tensor, 8 GiB for an 8 GiB one). The spill streams
// the tensor once, in parallel ranged requests, into an unlinked file and holds none of it:
// the walk then reads the file as it reads a local one (pread into blocks down to 256 bytes),
// and memory stays within the caches' bound whatever the tensor's size. The file goes in
// $TMPDIR, else /var/tmp (on disk where /tmp is a tmpfs, which would hold it in memory), and
// disappears with the process, however it ends (O_TMPFILE).
//
//   std::string why;
//   auto spill = SpillFile::make(begin, length, why);  // nullptr: `why` says why not
//   spill->read(offset, std::span(slot, n));             // pread: no pages of it are mapped
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "tensor_inspect/buffer.hpp"

namespace tensor_inspect {

class SpillFile {
 public:
  /// Streams bytes [begin, begin + length) of an on-demand source (byte_source.hpp, stream_bytes)
  /// into a new unlinked file (even bytes fetched already: a scan may release them under a copy).
  /// nullptr, with the reason in `why`, when the source does not stream them
  /// (a remote file always does, --cache or not) or no file of `length`
  /// bytes can be made (no folder, no room: the space is reserved before the transfer). Throws
  /// Error(Io) when the transfer fails (as fetch_bytes) or a write to the file does.
  static std::shared_ptr<SpillFile> make(const std::byte* begin, std::uint64_t length, std::string& why);
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;
  ~SpillFile();

  /// Copies bytes [offset, offset + to.size()) of the spilled range to `to` (pread). Throws
  /// Error(Io) when the read fails or comes up short. Thread-safe.
  void read(std::uint64_t offset, std::span<std::byte> to) const;
  /// The file mapped read-only (mapped at the first call), for reads that no cache serves. Throws
  /// Error(Io) when it cannot be mapped. Thread-safe.
  const std::byte* map();
  /// The copy as a local file of its own, mapped read-only (through /proc/self/fd: it has no
  /// name), which stays readable as long as that MappedFile lives; messages call it `name`.
  /// Throws Error(Io) when it cannot be opened or mapped.
  std::shared_ptr<MappedFile> as_file() const;
  /// The folder the file is in (for -v).
  const std::string& folder() const { return folder_; }

 private:
  SpillFile(int fd, std::uint64_t length, std::string folder) : fd_(fd), length_(length), folder_(std::move(folder)) {}
  int fd_;
  std::uint64_t length_;
  std::string folder_;
  std::mutex mutex_;
  std::byte* map_ = nullptr;
};

}  // namespace tensor_inspect
