// buffer.cpp — MappedFile (a read-only mmap of a whole file, or bytes read into memory)
// and Buffer (CPU heap bytes or a DISK slice of a MappedFile).
#include "log/log.hpp"

#include "tensor_inspect/buffer.hpp"
#include "buffer/mapped_read.hpp"
#include "buffer/read_inputs.hpp"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/remote.hpp"
#include "buffer/byte_source.hpp"

namespace tensor_inspect {

namespace {

// Closes a file descriptor on every path out of MappedFile::open.
struct FdGuard {
  int fd = -1;
  ~FdGuard() {
    if (fd >= 0) ::close(fd);
  }
};

[[noreturn]] void fail_io(const std::string& name, const std::string& what, int err) {
  throw Error(ErrorCode::Io, name + ": " + what + ": " + std::strerror(err));
}

// Unmaps a stream's reservation on every path out of read_all that does not keep it (an
// error thrown by a check, a cap, a read), so no path can forget it.
struct StreamReservation {
  void* p = nullptr;
  std::size_t size = 0;
  ~StreamReservation() {
    if (p) ::munmap(p, size);
  }
  void keep() { p = nullptr; }
};

/// Bytes read from a stream into an anonymous mapping.
struct StreamBytes {
  void* data = nullptr;  ///< nullptr when nothing was read
  std::size_t size = 0;
};

// Reads everything from `fd` (a pipe, a terminal, an empty or special file), which may
// never end (/dev/zero): at most Limits::stream_bytes, into address space reserved once
// (MAP_NORESERVE: pages cost memory only once read into, and nothing is copied as it grows);
// less when `check` learns from the first bytes where the input ends or that it is none.
StreamBytes read_all(int fd, const std::string& name, const StreamCheck& check) {
  const std::uint64_t cap = limits().stream_bytes;
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t reserved = static_cast<std::size_t>((cap + 1 + page - 1) / page * page);
  void* p = ::mmap(nullptr, reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) fail_io(name, "cannot reserve " + std::to_string(reserved) + " bytes to read into", errno);
  StreamReservation reservation{p, reserved};
  auto* base = static_cast<std::byte*>(p);
  std::size_t got = 0;
  std::size_t next_check = 64;
  std::optional<StreamStop> stop;
  std::uint64_t end = reserved;  // read no further than this
  for (;;) {
    if (check && !stop && got >= next_check) {
      stop = check(std::span<const std::byte>(base, got));
      next_check = got * 2;
      if (stop) {
        if (stop->bytes > cap)
          throw limit_error("stream_bytes",
                            name + ": its first bytes say it holds " + std::to_string(stop->bytes) +
                                " bytes, over the " + std::to_string(cap) +
                                " read into memory from a pipe or special file" + limit_hint("stream_bytes"),
                            name);
        end = stop->bytes + (stop->more_is_error.empty() ? 0 : 1);  // one byte more tells whether there is more
      }
    }
    if (stop && !stop->more_is_error.empty() && got > stop->bytes)
      throw Error(stop->limit.empty() ? ErrorCode::BadFile : ErrorCode::LimitExceeded,
                  name + ": " + stop->more_is_error, {name, "", std::nullopt, stop->limit});
    if (stop && got >= end) break;
    const std::size_t want = std::min<std::size_t>(static_cast<std::size_t>(end) - got, std::size_t{1} << 20);
    const ssize_t n = want == 0 ? 0 : ::read(fd, base + got, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      fail_io(name, "cannot read", err);
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
    if (got > cap)
      throw limit_error("stream_bytes", name + ": more than " + std::to_string(cap) +
                                            " bytes from a pipe or special file, which is read into memory" +
                                            limit_hint("stream_bytes"),
                        name);
  }
  if (stop && got > stop->bytes) got = static_cast<std::size_t>(stop->bytes);  // the first read went past it
  // Give back the reservation past the last page read.
  const std::size_t kept = (got + page - 1) / page * page;
  if (kept == 0) return {};  // the reservation's destructor gives all of it back
  reservation.keep();
  if (kept < reserved) ::munmap(base + kept, reserved - kept);
  ::mprotect(p, kept, PROT_READ);
  return {p, got};
}

}  // namespace

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path) { return open(path, StreamCheck{}); }

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path, const StreamCheck& check) {
  if (is_url(path)) return open_url(path);
  FdGuard guard;
  guard.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (guard.fd < 0) fail_io(path, "cannot open", errno);
  struct stat st {};
  if (::fstat(guard.fd, &st) != 0) fail_io(path, "cannot stat", errno);
  if (S_ISDIR(st.st_mode)) throw Error(ErrorCode::Io, path + ": is a directory");
  note_input_stat(st);

  std::shared_ptr<MappedFile> file(new MappedFile());
  file->name_ = path;
  file->location_ = path;
  // NOTE: a zero-length "regular" file may still have content (/proc files), and pipes
  // or devices cannot be mapped: those are read instead.
  if (!S_ISREG(st.st_mode) || st.st_size == 0) {
    const StreamBytes in = read_all(guard.fd, path, check);
    file->data_ = static_cast<const std::byte*>(in.data);
    file->size_ = in.size;
    file->anonymous_ = in.data != nullptr;
    return file;
  }
  auto size = static_cast<std::size_t>(st.st_size);
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, guard.fd, 0);
  if (p == MAP_FAILED) fail_io(path, "cannot map " + std::to_string(size) + " bytes", errno);
  file->data_ = static_cast<const std::byte*>(p);
  file->size_ = size;
  file->mapped_ = true;
  lib_log().debug("{}: mapped {} bytes read-only", path, size);
  file->file_mapping_ = true;
  register_mapping(p, size, file->name_.c_str());
  if (keep_mapping_fd(p, guard.fd)) guard.fd = -1;  // closed with the mapping (mapped_read.hpp)
  return file;
}

std::shared_ptr<MappedFile> MappedFile::read_fd(int fd, const std::string& name, const StreamCheck& check) {
  // Standard input redirected from a regular file (`< big.npy`) is mapped like a named
  // file, from the current position, so its data is not read into memory.
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    off_t pos = ::lseek(fd, 0, SEEK_CUR);
    if (pos >= 0 && st.st_size > pos && pos % ::sysconf(_SC_PAGESIZE) == 0) {
      auto size = static_cast<std::size_t>(st.st_size - pos);
      void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, pos);
      if (p != MAP_FAILED) {
        std::shared_ptr<MappedFile> file(new MappedFile());
        file->name_ = name;
        file->data_ = static_cast<const std::byte*>(p);
        file->size_ = size;
        file->mapped_ = true;
        file->file_mapping_ = true;
        register_mapping(p, size, file->name_.c_str());
        return file;
      }
    }
  }
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->name_ = name;
  const StreamBytes in = read_all(fd, name, check);
  file->data_ = static_cast<const std::byte*>(in.data);
  file->size_ = in.size;
  file->anonymous_ = in.data != nullptr;
  return file;
}

std::shared_ptr<MappedFile> MappedFile::from_bytes(std::vector<std::byte> bytes, const std::string& name) {
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->name_ = name;
  file->owned_ = std::move(bytes);
  file->data_ = file->owned_.data();
  file->size_ = file->owned_.size();
  return file;
}

MappedFile::~MappedFile() {
  remote_.reset();  // unregisters its address range before the mapping goes
  if (file_mapping_ && mapped_) unregister_mapping(data_);
  if (mapped_ || anonymous_) ::munmap(const_cast<std::byte*>(data_), size_);
}

void MappedFile::fetch(std::uint64_t offset, std::uint64_t length) const {
  if (remote_) remote_->fetch(offset, length);
}

std::uint64_t Buffer::cpu_allocations_ = 0;

std::shared_ptr<Buffer> Buffer::cpu(std::size_t nbytes) {
  if (nbytes > limits().buffer_bytes)
    throw limit_error("buffer_bytes", "cannot allocate a buffer of " + std::to_string(nbytes) +
                                            " bytes: over the limit of " + std::to_string(limits().buffer_bytes) +
                                            " bytes" + limit_hint("buffer_bytes"));
  std::shared_ptr<Buffer> buf(new Buffer());
  buf->device_ = Device::CPU;
  buf->owned_ = std::make_unique<std::byte[]>(nbytes);  // value-initialised: zeroed
  buf->data_ = buf->owned_.get();
  buf->size_ = nbytes;
  ++cpu_allocations_;
  return buf;
}

std::shared_ptr<Buffer> Buffer::disk(std::shared_ptr<const MappedFile> file, std::uint64_t offset,
                                     std::uint64_t nbytes) {
  assert(file);
  const std::uint64_t size = file->size();
  if (offset > size || nbytes > size - offset)
    throw Error(ErrorCode::BadFile, file->name() + ": data at byte " + std::to_string(offset) + " + " +
                                        std::to_string(nbytes) + " bytes is past end of file (" +
                                        std::to_string(size) + " bytes)");
  std::shared_ptr<Buffer> buf(new Buffer());
  buf->device_ = Device::DISK;
  // NOTE: the const is cast away only to share one pointer member with CPU buffers;
  // mutable_bytes() refuses DISK buffers, so the mapping is never written.
  buf->data_ = const_cast<std::byte*>(file->bytes().data()) + offset;
  buf->size_ = static_cast<std::size_t>(nbytes);
  buf->resident_.store(nbytes == 0 || !remote_files_open(), std::memory_order_relaxed);
  buf->file_ = std::move(file);
  return buf;
}

void Buffer::make_resident() const {
  fetch_bytes({data_, size_});
  // A remote file's blocks may be given back behind a scan (release_pages): asked again
  // at each use, which costs a look at its block bitmap when they are all there.
  if (!file_->is_remote()) resident_.store(true, std::memory_order_release);
}

std::span<std::byte> Buffer::mutable_bytes() {
  assert(device_ == Device::CPU && "DISK buffers are read-only");
  return {data_, size_};
}

}  // namespace tensor_inspect
