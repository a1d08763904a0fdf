// loaders/zip_stream.hpp — one member of a ZipArchive inflated front to back through a
// bounded window, for readers that want a few ranges of a large DEFLATED member (the
// elements a summary prints) without holding the member inflated.
//
//   ZipMemberStream s(zip, member);
//   std::byte v[4];
//   s.read(offset, v);      // inflates up to offset + 4, keeping only the last two windows
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "loaders/zip_archive.hpp"

namespace tensor_inspect {

class ZipMemberStream {
 public:
  /// Opens `member` of `zip` for reading; Error(BadFile) as ZipArchive's readers when
  /// libzip cannot open it.
  ZipMemberStream(std::shared_ptr<const ZipArchive> zip, ZipMember member);
  ~ZipMemberStream();
  ZipMemberStream(const ZipMemberStream&) = delete;
  ZipMemberStream& operator=(const ZipMemberStream&) = delete;

  /// Copies bytes [at, at + out.size()) of the uncompressed member into `out`. Bytes at or
  /// after the window are inflated forward (what lies between is dropped); the window
  /// before it is kept too; bytes before both start the member again from its first byte
  /// (counted by restarts()). Reaching the member's end checks that nothing follows and the
  /// CRC-32 (check_member_crc's message). Throws Error(BadFile) naming the file and member
  /// when the range is past the declared size or the data is short, longer than declared,
  /// or corrupt. Memory: two windows of kWindow bytes, whatever the member's size (the
  /// member's compressed pages are dropped as it goes).
  void read(std::uint64_t at, std::span<std::byte> out);
  /// True when read(at, ...) would have to start the member again (`at` is before both windows).
  bool goes_back(std::uint64_t at) const { return at < previous_at_; }
  /// How many times read() went back to the member's first byte.
  std::uint64_t restarts() const { return restarts_; }

  static constexpr std::size_t kWindow = std::size_t{1} << 20;  ///< bytes inflated at a time

 private:
  void open();
  void advance();  ///< inflates the next window
  [[noreturn]] void fail(const std::string& what) const;

  std::shared_ptr<const ZipArchive> zip_;
  ZipMember member_;
  void* file_ = nullptr;          ///< zip_file_t*
  std::vector<std::byte> window_; ///< bytes [window_at_, window_at_ + window_.size())
  std::uint64_t window_at_ = 0;
  std::vector<std::byte> previous_; ///< the window before, bytes [previous_at_, window_at_)
  std::uint64_t previous_at_ = 0;
  std::uint32_t crc_ = 0;         ///< CRC-32 of the bytes inflated so far
  std::uint64_t restarts_ = 0;
};

/// Members up to this size (uncompressed bytes) are inflated whole at realize, as their
/// loops then run typed over a buffer (twice as fast as element by element); larger ones
/// are read element by element through a ZipScatteredReader, so memory stays flat.
constexpr std::uint64_t kInflateWholeBytes = std::uint64_t{16} << 20;

/// Bytes of a member at the offsets element loops ask for (an .npz array, a torch storage
/// under a strided view): through a ZipMemberStream, or, once the loops went back more
/// than kMaxRestarts times, from the member inflated whole (a transpose goes back for
/// every row, a flip once), so no access order costs more than a few passes.
class ZipScatteredReader {
 public:
  ZipScatteredReader(std::shared_ptr<const ZipArchive> zip, const ZipMember& member)
      : zip_(zip), member_(member), stream_(std::move(zip), member) {}
  /// Copies bytes [at, at + out.size()) of the uncompressed member into `out`; errors as
  /// ZipMemberStream::read and ZipArchive::read_all.
  void read(std::uint64_t at, std::span<std::byte> out);

  static constexpr std::uint64_t kMaxRestarts = 1;

 private:
  std::shared_ptr<const ZipArchive> zip_;
  ZipMember member_;
  ZipMemberStream stream_;
  std::vector<std::byte> whole_;  ///< the member, once inflated whole
};

}  // namespace tensor_inspect
