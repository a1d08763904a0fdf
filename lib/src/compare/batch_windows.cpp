// compare/batch_windows.cpp — see batch_windows.hpp.
#include "compare/batch_windows.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {
namespace {

// Element i of a source at byte i * itemsize (no blocks, no decode): the batches' windows are its bytes.
bool plain_remote(const StoredElements& s) {
  return s.file && s.file->is_remote() && s.c_order && !s.ggml_type && !s.decode && s.numel > 0 &&
         s.bytes.size() % static_cast<std::uint64_t>(s.numel) == 0;
}

}  // namespace

BatchWindows::BatchWindows(const std::optional<StoredElements>& a, const std::optional<StoredElements>& b,
                           std::int64_t batch, std::int64_t granule)
    : batch_(std::max<std::int64_t>(1, batch)) {
  if (!a || !b || (!plain_remote(*a) && !plain_remote(*b))) return;
  // A remote source of another layout is fetched whole by its program, as without windows.
  if ((a->file && a->file->is_remote() && !plain_remote(*a)) || (b->file && b->file->is_remote() && !plain_remote(*b)))
    return;
  numel_ = a->numel;
  active_ = true;
  // Four windows a file (the one compared, three ahead) in a quarter of the bound each.
  const auto per_element = [](const StoredElements& s) {
    return s.bytes.size() / static_cast<std::uint64_t>(std::max<std::int64_t>(1, s.numel));
  };
  const std::uint64_t itemsize = std::max<std::uint64_t>({1, per_element(*a), per_element(*b)});
  const auto fit = static_cast<std::int64_t>(std::min<std::uint64_t>(limits().remote_memory_bytes / 16 / itemsize,
                                                                      std::uint64_t{1} << 40));
  granule = std::max<std::int64_t>(1, granule);
  batch_ = std::clamp<std::int64_t>(fit / granule * granule, granule, std::max(granule, batch_));
  const auto start = [&](const StoredElements& s, std::optional<WindowFetcher>& f) {
    if (!plain_remote(s)) return;
    const std::uint64_t size = s.bytes.size() / static_cast<std::uint64_t>(s.numel);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> windows;
    for (std::int64_t e = 0; e < s.numel; e += batch_)
      windows.emplace_back(static_cast<std::uint64_t>(e) * size,
                           static_cast<std::uint64_t>(std::min(s.numel, e + batch_)) * size);
    f.emplace(s.bytes, std::move(windows), 3);
  };
  start(*a, a_);
  start(*b, b_);
}

void BatchWindows::before(std::int64_t k) {
  if (!active_ || k * batch_ >= numel_) return;
  if (a_) a_->wait(static_cast<std::size_t>(k));
  if (b_) b_->wait(static_cast<std::size_t>(k));
}

void BatchWindows::after(std::int64_t done) {
  if (!active_ || done <= 0) return;
  const std::int64_t k = (done - 1) / batch_;  // the batch just compared
  if (a_) a_->done(static_cast<std::size_t>(k));
  if (b_) b_->done(static_cast<std::size_t>(k));
  before(k + 1);
}

}  // namespace tensor_inspect
