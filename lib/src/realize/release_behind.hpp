// release_behind.hpp — a kernel's mapped input pages given back behind its scan.
//
// A kernel reads a contiguous Load of a local file in kernel-index order: index i is the
// file's element i (program.hpp's Instance::file). Its work items run in fixed batches
// (parallel_for's static partition), left to right, so once a batch is done every index
// before its end is done, on every thread: the whole pages of those elements leave the
// resident set (MappedFile::release_pages, madvise MADV_DONTNEED on a read-only file map,
// which reads the same bytes again from the page cache if they are touched). An -e 'x.sum()'
// of a 1 GiB file then holds one batch of pages, not the file. Loads under views (a
// permute, a flip, a broadcast) read out of order and keep their pages.
//
// A remote file's Load (Instance::fetch_on_read) that the kernel reads whole is fetched
// ahead of the kernel in windows, on a thread of their own (WindowFetcher), and given back
// behind it the same way: an -e 'x.sum()' of a remote tensor holds a few windows, not the
// tensor (four windows of min(16 MiB, Limits::remote_memory_bytes / 8) a Load). The kernel's
// own reads fetch whatever the windows have not brought yet.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "buffer/window_fetcher.hpp"
#include "realize/program.hpp"

namespace tensor_inspect::realize_detail {

/// Gives back, for each contiguous local-file Load of a program, the pages of the elements
/// a kernel has finished.
class ReleaseBehind {
 public:
  explicit ReleaseBehind(const Program& program);
  /// Kernel indices [0, done) are finished (and no thread reads them again): the whole pages
  /// of their elements are released, in runs of at least kMinRun bytes unless `last`.
  void operator()(std::int64_t done, bool last = false);
  /// Everything the kernel read: the kernel has finished.
  void finish() { (*this)(INT64_MAX, true); }

 private:
  /// Runs shorter than this wait for the next call: each release is a TLB flush on every core.
  static constexpr std::uint64_t kMinRun = std::uint64_t{4} << 20;
  struct Load {
    const MappedFile* file;
    std::uint64_t offset, bytes, itemsize;
    std::uint64_t released = 0;  ///< bytes from `offset` given back so far
    std::shared_ptr<WindowFetcher> ahead;  ///< a remote Load read whole: its windows, fetched ahead,
    std::uint64_t window = 0;              ///< of this many bytes each from `offset`
  };
  std::vector<Load> loads_;
};

}  // namespace tensor_inspect::realize_detail
