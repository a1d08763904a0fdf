// buffer/spill_file.cpp — SpillFile: see spill_file.hpp.
#include "buffer/spill_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "buffer/byte_source.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {
namespace {

/// Bytes per ranged request of the spill: the requests go several at once (HttpSource), as a
/// scan's windows do.
constexpr std::uint64_t kPiece = std::uint64_t{16} << 20;

/// One range's bytes written to the file at their place as they arrive. A failed write is kept
/// (errno) and the rest dropped: nothing may throw through the transfer's callbacks.
class FileSink final : public RangeSink {
 public:
  FileSink(int fd, std::uint64_t offset) : fd_(fd), offset_(offset) {}
  void restart() override { at_ = 0; }
  void consume(std::span<const std::byte> bytes) override {
    while (error_ == 0 && !bytes.empty()) {
      const ::ssize_t n = ::pwrite(fd_, bytes.data(), bytes.size(), static_cast<::off_t>(offset_ + at_));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error_ = n < 0 ? errno : ENOSPC;
        return;
      }
      at_ += static_cast<std::uint64_t>(n);
      bytes = bytes.subspan(static_cast<std::size_t>(n));
    }
  }
  int error() const { return error_; }

 private:
  int fd_;
  std::uint64_t offset_;
  std::uint64_t at_ = 0;
  int error_ = 0;
};

std::string spill_folder() {
  const char* dir = std::getenv("TMPDIR");
  return dir && *dir ? dir : "/var/tmp";
}

/// An unlinked file in `folder` for reading and writing, or -1 (errno set).
int unnamed_file(const std::string& folder) {
  int fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
  std::string name = folder + "/tensor-inspect-spill-XXXXXX";  // a file system without O_TMPFILE
  fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd >= 0) ::unlink(name.c_str());
  return fd;
}

}  // namespace

std::shared_ptr<MappedFile> SpillFile::as_file() const {
  return MappedFile::open("/proc/self/fd/" + std::to_string(fd_));
}

std::shared_ptr<SpillFile> SpillFile::make(const std::byte* begin, std::uint64_t length, std::string& why) {
  const std::string folder = spill_folder();
  const int fd = unnamed_file(folder);
  if (fd < 0) {
    why = "no temporary file can be made in " + folder + ": " + std::strerror(errno);
    return nullptr;
  }
  std::shared_ptr<SpillFile> spill(new SpillFile(fd, length, folder));
  // The room first, so a full disk says so before anything is transferred.
  const int reserved = ::fallocate(fd, 0, 0, static_cast<::off_t>(length));
  if (reserved != 0 && errno != EOPNOTSUPP) {
    why = std::to_string(length) + " bytes of temporary file do not fit in " + folder + ": " + std::strerror(errno);
    return nullptr;
  }
  struct statvfs room {};
  if (reserved != 0 && ::statvfs(folder.c_str(), &room) == 0 &&
      static_cast<std::uint64_t>(room.f_bavail) * room.f_frsize < length) {
    why = std::to_string(length) + " bytes of temporary file do not fit in " + folder;
    return nullptr;
  }
  std::vector<FileSink> sinks;
  std::vector<StreamedRange> ranges;
  sinks.reserve(static_cast<std::size_t>((length + kPiece - 1) / kPiece));
  for (std::uint64_t at = 0; at < length; at += kPiece) {
    sinks.emplace_back(fd, at);
    ranges.push_back({begin + at, std::min(kPiece, length - at), &sinks.back()});
  }
  if (!stream_bytes(ranges, true)) {
    why = "its source does not stream it";
    return nullptr;
  }
  for (const FileSink& s : sinks)
    if (s.error() != 0)
      throw Error(ErrorCode::Io, "temporary file in " + folder + ": cannot write: " + std::strerror(s.error()));
  return spill;
}

SpillFile::~SpillFile() {
  if (map_) ::munmap(map_, static_cast<std::size_t>(length_));
  ::close(fd_);
}

void SpillFile::read(std::uint64_t offset, std::span<std::byte> to) const {
  std::size_t done = 0;
  while (done < to.size()) {
    const ::ssize_t n = ::pread(fd_, to.data() + done, to.size() - done, static_cast<::off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw Error(ErrorCode::Io, "temporary file in " + folder_ + ": cannot read: " +
                                     (n < 0 ? std::strerror(errno) : std::string("it is cut short")));
    done += static_cast<std::size_t>(n);
  }
}

const std::byte* SpillFile::map() {
  const std::lock_guard lock(mutex_);
  if (!map_ && length_ > 0) {
    void* p = ::mmap(nullptr, static_cast<std::size_t>(length_), PROT_READ, MAP_SHARED, fd_, 0);
    if (p == MAP_FAILED)
      throw Error(ErrorCode::Io, "temporary file in " + folder_ + ": cannot map: " + std::strerror(errno));
    map_ = static_cast<std::byte*>(p);
  }
  return map_;
}

}  // namespace tensor_inspect
