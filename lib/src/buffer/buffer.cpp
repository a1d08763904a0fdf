// buffer.cpp — MappedFile (a read-only mmap of a whole file, or bytes read into memory)
// and Buffer (CPU heap bytes or a DISK slice of a MappedFile).
#include "tensor_inspect/buffer.hpp"

#include <cassert>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tensor_inspect/error.hpp"

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

// Reads everything from `fd` (a pipe, a terminal, an empty or special file).
std::vector<std::byte> read_all(int fd, const std::string& name) {
  std::vector<std::byte> out;
  std::byte chunk[65536];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_io(name, "cannot read", errno);
    }
    if (n == 0) break;
    out.insert(out.end(), chunk, chunk + n);
  }
  return out;
}

constexpr std::size_t kMaxCpuBytes = std::size_t{1} << 40;

}  // namespace

std::shared_ptr<MappedFile> MappedFile::open(const std::string& path) {
  FdGuard guard;
  guard.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (guard.fd < 0) fail_io(path, "cannot open", errno);
  struct stat st {};
  if (::fstat(guard.fd, &st) != 0) fail_io(path, "cannot stat", errno);
  if (S_ISDIR(st.st_mode)) throw Error(ErrorCode::Io, path + ": is a directory");

  std::shared_ptr<MappedFile> file(new MappedFile());
  file->name_ = path;
  // NOTE: a zero-length "regular" file may still have content (/proc files), and pipes
  // or devices cannot be mapped: those are read instead.
  if (!S_ISREG(st.st_mode) || st.st_size == 0) {
    file->owned_ = read_all(guard.fd, path);
    file->data_ = file->owned_.data();
    file->size_ = file->owned_.size();
    return file;
  }
  auto size = static_cast<std::size_t>(st.st_size);
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, guard.fd, 0);
  if (p == MAP_FAILED) fail_io(path, "cannot map " + std::to_string(size) + " bytes", errno);
  file->data_ = static_cast<const std::byte*>(p);
  file->size_ = size;
  file->mapped_ = true;
  file->file_mapping_ = true;
  return file;
}

std::shared_ptr<MappedFile> MappedFile::read_fd(int fd, const std::string& name) {
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
        return file;
      }
    }
  }
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->name_ = name;
  file->owned_ = read_all(fd, name);
  file->data_ = file->owned_.data();
  file->size_ = file->owned_.size();
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
  if (mapped_) ::munmap(const_cast<std::byte*>(data_), size_);
}

std::uint64_t Buffer::cpu_allocations_ = 0;

std::shared_ptr<Buffer> Buffer::cpu(std::size_t nbytes) {
  if (nbytes > kMaxCpuBytes)
    throw Error(ErrorCode::Unsupported, "cannot allocate a buffer of " + std::to_string(nbytes) +
                                            " bytes: the limit is 2^40 bytes");
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
  buf->file_ = std::move(file);
  return buf;
}

std::span<std::byte> Buffer::mutable_bytes() {
  assert(device_ == Device::CPU && "DISK buffers are read-only");
  return {data_, size_};
}

}  // namespace tensor_inspect
