// buffer/byte_source.cpp — the registry of on-demand byte sources and fetch_bytes (see
// byte_source.hpp).
#include "buffer/byte_source.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <vector>

#include "tensor_inspect/buffer.hpp"

namespace tensor_inspect {

namespace {

struct ByteSourceRegistry {
  std::shared_mutex mutex;
  std::vector<ByteSource*> sources;
  std::atomic<int> count{0};
};
ByteSourceRegistry& byte_source_registry() {
  static ByteSourceRegistry r;
  return r;
}

/// use(source) for the registered source whose bytes hold the byte at `at`, under the registry's
/// shared lock (no source is unregistered meanwhile); false, use not called, when none does.
template <typename Use>
bool with_source_of(const std::byte* at, Use use) {
  ByteSourceRegistry& r = byte_source_registry();
  if (r.count.load(std::memory_order_acquire) == 0) return false;
  std::shared_lock lock(r.mutex);
  for (ByteSource* s : r.sources)
    if (at >= s->base() && at < s->base() + s->size()) {
      use(*s);
      return true;
    }
  return false;
}

}  // namespace

void register_byte_source(ByteSource* source) {
  ByteSourceRegistry& r = byte_source_registry();
  std::unique_lock lock(r.mutex);
  r.sources.push_back(source);
  r.count.fetch_add(1, std::memory_order_release);
}

void unregister_byte_source(ByteSource* source) {
  ByteSourceRegistry& r = byte_source_registry();
  std::unique_lock lock(r.mutex);
  const auto it = std::find(r.sources.begin(), r.sources.end(), source);
  if (it == r.sources.end()) return;
  r.sources.erase(it);
  r.count.fetch_sub(1, std::memory_order_release);
}

void visit_byte_sources(const std::function<void(ByteSource&)>& visit) {
  ByteSourceRegistry& r = byte_source_registry();
  if (r.count.load(std::memory_order_acquire) == 0) return;
  std::shared_lock lock(r.mutex);
  for (ByteSource* s : r.sources) visit(*s);
}

bool remote_files_open() { return byte_source_registry().count.load(std::memory_order_acquire) > 0; }

void fetch_bytes(std::span<const std::byte> bytes) {
  if (bytes.empty()) return;
  with_source_of(bytes.data(), [&](ByteSource& s) {
    s.fetch(static_cast<std::uint64_t>(bytes.data() - s.base()), bytes.size());
  });
}

void release_bytes(std::span<const std::byte> bytes) {
  if (bytes.empty()) return;
  with_source_of(bytes.data(), [&](ByteSource& s) {
    s.release(static_cast<std::uint64_t>(bytes.data() - s.base()), bytes.size());
  });
}

void fetch_byte_ranges(std::span<const std::byte> within,
                       std::span<const std::pair<std::uint64_t, std::uint64_t>> ranges) {
  if (within.empty() || ranges.empty()) return;
  with_source_of(within.data(), [&](ByteSource& s) {
    const auto at = static_cast<std::uint64_t>(within.data() - s.base());
    std::vector<std::pair<std::uint64_t, std::uint64_t>> shifted(ranges.begin(), ranges.end());
    for (auto& range : shifted) range.first += at;
    s.fetch_ranges(shifted);
  });
}

bool stream_bytes(std::span<const StreamedRange> ranges, bool even_if_fetched) {
  bool streamed = false;
  if (ranges.empty()) return false;
  with_source_of(ranges.front().begin, [&](ByteSource& s) {
    const auto inside = [&](const StreamedRange& g) {
      return g.begin >= s.base() && g.begin < s.base() + s.size() &&
             g.length <= static_cast<std::uint64_t>(s.base() + s.size() - g.begin);
    };
    streamed = std::all_of(ranges.begin(), ranges.end(), inside) && s.stream(ranges, even_if_fetched);
  });
  return streamed;
}

}  // namespace tensor_inspect
