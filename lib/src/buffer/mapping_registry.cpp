// buffer/mapping_registry.cpp — which mapped file an address lies in, answerable from a
// signal handler: a file truncated while it is mapped raises SIGBUS on a read past its new
// end, and the handler names the file (buffer.hpp: mapped_file_name_at).
//
// A fixed table of slots claimed and released with atomics: no allocation, no lock, so
// lookups are async-signal-safe. A process maps a handful of files (an index's shards);
// past kSlots a mapping goes unregistered and its SIGBUS is reported without a name.
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "tensor_inspect/buffer.hpp"

namespace tensor_inspect {

namespace {

constexpr std::size_t kSlots = 256;

struct Slot {
  std::atomic<std::uintptr_t> begin{0};  // 0: free
  std::atomic<std::size_t> size{0};
  std::atomic<const char*> name{nullptr};
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

}  // namespace tensor_inspect
