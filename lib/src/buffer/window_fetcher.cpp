// buffer/window_fetcher.cpp — see window_fetcher.hpp.
#include "buffer/window_fetcher.hpp"

#include <algorithm>

#include "buffer/byte_source.hpp"
#include "tensor_inspect/context.hpp"

namespace tensor_inspect {

WindowFetcher::WindowFetcher(std::span<const std::byte> bytes,
                             std::vector<std::pair<std::uint64_t, std::uint64_t>> windows, std::size_t ahead,
                             std::vector<std::pair<std::uint64_t, std::uint64_t>> reads)
    : bytes_(bytes), windows_(std::move(windows)), reads_(std::move(reads)), ahead_(std::max<std::size_t>(1, ahead)) {
  // The fetching thread reads the caller's caps and remote options, not the process default.
  thread_ = std::thread([this, &caller = current_context()] {
    const ContextScope inherited = ContextScope::borrowing(caller);
    run();
  });
}

WindowFetcher::~WindowFetcher() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void WindowFetcher::run() {
  std::unique_lock lock(mutex_);
  while (fetched_ < windows_.size()) {
    changed_.wait(lock, [&] { return stop_ || fetched_ < scanned_ + ahead_; });
    if (stop_) return;
    // Every window allowed now goes in one fetch: its ranges run in parallel, and the
    // connections stay busy until the last of them.
    // Windows the reader is past are skipped: it read them without waiting (its own reads
    // fetch what is missing) and may have given them back.
    const std::size_t from = std::max(fetched_, scanned_), to = std::min(windows_.size(), scanned_ + ahead_);
    if (from >= to) {
      fetched_ = std::max(fetched_, from);
      continue;
    }
    lock.unlock();
    try {
      // Windows in order down the bytes (a scan that reads them backwards) span the other way.
      const std::uint64_t begin = std::min(windows_[from].first, windows_[to - 1].first);
      const std::uint64_t end = std::max(windows_[from].second, windows_[to - 1].second);
      if (reads_.empty()) {
        fetch_bytes(bytes_.subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin)));
      } else {  // the parts of [begin, end) the scan reads, several requests at once
        std::vector<std::pair<std::uint64_t, std::uint64_t>> parts;
        auto it = std::upper_bound(reads_.begin(), reads_.end(), std::pair{begin, UINT64_MAX});
        if (it != reads_.begin()) --it;
        for (; it != reads_.end() && it->first < end; ++it) {
          const std::uint64_t lo = std::max(begin, it->first), hi = std::min(end, it->second);
          if (lo < hi) parts.emplace_back(lo, hi - lo);
        }
        fetch_byte_ranges(bytes_, parts);
      }
    } catch (...) {
      lock.lock();
      error_ = std::current_exception();
      changed_.notify_all();
      return;
    }
    lock.lock();
    fetched_ = to;
    changed_.notify_all();
    // Windows the scan finished while they were being fetched: its own reads fetched them first,
    // and it gave them back before this fetch brought them in again, behind it, where nothing gives
    // them back (x.sum() of a remote 512 MiB file under a 16M limit held 200 MiB and fetched 1.23
    // times the file).
    const std::size_t late = std::min(to, scanned_);
    if (late > from) {
      const std::uint64_t begin = std::min(windows_[from].first, windows_[late - 1].first);
      const std::uint64_t end = std::max(windows_[from].second, windows_[late - 1].second);
      lock.unlock();
      release_bytes(bytes_.subspan(static_cast<std::size_t>(begin), static_cast<std::size_t>(end - begin)));
      lock.lock();
    }
  }
}

void WindowFetcher::wait(std::size_t w) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return fetched_ > w || error_; });
  if (fetched_ <= w && error_) std::rethrow_exception(error_);
}

void WindowFetcher::done(std::size_t w) {
  {
    std::lock_guard lock(mutex_);
    scanned_ = std::max(scanned_, w + 1);
  }
  changed_.notify_all();
}

}  // namespace tensor_inspect
