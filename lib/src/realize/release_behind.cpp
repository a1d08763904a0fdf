// release_behind.cpp — ReleaseBehind: see release_behind.hpp.
#include "realize/release_behind.hpp"

#include <unistd.h>

#include <cstdint>

namespace tensor_inspect::realize_detail {

ReleaseBehind::ReleaseBehind(const Program& program) {
  for (const Instance& inst : program.nodes)
    if (inst.kind == Instance::Load && inst.file && inst.file_bytes > 0)
      loads_.push_back(Load{inst.file, inst.file_offset, inst.file_bytes, dtype_info(inst.dtype).itemsize});
}

void ReleaseBehind::operator()(std::int64_t done, bool last) {
  if (done <= 0) return;
  static const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  for (Load& l : loads_) {
    const auto n = static_cast<std::uint64_t>(done);
    const std::uint64_t end = n >= l.bytes / l.itemsize ? l.bytes : n * l.itemsize;
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
