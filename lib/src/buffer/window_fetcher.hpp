// buffer/window_fetcher.hpp — a remote source's windows fetched ahead of the scan, on a
// thread of its own, so decoding runs while the next bytes arrive and the scan waits on
// the network only when it is the slower of the two. At most `ahead` windows past the one
// being scanned are fetched (Limits::remote_memory_bytes bounds them); the scan gives
// back each window it is past (MappedFile::release_pages), so memory stays flat however
// large the file.
//
//   WindowFetcher f(source.bytes, windows, ahead);
//   for (std::size_t w = 0; w < windows.size(); ++w) { f.wait(w); scan(w); f.done(w); }
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "tensor_inspect/buffer.hpp"

namespace tensor_inspect {

class WindowFetcher {
 public:
  /// Starts fetching (fetch_bytes) `windows`, byte ranges [first, second) of `bytes`, in
  /// order, at most `ahead` (>= 1) past the last done(). Bytes of no remote file cost nothing.
  /// The windows follow each other up the bytes, or down them (a scan that reads backwards).
  /// `reads`, when not empty, are the byte ranges [first, second) the scan reads, ascending and
  /// apart: of each window only its parts inside them are fetched (a step of rows, x[::7], reads
  /// one row in seven, and its windows span the rows between).
  WindowFetcher(std::span<const std::byte> bytes, std::vector<std::pair<std::uint64_t, std::uint64_t>> windows,
                std::size_t ahead, std::vector<std::pair<std::uint64_t, std::uint64_t>> reads = {});
  WindowFetcher(const WindowFetcher&) = delete;
  WindowFetcher& operator=(const WindowFetcher&) = delete;
  /// Stops fetching (a window in flight completes) and joins the thread.
  ~WindowFetcher();

  /// Blocks until window `w` has arrived; rethrows the Error its fetch threw.
  void wait(std::size_t w);
  /// Window `w` is scanned: the fetcher may go one window further.
  void done(std::size_t w);

 private:
  void run();
  std::span<const std::byte> bytes_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> windows_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> reads_;
  std::size_t ahead_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t fetched_ = 0;  ///< windows [0, fetched_) have arrived
  std::size_t scanned_ = 0;  ///< windows [0, scanned_) are done
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace tensor_inspect
