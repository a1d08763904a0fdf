// Tests for buffer/byte_source.cpp: fetch_bytes finds the on-demand source an address lies
// in and asks it for exactly the bytes of the span, relative to the source's start; spans
// outside every source, and sources no longer registered, are asked nothing.
#include <doctest/doctest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "buffer/byte_source.hpp"
#include "tensor_inspect/buffer.hpp"

namespace ti = tensor_inspect;

namespace {

struct RecordingByteSource final : ti::ByteSource {
  std::array<std::byte, 4096> bytes{};
  std::vector<std::pair<std::uint64_t, std::uint64_t>> fetched, released;
  void fetch(std::uint64_t offset, std::uint64_t length) override { fetched.emplace_back(offset, length); }
  void release(std::uint64_t offset, std::uint64_t length) override { released.emplace_back(offset, length); }
  const std::byte* base() const override { return bytes.data(); }
  std::uint64_t size() const override { return bytes.size(); }
};

}  // namespace

TEST_CASE("fetch_bytes asks the source a span lies in for that span, and no other") {
  RecordingByteSource a, b;
  const bool open_before = ti::remote_files_open();
  ti::register_byte_source(&a);
  ti::register_byte_source(&b);
  CHECK(ti::remote_files_open());
  ti::fetch_bytes(std::span<const std::byte>(b.bytes).subspan(100, 28));
  ti::fetch_bytes(std::span<const std::byte>(a.bytes).subspan(4095, 1));
  std::array<std::byte, 16> elsewhere{};
  ti::fetch_bytes(elsewhere);
  ti::fetch_bytes(std::span<const std::byte>(a.bytes).subspan(7, 0));  // empty: nothing
  CHECK(b.fetched == std::vector<std::pair<std::uint64_t, std::uint64_t>>{{100, 28}});
  CHECK(a.fetched == std::vector<std::pair<std::uint64_t, std::uint64_t>>{{4095, 1}});
  ti::unregister_byte_source(&a);
  ti::fetch_bytes(std::span<const std::byte>(a.bytes).subspan(0, 8));
  CHECK(a.fetched.size() == 1);
  int visited = 0;
  ti::visit_byte_sources([&](ti::ByteSource& s) { visited += &s == &b; });
  CHECK(visited == 1);
  ti::unregister_byte_source(&b);
  ti::unregister_byte_source(&b);  // twice: harmless
  CHECK(ti::remote_files_open() == open_before);
}
