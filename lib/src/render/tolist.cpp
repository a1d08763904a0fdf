// tolist.cpp — write_tolist: the typed loop of tolist_loops.cpp run over fixed blocks of
// elements. Large outputs are formatted by all OpenMP threads (a static round-robin
// schedule of blocks) and written in block order from each thread's buffer, so the bytes
// do not depend on the thread count and memory stays at one buffer per thread.
#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "buffer/window_fetcher.hpp"
#include "render/tolist_loops.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/render.hpp"

namespace tensor_inspect {
namespace {

// Elements per block: about 0.7 MiB of float text, enough that a write(2) per block and
// the hand-over between threads cost nothing next to the formatting.
constexpr std::int64_t kBlockElements = 1 << 15;
// Below this many elements (about 256 KiB of text) one thread does it all.
constexpr std::int64_t kParallelElements = 1 << 14;
// Every thread's buffer together stays below this, whatever the shape and the thread count.
constexpr std::size_t kBufferBudget = std::size_t{32} << 20;

void write_empty(const MemoryView& mv, OutBuffer& out) {
  // Nested empty lists: [[], []] for shape (2, 0); [] when the first axis is 0.
  const std::size_t nd = mv.shape.size();
  std::function<void(std::size_t)> empty = [&](std::size_t d) {
    out.put('[');
    if (d + 1 < nd)
      for (std::int64_t i = 0; i < mv.shape[d]; ++i) {
        if (i) out.write(", ");
        empty(d + 1);
      }
    out.put(']');
  };
  empty(0);
}

// Gives back the pages of a memory-mapped file as the printing passes them, so peak RSS
// stays flat however large the tensor: MADV_DONTNEED on a private file mapping only drops
// this process's page table entries (the page cache keeps them, and a later read maps them
// again). Never used on heap memory, where it would zero the bytes.
class PageRelease {
 public:
  explicit PageRelease(const Buffer& b) {
    if (b.device() != Device::DISK || !b.file() || !b.file()->is_mapped() || b.nbytes() < (std::size_t{8} << 20))
      return;
    page_ = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    next_ = reinterpret_cast<std::uintptr_t>(b.bytes().data()) & ~(page_ - 1);
    next_ += page_;  // the first page may hold file bytes before the buffer
    begin_ = reinterpret_cast<std::uintptr_t>(b.bytes().data());
  }
  /// The bytes [0, done) of the buffer will not be read again.
  void release(std::size_t done) {
    if (!page_) return;
    const std::uintptr_t end = (begin_ + done) & ~(page_ - 1);
    if (end <= next_) return;
    ::madvise(reinterpret_cast<void*>(next_), end - next_, MADV_DONTNEED);
    next_ = end;
  }

 private:
  std::uintptr_t page_ = 0, begin_ = 0, next_ = 0;
};

// A remote file's bytes, fetched window by window ahead of the printing (WindowFetcher, on a
// thread of its own) and given back behind it, so `--full` of a remote tensor holds at most
// Limits::remote_memory_bytes / 2 of it, as --stats does: it fetched the whole tensor first.
class RemoteWindows {
 public:
  explicit RemoteWindows(const Buffer& b) {
    if (b.device() != Device::DISK || !b.file() || !b.file()->is_remote() || b.nbytes() < (std::size_t{8} << 20))
      return;
    window_ = std::clamp<std::size_t>(limits().remote_memory_bytes / 8, std::size_t{1} << 20, std::size_t{32} << 20);
    const std::span<const std::byte> bytes = b.bytes_unfetched();
    std::vector<std::pair<std::uint64_t, std::uint64_t>> windows;
    for (std::size_t at = 0; at < bytes.size(); at += window_)
      windows.emplace_back(at, std::min(bytes.size(), at + window_));
    file_ = b.file().get();
    offset_ = static_cast<std::uint64_t>(bytes.data() - file_->bytes().data());
    fetcher_.emplace(bytes, std::move(windows), std::max<std::size_t>(2, limits().remote_memory_bytes / 2 / window_));
  }
  bool active() const { return fetcher_.has_value(); }
  /// Blocks until bytes [0, end) have arrived; throws the Error a fetch threw.
  void need(std::size_t end) {
    if (fetcher_ && end > 0) fetcher_->wait((end - 1) / window_);
  }
  /// Bytes [0, end) are printed: the windows wholly inside are given back, the fetcher moves on.
  void done(std::size_t end) {
    if (!fetcher_) return;
    for (; (released_ + 1) * window_ <= end; ++released_) {
      file_->release_pages(offset_ + released_ * window_, window_);
      fetcher_->done(released_);
    }
  }

 private:
  std::optional<WindowFetcher> fetcher_;
  const MappedFile* file_ = nullptr;
  std::uint64_t offset_ = 0;
  std::size_t window_ = 1, released_ = 0;
};

}  // namespace

void write_tolist(const MemoryView& mv, bool json, NonFinite nonfinite, OutBuffer& out) {
  if (mv.shape.empty()) {
    write_element(mv, 0, json, nonfinite, out);
    return;
  }
  if (mv.numel() == 0) {
    write_empty(mv, out);
    return;
  }
  RemoteWindows remote(*mv.buffer);
  render::TolistSource src;
  src.data = remote.active() ? mv.buffer->bytes_unfetched().data() : mv.buffer->bytes().data();
  src.numel = mv.numel();
  src.inner = mv.shape.back();
  src.ndim = static_cast<int>(mv.shape.size());
  for (std::size_t d = 0; d + 1 < mv.shape.size(); ++d) {
    std::int64_t span = 1;
    for (std::size_t k = d; k < mv.shape.size(); ++k) span *= mv.shape[k];
    src.spans.push_back(span);
  }
  if (nonfinite == NonFinite::Python) {
    src.nan = "NaN", src.inf = "Infinity", src.ninf = "-Infinity";
  } else {
    src.nan = "\"nan\"", src.inf = "\"inf\"", src.ninf = "\"-inf\"";
  }
  if (mv.format == 'c') src.bytes = &render::bytes_repr(0, json);
  std::unique_ptr<render::ReprEntry[]> table;
  if ((mv.dtype == DType::Float16 || mv.dtype == DType::BFloat16) && mv.format != 'c' &&
      src.numel >= render::kReprTableElements) {
    table = render::make_repr_table(mv, json, src);
    src.table = table.get();
  }
  const render::TolistLoop loop = render::pick_tolist_loop(mv, json, src.table != nullptr);

  std::int64_t block = std::min(src.numel, kBlockElements);
  // A deep shape with one-element rows spends more on brackets than on values: smaller blocks.
  while (block > 1024 && render::tolist_block_capacity(src, block) > kBufferBudget / 4) block /= 2;
  const std::size_t capacity = render::tolist_block_capacity(src, block);
  const std::int64_t blocks = (src.numel + block - 1) / block;
  int threads = src.numel >= kParallelElements ? omp_get_max_threads() : 1;
  threads =
      static_cast<int>(std::min<std::int64_t>({threads, blocks, static_cast<std::int64_t>(kBufferBudget / capacity)}));
  threads = std::max(threads, 1);

  const auto itemsize = static_cast<std::size_t>(mv.itemsize);
  PageRelease pages(*mv.buffer);
  std::vector<std::unique_ptr<char[]>> buffers;
  for (int t = 0; t < threads; ++t) buffers.emplace_back(new char[capacity]);
  if (threads == 1) {
    char* buf = buffers[0].get();
    for (std::int64_t b = 0; b < blocks && !out.failed(); ++b) {
      const auto done = static_cast<std::size_t>(std::min(src.numel, (b + 1) * block)) * itemsize;
      remote.need(done);
      char* end = loop(src, b * block, std::min(src.numel, (b + 1) * block), buf);
      out.write({buf, static_cast<std::size_t>(end - buf)});
      pages.release(done);
      remote.done(done);
    }
    return;
  }
  // Thread t formats blocks t, t + team, t + 2 team, ... (a static schedule) and writes
  // each when all before it are written. The wait blocks on a futex (std::atomic::wait)
  // rather than OpenMP's spinning ordered construct: on a machine busy with other work a
  // spinning thread burns the time slice the thread it waits for needs.
  out.flush();
  std::atomic<std::int64_t> turn{0};  // the next block to write
  std::atomic<bool> stop{out.failed()};
  std::exception_ptr error;  // a remote fetch's, set once: nothing more is printed
  std::mutex error_mutex;
#pragma omp parallel num_threads(threads)
  {
    const int team = omp_get_num_threads();
    char* buf = buffers[static_cast<std::size_t>(omp_get_thread_num())].get();
    for (std::int64_t b = omp_get_thread_num(); b < blocks; b += team) {
      const std::int64_t last = std::min(src.numel, (b + 1) * block);
      if (remote.active() && !stop.load(std::memory_order_relaxed)) try {
          remote.need(static_cast<std::size_t>(last) * itemsize);
        } catch (...) {
          std::lock_guard<std::mutex> lock(error_mutex);
          if (!error) error = std::current_exception();
          stop.store(true, std::memory_order_relaxed);
        }
      char* end = stop.load(std::memory_order_relaxed) ? buf : loop(src, b * block, last, buf);
      for (std::int64_t now = turn.load(std::memory_order_acquire); now != b;
           now = turn.load(std::memory_order_acquire))
        turn.wait(now, std::memory_order_acquire);
      if (!stop.load(std::memory_order_relaxed)) {
        out.write({buf, static_cast<std::size_t>(end - buf)});
        if (out.failed()) stop.store(true, std::memory_order_relaxed);
        pages.release(static_cast<std::size_t>(last) * itemsize);
        remote.done(static_cast<std::size_t>(last) * itemsize);  // in block order: one writer at a time
      }
      turn.store(b + 1, std::memory_order_release);
      turn.notify_all();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace tensor_inspect
