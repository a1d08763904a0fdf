// buffer/mapping_registry.cpp — which mapped file an address lies in, answerable from a
// signal handler: a file truncated while it is mapped raises SIGBUS on a read past its new
// end, and the handler names the file (buffer.hpp: mapped_file_name_at).
//
// A fixed table of slots claimed and released with atomics: no allocation, no lock, so
// lookups are async-signal-safe. A process maps a handful of files (an index's shards);
// past kSlots a mapping goes unregistered and its SIGBUS is reported without a name.
// A slot may also keep the mapped file's descriptor, for read_mapped (mapped_read.hpp).
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "buffer/mapped_read.hpp"
#include "tensor_inspect/buffer.hpp"

namespace tensor_inspect {

namespace {

constexpr std::size_t kSlots = 256;

struct Slot {
  std::atomic<std::uintptr_t> begin{0};  // 0: free
  std::atomic<std::size_t> size{0};
  std::atomic<const char*> name{nullptr};
  std::atomic<int> fd{-1};  // the mapped file's, opened by MappedFile::open, or -1
};

std::array<Slot, kSlots> slots;

}  // namespace

void register_mapping(const void* begin, std::size_t size, const char* name) noexcept {
  const auto at = reinterpret_cast<std::uintptr_t>(begin);
  if (at == 0 || size == 0) return;
  for (Slot& s : slots) {
    std::uintptr_t expected = 0;
    if (s.begin.load(std::memory_order_relaxed) == 0 && s.begin.compare_exchange_strong(expected, at)) {
      s.name.store(name, std::memory_order_relaxed);
      s.size.store(size, std::memory_order_release);
      return;
    }
  }
}

void unregister_mapping(const void* begin) noexcept {
  const auto at = reinterpret_cast<std::uintptr_t>(begin);
  for (Slot& s : slots)
    if (s.begin.load(std::memory_order_acquire) == at) {
      if (const int fd = s.fd.exchange(-1); fd >= 0) ::close(fd);
      s.size.store(0, std::memory_order_relaxed);
      s.name.store(nullptr, std::memory_order_relaxed);
      s.begin.store(0, std::memory_order_release);
      return;
    }
}

const char* mapped_file_name_at(const void* address) noexcept {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  for (const Slot& s : slots) {
    const std::uintptr_t begin = s.begin.load(std::memory_order_acquire);
    const std::size_t size = s.size.load(std::memory_order_acquire);
    if (begin != 0 && at >= begin && at - begin < size) return s.name.load(std::memory_order_relaxed);
  }
  return nullptr;
}

bool keep_mapping_fd(const void* begin, int fd) noexcept {
  const auto at = reinterpret_cast<std::uintptr_t>(begin);
  for (Slot& s : slots)
    if (at != 0 && s.begin.load(std::memory_order_acquire) == at) {
      s.fd.store(fd, std::memory_order_release);
      return true;
    }
  return false;
}

bool read_mapped(const std::byte* at, std::span<std::byte> out) noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(at);
  for (const Slot& s : slots) {
    const std::uintptr_t begin = s.begin.load(std::memory_order_acquire);
    const std::size_t size = s.size.load(std::memory_order_acquire);
    if (begin == 0 || a < begin || a - begin >= size) continue;
    const int fd = s.fd.load(std::memory_order_acquire);
    if (fd < 0 || out.size() > size - (a - begin)) return false;
    std::size_t got = 0;
    while (got < out.size()) {
      const ssize_t n = ::pread(fd, out.data() + got, out.size() - got, static_cast<off_t>(a - begin + got));
      if (n <= 0) return false;  // an error, or the file is shorter now
      got += static_cast<std::size_t>(n);
    }
    return true;
  }
  return false;
}

}  // namespace tensor_inspect
