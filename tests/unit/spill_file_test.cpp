// Tests for buffer/spill_file.cpp: the bytes a source streams land in the copy at their place,
// whatever the order and size of the pieces and after a range starts over; read() and map()
// give back exactly those bytes; a source that does not stream, or a folder that cannot hold
// the copy, gives no copy and says why; the copy leaves no name behind in its folder.
#include <doctest/doctest.h>

#include <dirent.h>
#include <stdlib.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "buffer/byte_source.hpp"
#include "buffer/spill_file.hpp"
#include "tensor_inspect/error.hpp"

namespace ti = tensor_inspect;

namespace {

/// Bytes i * 7 + 3 (mod 256), streamed to each sink in pieces of 1,000 bytes, last range first;
/// each range's first piece is sent twice, with a restart() between (a retried request).
struct StreamingSource final : ti::ByteSource {
  explicit StreamingSource(std::size_t n, bool streams) : bytes(n), streams_(streams) {
    for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<std::byte>((i * 7 + 3) % 256);
  }
  std::vector<std::byte> bytes;
  std::vector<bool> even_if_fetched;
  void fetch(std::uint64_t, std::uint64_t) override {}
  void release(std::uint64_t, std::uint64_t) override {}
  bool stream(std::span<const ti::StreamedRange> ranges, bool even) override {
    even_if_fetched.push_back(even);
    if (!streams_) return false;
    for (auto r = ranges.rbegin(); r != ranges.rend(); ++r) {
      r->sink->restart();
      const std::span<const std::byte> all(r->begin, static_cast<std::size_t>(r->length));
      r->sink->consume(all.first(std::min<std::size_t>(1000, all.size())));
      r->sink->restart();
      for (std::size_t at = 0; at < all.size(); at += 1000)
        r->sink->consume(all.subspan(at, std::min<std::size_t>(1000, all.size() - at)));
    }
    return true;
  }
  const std::byte* base() const override { return bytes.data(); }
  std::uint64_t size() const override { return bytes.size(); }

 private:
  bool streams_;
};

/// Sets TMPDIR for one scope.
struct TmpDir {
  explicit TmpDir(const std::string& dir) {
    if (const char* old = ::getenv("TMPDIR")) before = old, had = true;
    ::setenv("TMPDIR", dir.c_str(), 1);
  }
  ~TmpDir() {
    if (had) ::setenv("TMPDIR", before.c_str(), 1);
    else ::unsetenv("TMPDIR");
  }
  std::string before;
  bool had = false;
};

std::size_t entries(const std::string& dir) {
  std::size_t n = 0;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) n += std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0;
    ::closedir(d);
  }
  return n;
}

}  // namespace

TEST_CASE("a spill holds the streamed bytes at their place, read back by pread and by its map") {
  char dir_template[] = "/tmp/ti-spill-test-XXXXXX";
  REQUIRE(::mkdtemp(dir_template) != nullptr);
  const std::string dir = dir_template;
  const TmpDir tmp(dir);
  // 40 MiB and 17 bytes: three ranges of the spill's 16 MiB, the last one short.
  StreamingSource source((std::size_t{40} << 20) + 17, true);
  ti::register_byte_source(&source);
  std::string why;
  // From byte 5 on: the copy's byte i is the source's byte 5 + i.
  const std::uint64_t length = source.size() - 5;
  const auto spill = ti::SpillFile::make(source.bytes.data() + 5, length, why);
  ti::unregister_byte_source(&source);
  REQUIRE(spill != nullptr);
  CHECK(why.empty());
  CHECK(spill->folder() == dir);
  CHECK(source.even_if_fetched == std::vector<bool>{true});  // bytes fetched already are streamed again
  CHECK(entries(dir) == 0);                                  // unnamed
  for (const std::uint64_t at : {std::uint64_t{0}, std::uint64_t{999}, (std::uint64_t{16} << 20) - 3, length - 300}) {
    std::vector<std::byte> got(300);
    spill->read(at, got);
    CHECK(std::memcmp(got.data(), source.bytes.data() + 5 + at, got.size()) == 0);
  }
  std::vector<std::byte> past(2);
  CHECK_THROWS_AS(spill->read(length - 1, past), ti::Error);  // past the copy's end
  const std::byte* map = spill->map();
  REQUIRE(map != nullptr);
  CHECK(spill->map() == map);  // mapped once
  CHECK(std::memcmp(map, source.bytes.data() + 5, static_cast<std::size_t>(length)) == 0);
  ::rmdir(dir.c_str());
}

TEST_CASE("no spill from a source that does not stream, or where no file can be made") {
  StreamingSource source(4096, false);
  ti::register_byte_source(&source);
  std::string why;
  CHECK(ti::SpillFile::make(source.bytes.data(), 4096, why) == nullptr);
  CHECK(why.find("does not stream") != std::string::npos);
  {
    const TmpDir tmp("/nonexistent-ti-folder");
    why.clear();
    CHECK(ti::SpillFile::make(source.bytes.data(), 4096, why) == nullptr);
    CHECK(why.find("/nonexistent-ti-folder") != std::string::npos);
  }
  ti::unregister_byte_source(&source);
}
