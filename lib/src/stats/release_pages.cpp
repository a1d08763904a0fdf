// stats/release_pages.cpp — MappedFile::release_pages, which the scans use to keep the
// resident set flat over a whole file: pages behind the scan leave this process (they stay
// in the page cache). Defined here, next to its only user, so buffer.cpp stays about
// opening and owning files.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#include "buffer/byte_source.hpp"
#include "tensor_inspect/buffer.hpp"

namespace tensor_inspect {

void MappedFile::release_pages(std::uint64_t offset, std::uint64_t length) const {
  // NOTE: MADV_DONTNEED on memory we own (a heap copy, an anonymous stand-in) would zero
  // it, so only file mappings, which re-read the file, are ever released.
  if (remote_) {  // its blocks are fetched again when read again
    remote_->release(offset, length);
    return;
  }
  if (!file_mapping_ || offset >= size_) return;
  if (length > size_ - offset) length = size_ - offset;
  static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(data_) + offset;
  const std::uintptr_t first = (begin + page - 1) / page * page;
  const std::uintptr_t last = (begin + length) / page * page;
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

}  // namespace tensor_inspect
