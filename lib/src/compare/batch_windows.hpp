// compare/batch_windows.hpp — the bytes of compare_tensors' batches, when a tensor lies in a
// remote file, fetched ahead of the batches on a thread of their own (WindowFetcher) and
// given back behind them, instead of the whole tensor fetched before its first batch: a
// diff of two remote checkpoints holds a few windows of each, however large the tensors.
// (The kernels' own reads of a remote tensor fetch only what is missing: Instance::fetch_on_read.)
//
//   BatchWindows w(stored_elements(a, false), stored_elements(b, false), batch_elements, chunk);
//   w.before(0); ... for each batch: compare it, then w.after(elements_done);
#pragma once

#include <cstdint>
#include <optional>

#include "buffer/window_fetcher.hpp"
#include "tensor_inspect/stored_elements.hpp"

namespace tensor_inspect {

class BatchWindows {
 public:
  /// Windows of batch() elements over each of `a` and `b` that is a remote file's tensor in
  /// stored C order of a whole-byte dtype, when both are stored tensors (the batches then read
  /// nothing else) and at least one is remote; otherwise nothing is done.
  /// A batch is at most `batch` elements, a multiple of `granule`, and small enough that
  /// each file's window and those ahead of it take at most a quarter of
  /// Limits::remote_memory_bytes.
  BatchWindows(const std::optional<StoredElements>& a, const std::optional<StoredElements>& b, std::int64_t batch,
               std::int64_t granule);
  /// Elements per batch (the `batch` given when nothing is done).
  std::int64_t batch() const { return batch_; }
  /// Blocks until batch `k`'s bytes are readable; rethrows the Error of their fetch.
  void before(std::int64_t k);
  /// `done` elements are compared: the windows behind them are done (the fetchers may go
  /// on), and the next batch is awaited.
  void after(std::int64_t done);

 private:
  std::optional<WindowFetcher> a_, b_;
  std::int64_t batch_ = 1;
  std::int64_t numel_ = 0;
  bool active_ = false;
};

}  // namespace tensor_inspect
