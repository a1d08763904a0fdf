// release_behind.hpp — a kernel's mapped input pages given back behind its scan.
//
// A kernel reads a Load of a local file in order (program.hpp's Instance::file): contiguous,
// index i the file's element i, or under views that read it in order (view_order.hpp: `x[::2]`,
// `x[10:]`, a pad, `x.flip(0)` backwards). Its work items run in fixed batches
// (parallel_for's static partition), left to right, so once a batch is done every index
// before its end is done, on every thread: the whole pages of the elements behind the scan
// leave the resident set (MappedFile::release_pages, madvise MADV_DONTNEED on a read-only file
// map, which reads the same bytes again from the page cache if they are touched). An
// -e 'x.sum()' of a 1 GiB file then holds one batch of pages, not the file. Loads under other
// views (a permute, a broadcast) read out of order and keep their pages.
//
// A remote file's Load read in order (Instance::fetch_on_read) is fetched ahead of the kernel
// in windows over the bytes it reaches, in its order, on a thread of their own
// (WindowFetcher), and given back behind it the same way: an -e 'x.sum()' of a remote tensor
// holds a few windows, not the tensor (four windows of min(16 MiB, Limits::remote_memory_bytes
// / 8) a Load). The kernel's own reads fetch whatever the windows have not brought yet.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "buffer/window_fetcher.hpp"
#include "realize/program.hpp"

namespace tensor_inspect::realize_detail {

/// Gives back, for each local-file or remote Load a program reads in order, the pages of the
/// elements a kernel has finished.
class ReleaseBehind {
 public:
  explicit ReleaseBehind(const Program& program);
  /// Kernel indices [0, done) are finished (and no thread reads them again): the whole pages
  /// of the elements behind them are released, in runs of at least kMinRun bytes unless `last`.
  void operator()(std::int64_t done, bool last = false);
  /// Everything the kernel read: the kernel has finished.
  void finish() { (*this)(INT64_MAX, true); }
  /// Work items of `elements` kernel indices each to run between two calls, so that one batch
  /// reads at most kBatchBytes of its files (a step of a page or more costs a page an element):
  /// kBatchItems for a contiguous float32 scan, fewer under a step, at least 1.
  std::int64_t batch_items(std::int64_t elements) const;

 private:
  /// Runs shorter than this wait for the next call: each release is a TLB flush on every core.
  static constexpr std::uint64_t kMinRun = std::uint64_t{4} << 20;
  /// The file bytes one batch may read: a batch of kBatchItems chunks of float32.
  static constexpr std::uint64_t kBatchBytes = std::uint64_t{32} << 20;
  struct Load {
    const MappedFile* file;
    const std::vector<View>* views;  ///< empty: kernel index i reads element i
    int order;                       ///< +1 up the bytes, -1 down them
    std::uint64_t offset;            ///< the file offset of the buffer's element 0
    std::uint64_t begin, end;        ///< the bytes the Load reads, from `offset`
    std::uint64_t itemsize;
    std::uint64_t released = 0;  ///< bytes given back so far, from where the scan starts (begin, or end)
    std::shared_ptr<WindowFetcher> ahead;  ///< a remote Load: its windows, fetched ahead,
    std::uint64_t window = 0;              ///< of this many bytes each from where the scan starts
  };
  /// The bytes of `l` behind the scan once kernel indices [0, done) are finished.
  std::uint64_t behind(const Load& l, std::int64_t done) const;
  std::int64_t space_ = 0;
  double bytes_per_index_ = 0;  ///< file bytes a batch reads per kernel index, all Loads together
  std::uint64_t batch_bytes_ = kBatchBytes;
  std::vector<Load> loads_;
};

}  // namespace tensor_inspect::realize_detail
