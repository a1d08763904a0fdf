// release_behind.cpp — ReleaseBehind: see release_behind.hpp.
#include "realize/release_behind.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>

#include "buffer/byte_source.hpp"
#include "realize/kernels.hpp"
#include "realize/view_order.hpp"
#include "realize/view_reads.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect::realize_detail {
namespace {

// Whether a Load the scan does not track (a permute's, fetched when the program was built) reads
// the remote file `f` in place: its blocks must stay, as a release would clear them under that
// Load. A remote file's block cache (block_reads.hpp) streams its blocks into its own slots, or a
// copy on disk, --cache or not: it reads none in place.
bool read_out_of_order(const Program& program, const MappedFile& f) {
  const std::byte* base = f.bytes().data();
  return std::any_of(program.nodes.begin(), program.nodes.end(), [&](const Instance& i) {
    return i.kind == Instance::Load && !i.fetch_on_read && i.data >= base && i.data < base + f.size() &&
           i.block_reads != Instance::BlockReadsFrom::RemoteFile;
  });
}

/// The largest page-cache folio a read fault on a file map maps at once, in bytes.
constexpr double kFolioBytes = 2.0 * 1024 * 1024;

/// Runs of adjacent elements a view may read for its windows to skip the bytes between them
/// (view_reads): a list of at most 1 MiB.
constexpr std::uint64_t kMaxReadRuns = std::uint64_t{1} << 16;

}  // namespace

ReleaseBehind::ReleaseBehind(const Program& program) {
  space_ = 1;
  for (const std::int64_t d : program.space) space_ *= d;
  for (const Instance& inst : program.nodes) {
    if (inst.kind != Instance::Load || !inst.file || inst.file_bytes == 0 || space_ == 0) continue;
    if (inst.file->is_remote() && read_out_of_order(program, *inst.file)) continue;
    const std::uint64_t itemsize = dtype_info(inst.dtype).itemsize;
    Load l{inst.file, &inst.views, inst.order, inst.file_offset, 0, 0, itemsize, 0, nullptr, 0};
    if (inst.views.empty()) {  // x[:3] reads its first 3 elements
      l.end = std::min(inst.file_bytes, static_cast<std::uint64_t>(space_) * itemsize);
    } else {
      const auto reach = scan_reach(inst.views, inst.order);
      if (!reach || reach->first < 0 || static_cast<std::uint64_t>(reach->second + 1) * itemsize > inst.file_bytes)
        continue;
      l.begin = static_cast<std::uint64_t>(reach->first) * itemsize;
      l.end = static_cast<std::uint64_t>(reach->second + 1) * itemsize;
    }
    // A batch reads the elements a kernel index steps over, or, when they lie apart, the page-cache
    // folio each lands in, which a read fault maps whole (up to 2 MiB: block_reads.hpp); a remote
    // file's windows fetch every byte between them. (A page each held x[:, 5].sum() of an (8192,
    // 8192) float32, one element in 32 KiB, at 261 MiB: its four chunks made one batch.)
    const double step = static_cast<double>(l.end - l.begin) / static_cast<double>(space_);
    bytes_per_index_ += inst.file->is_remote() ? step : std::min(step, kFolioBytes);
    if (inst.fetch_on_read) {
      l.window = std::clamp<std::uint64_t>(limits().remote_memory_bytes / 8, kFetchBlock, std::uint64_t{16} << 20);
      batch_bytes_ = std::min(batch_bytes_, std::max<std::uint64_t>(limits().remote_memory_bytes / 2, kFetchBlock));
      // Windows from where the scan starts: up the bytes, or down them.
      std::vector<std::pair<std::uint64_t, std::uint64_t>> windows;
      const std::uint64_t span = l.end - l.begin;
      for (std::uint64_t at = 0; at < span; at += l.window) {
        const std::uint64_t to = std::min(span, at + l.window);
        windows.emplace_back(l.order > 0 ? std::pair{l.begin + at, l.begin + to} : std::pair{l.end - to, l.end - at});
      }
      const std::span<const std::byte> bytes(inst.data, static_cast<std::size_t>(inst.file_bytes));
      // A view that reads apart (x[::7]: a row in seven) fetches only what it reads of each window.
      std::vector<std::pair<std::uint64_t, std::uint64_t>> reads;
      if (inst.views.size() == 1)
        if (auto r = view_reads(inst.views[0], static_cast<std::size_t>(itemsize), kFetchBlock, kMaxReadRuns))
          reads = std::move(*r);
      l.ahead = std::make_shared<WindowFetcher>(bytes, std::move(windows), 4, std::move(reads));
    }
    loads_.push_back(std::move(l));
  }
}

std::int64_t ReleaseBehind::batch_items(std::int64_t elements) const {
  const double per_item = bytes_per_index_ * static_cast<double>(std::max<std::int64_t>(1, elements));
  if (per_item <= 0) return kBatchItems;
  const double items = static_cast<double>(batch_bytes_) / per_item;
  if (items >= static_cast<double>(kBatchItems)) return kBatchItems;
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(items));
}

std::uint64_t ReleaseBehind::behind(const Load& l, std::int64_t done) const {
  const std::uint64_t span = l.end - l.begin;
  if (done >= space_) return span;
  if (l.views->empty()) return std::min(span, static_cast<std::uint64_t>(done) * l.itemsize);
  // Every read from `done` on is at or past element p in the scan's direction.
  const std::int64_t p = scan_position(*l.views, done);
  const auto bytes = static_cast<std::int64_t>(l.itemsize);
  const std::int64_t past =
      l.order > 0 ? p * bytes - static_cast<std::int64_t>(l.begin) : static_cast<std::int64_t>(l.end) - (p + 1) * bytes;
  return static_cast<std::uint64_t>(std::clamp<std::int64_t>(past, 0, static_cast<std::int64_t>(span)));
}

void ReleaseBehind::operator()(std::int64_t done, bool last) {
  if (done <= 0) return;
  static const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  for (Load& l : loads_) {
    std::uint64_t end = behind(l, done);  // bytes behind the scan, from where it starts
    if (l.ahead && end >= l.window) l.ahead->done(static_cast<std::size_t>(end / l.window - 1));  // windows behind
    // Windows fetched ahead are given back whole: the fetcher still fetches a window the scan has
    // not finished, and brought back the blocks of it given back before, behind the scan, where
    // they stayed (x.sum() of a remote 512 MiB tensor under remote_memory_bytes=16M: 188 MiB, 1.23
    // times the tensor fetched).
    if (l.ahead && !last) end = end / l.window * l.window;
    if (end <= l.released || (!last && end - l.released < kMinRun)) continue;
    // The next run starts at the page the end lies in (by address: a zip member's slice starts
    // anywhere in its file's map): that page goes once its last element is done.
    const auto start = reinterpret_cast<std::uintptr_t>(l.file->bytes().data()) + l.offset;
    if (l.order > 0) {
      l.file->release_pages(l.offset + l.begin + l.released, end - l.released);  // the whole pages inside
      const std::uint64_t aligned = (start + l.begin + end) / page * page;
      if (aligned > start + l.begin + l.released) l.released = aligned - start - l.begin;
    } else {
      l.file->release_pages(l.offset + l.end - end, end - l.released);
      const std::uint64_t aligned = (start + l.end - end + page - 1) / page * page;
      if (aligned < start + l.end - l.released) l.released = start + l.end - aligned;
    }
  }
}

}  // namespace tensor_inspect::realize_detail
