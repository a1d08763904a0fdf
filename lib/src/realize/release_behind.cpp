// release_behind.cpp — ReleaseBehind: see release_behind.hpp.
#include "realize/release_behind.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>

#include "buffer/byte_source.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect::realize_detail {

ReleaseBehind::ReleaseBehind(const Program& program) {
  std::uint64_t space = 1;
  for (const std::int64_t d : program.space) space *= static_cast<std::uint64_t>(d);
  for (const Instance& inst : program.nodes) {
    if (inst.kind != Instance::Load || !inst.file || inst.file_bytes == 0) continue;
    Load l{inst.file, inst.file_offset, inst.file_bytes, dtype_info(inst.dtype).itemsize, 0, nullptr, 0};
    // Only a kernel that reads the whole Load fetches it ahead: x[:3] reads 3 elements.
    if (inst.fetch_on_read && space >= l.bytes / l.itemsize) {
      l.window = std::clamp<std::uint64_t>(limits().remote_memory_bytes / 8, kFetchBlock, std::uint64_t{16} << 20);
      std::vector<std::pair<std::uint64_t, std::uint64_t>> windows;
      for (std::uint64_t at = 0; at < l.bytes; at += l.window)
        windows.emplace_back(at, std::min(l.bytes, at + l.window));
      const std::span<const std::byte> bytes(inst.data, static_cast<std::size_t>(l.bytes));
      l.ahead = std::make_shared<WindowFetcher>(bytes, std::move(windows), 4);
    }
    loads_.push_back(std::move(l));
  }
}

void ReleaseBehind::operator()(std::int64_t done, bool last) {
  if (done <= 0) return;
  static const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  for (Load& l : loads_) {
    const auto n = static_cast<std::uint64_t>(done);
    const std::uint64_t end = n >= l.bytes / l.itemsize ? l.bytes : n * l.itemsize;
    if (l.ahead && end >= l.window) l.ahead->done(static_cast<std::size_t>(end / l.window - 1));  // windows behind
    if (end <= l.released || (!last && end - l.released < kMinRun)) continue;
    l.file->release_pages(l.offset + l.released, end - l.released);  // the whole pages inside
    // The next run starts at the page the end lies in (by address: a zip member's slice
    // starts anywhere in its file's map): that page goes once its last element is done.
    const auto start = reinterpret_cast<std::uintptr_t>(l.file->bytes().data()) + l.offset;
    const std::uint64_t aligned = (start + end) / page * page;
    if (aligned > start + l.released) l.released = aligned - start;
  }
}

}  // namespace tensor_inspect::realize_detail
