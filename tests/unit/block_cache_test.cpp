// Tests for remote/block_cache.cpp and remote/cache_dir.cpp: the info file, validators and
// conditions, folder names, and an entry on disk (written, read back, damaged, evicted).
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "remote/block_cache.hpp"
#include "remote/cache_dir.hpp"
#include "remote/remote_file.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;
namespace fs = std::filesystem;

namespace {

const std::string kInfo =
    "tensor-inspect block cache 1\n"
    "url http://127.0.0.1:8080/m.safetensors?...\n"
    "url_check 00ff00ff00ff00ff\n"
    "validator ETag \"6b0ecaa6-30d40\"\n"
    "size 200000\n"
    "block 65536\n";

std::vector<std::byte> byte_pattern(std::size_t n, unsigned seed) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 31 + seed) & 0xff);
  return v;
}

std::uint64_t du(const fs::path& dir) {
  std::uint64_t total = 0;
  struct stat st {};
  if (::lstat(dir.c_str(), &st) == 0) total += ti::allocated_bytes(st);
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (::lstat(e.path().c_str(), &st) == 0) total += ti::allocated_bytes(st);
  return total;
}

}  // namespace

TEST_CASE("parse_cache_info reads what format_cache_info writes, field by field") {
  const auto info = ti::parse_cache_info(kInfo);
  REQUIRE(info);
  CHECK(info->url == "http://127.0.0.1:8080/m.safetensors?...");
  CHECK(info->url_check == 0x00ff00ff00ff00ffULL);
  CHECK(info->validator == "ETag \"6b0ecaa6-30d40\"");
  CHECK(info->size == 200000);
  CHECK(info->block == 65536);
  CHECK(ti::format_cache_info(*info) == kInfo);
}

TEST_CASE("parse_cache_info refuses a damaged info file") {
  auto with = [](std::string from, std::string to) {
    std::string s = kInfo;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  CHECK_FALSE(ti::parse_cache_info(""));
  CHECK_FALSE(ti::parse_cache_info(kInfo.substr(0, kInfo.size() - 1)));           // last line cut
  CHECK_FALSE(ti::parse_cache_info(kInfo + "extra 1\n"));
  CHECK_FALSE(ti::parse_cache_info(with("cache 1", "cache 2")));                   // another layout
  CHECK_FALSE(ti::parse_cache_info(with("size 200000", "size 2e5")));
  CHECK_FALSE(ti::parse_cache_info(with("size 200000", "size 0")));
  CHECK_FALSE(ti::parse_cache_info(with("size 200000", "size 99999999999999999999999")));
  CHECK_FALSE(ti::parse_cache_info(with("00ff00ff00ff00ff", "00ff00ff00ff00f")));
  CHECK_FALSE(ti::parse_cache_info(with("00ff00ff00ff00ff", "00ff00ff00ff00fg")));
  CHECK_FALSE(ti::parse_cache_info(with("validator ETag \"6b0ecaa6-30d40\"", "validator ")));
  CHECK_FALSE(ti::parse_cache_info(with("size 200000\nblock", "block 65536\nsize")));  // out of order
  CHECK_FALSE(ti::parse_cache_info(with("30d40", "30\td40")));                     // a control character
  std::string garbage(kInfo.size(), '\xff');
  CHECK_FALSE(ti::parse_cache_info(garbage));
}

TEST_CASE("cache_validator: a strong ETag, else Last-Modified; weak ETags are not cached") {
  CHECK(ti::cache_validator("\"abc\"", "Tue, 01 Dec 2026 10:00:00 GMT") == "ETag \"abc\"");
  CHECK(ti::cache_validator("", "Tue, 01 Dec 2026 10:00:00 GMT") == "Last-Modified Tue, 01 Dec 2026 10:00:00 GMT");
  CHECK(ti::cache_validator("W/\"abc\"", "Tue, 01 Dec 2026 10:00:00 GMT").empty());
  CHECK(ti::cache_validator("", "").empty());
  CHECK(ti::cache_validator("\"a\nb\"", "").empty());
  CHECK(ti::cache_condition("ETag \"abc\"") == "If-None-Match: \"abc\"");
  CHECK(ti::cache_condition("Last-Modified Tue, 01 Dec 2026 10:00:00 GMT") ==
        "If-Modified-Since: Tue, 01 Dec 2026 10:00:00 GMT");
}

TEST_CASE("is_cache_folder_name: only the names the cache makes") {
  CHECK(ti::is_cache_folder_name("0123456789abcdef"));
  CHECK(ti::is_cache_folder_name("0123456789abcdef.new.123"));
  CHECK(ti::is_cache_folder_name("0123456789abcdef.gone.9"));
  CHECK_FALSE(ti::is_cache_folder_name("0123456789ABCDEF"));
  CHECK_FALSE(ti::is_cache_folder_name("0123456789abcde"));
  CHECK_FALSE(ti::is_cache_folder_name("0123456789abcdef0"));
  CHECK_FALSE(ti::is_cache_folder_name("0123456789abcdef.new."));
  CHECK_FALSE(ti::is_cache_folder_name("0123456789abcdef.old.1"));
  CHECK_FALSE(ti::is_cache_folder_name("Documents"));
  CHECK_FALSE(ti::is_cache_folder_name("CACHEDIR.TAG"));
}

TEST_CASE("BlockCache: blocks written in one run are read back in the next, checked by their hash") {
  test_util::TempDir tmp("ti-block-cache-");
  const std::uint64_t size = 3 * ti::kRemoteBlock + 100;  // a partial last block
  const std::vector<std::byte> file = byte_pattern(static_cast<std::size_t>(size), 7);
  const std::string url = "http://127.0.0.1:1/a.bin?sig=SECRET";
  {
    auto c = ti::BlockCache::open(tmp.path.string(), 1 << 30, url, "http://127.0.0.1:1/a.bin?...");
    REQUIRE(c);
    CHECK_FALSE(c->cached_head());
    c->adopt("ETag \"x\"", size);
    CHECK_FALSE(c->holds(0));
    c->write(0, 0, file.data());
    c->write(2, 3, file.data());
    CHECK(c->holds(0));
    CHECK_FALSE(c->holds(1));
    CHECK(c->holds(3));
  }
  CHECK(fs::exists(tmp.path / "CACHEDIR.TAG"));
  auto c = ti::BlockCache::open(tmp.path.string(), 1 << 30, url, "shown");
  REQUIRE(c);
  const auto head = c->cached_head();
  REQUIRE(head);
  CHECK(head->condition == "If-None-Match: \"x\"");
  CHECK(head->size == size);
  CHECK(std::equal(head->bytes.begin(), head->bytes.end(), file.begin()));
  c->adopt("ETag \"x\"", size);
  std::vector<std::byte> back(static_cast<std::size_t>(size));
  const std::vector<bool> ok = c->read(2, 3, back.data());
  CHECK(ok == std::vector<bool>{true, true});
  CHECK(std::equal(back.begin() + 2 * ti::kRemoteBlock, back.end(), file.begin() + 2 * ti::kRemoteBlock));
  CHECK(c->bytes_read() == ti::kRemoteBlock + 100);
  // The secret query string is in no file of the cache.
  for (const auto& e : fs::recursive_directory_iterator(tmp.path)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    CHECK(text.find("SECRET") == std::string::npos);
  }
}

TEST_CASE("BlockCache: a damaged block is refused, a changed file replaces the entry") {
  test_util::TempDir tmp("ti-block-cache-");
  const std::uint64_t size = 2 * ti::kRemoteBlock;
  const std::vector<std::byte> file = byte_pattern(static_cast<std::size_t>(size), 3);
  {
    auto c = ti::BlockCache::open(tmp.path.string(), 1 << 30, "http://h/f", "http://h/f");
    c->adopt("ETag \"1\"", size);
    c->write(0, 1, file.data());
  }
  fs::path entry;
  for (const auto& e : fs::directory_iterator(tmp.path))
    if (e.is_directory()) entry = e.path();
  {  // one byte of block 1 flipped on disk
    std::fstream f(entry / "data", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(ti::kRemoteBlock + 5));
    f.put('\x01');
  }
  {
    auto c = ti::BlockCache::open(tmp.path.string(), 1 << 30, "http://h/f", "http://h/f");
    c->adopt("ETag \"1\"", size);
    std::vector<std::byte> back(static_cast<std::size_t>(size));
    CHECK(c->read(0, 1, back.data()) == std::vector<bool>{true, false});
    CHECK_FALSE(c->holds(1));  // forgotten: fetched and written again
  }
  {
    auto c = ti::BlockCache::open(tmp.path.string(), 1 << 30, "http://h/f", "http://h/f");
    c->adopt("ETag \"2\"", size);  // the file changed on the server
    CHECK_FALSE(c->holds(0));
  }
  auto c = ti::BlockCache::open(tmp.path.string(), 1 << 30, "http://h/f", "http://h/f");
  CHECK_FALSE(c->cached_head());
  {  // a data file of the wrong length: discarded
    auto d = ti::BlockCache::open(tmp.path.string(), 1 << 30, "http://h/g", "http://h/g");
    d->adopt("ETag \"1\"", size);
    d->write(0, 1, file.data());
  }
  for (const auto& e : fs::directory_iterator(tmp.path))
    if (e.is_directory() && e.path() != entry) fs::resize_file(e.path() / "data", size - 1);
  auto d = ti::BlockCache::open(tmp.path.string(), 1 << 30, "http://h/g", "http://h/g");
  CHECK_FALSE(d->cached_head());
}

TEST_CASE("BlockCache: the folder stays under the cap; the least recently used entry goes first") {
  test_util::TempDir tmp("ti-block-cache-");
  const std::uint64_t size = 8 * ti::kRemoteBlock;
  const std::vector<std::byte> file = byte_pattern(static_cast<std::size_t>(size), 1);
  const std::uint64_t cap = 800 * 1024;
  for (const char* url : {"http://h/1", "http://h/2", "http://h/3"}) {
    auto c = ti::BlockCache::open(tmp.path.string(), cap, url, url);
    c->adopt("ETag \"1\"", size);
    c->write(0, 3, file.data());  // 256 KiB
    c->write(4, 7, file.data());  // 512 KiB: the entry alone fits, two do not
    CHECK(c->holds(7));
    CHECK(du(tmp.path) <= cap);
  }
  auto first = ti::BlockCache::open(tmp.path.string(), cap, "http://h/1", "http://h/1");
  CHECK_FALSE(first->cached_head());  // evicted
  auto last = ti::BlockCache::open(tmp.path.string(), cap, "http://h/3", "http://h/3");
  CHECK(last->cached_head());
  // An entry that alone would pass the cap keeps what fits and stops growing: of a write of
  // six blocks, the first two still fit 300 KiB (four blocks are 256 KiB), the rest not.
  auto big = ti::BlockCache::open(tmp.path.string(), 300 * 1024, "http://h/4", "http://h/4");
  big->adopt("ETag \"1\"", size);
  big->write(0, 1, file.data());
  big->write(2, 7, file.data());
  CHECK(big->holds(1));
  CHECK(big->holds(2));
  CHECK(big->holds(3));
  CHECK_FALSE(big->holds(5));
  CHECK(du(tmp.path) <= 300 * 1024);
  big->write(6, 7, file.data());  // stopped growing
  CHECK_FALSE(big->holds(6));
}

TEST_CASE("BlockCache: a write larger than the cap keeps the blocks that fit, not one block (in part meant 64 KiB)") {
  // A tensor's blocks arrive as one run; the whole run was refused, so a file larger than
  // --cache-size kept only the probe's first block.
  test_util::TempDir tmp("ti-block-cache-");
  const std::uint64_t size = 64 * ti::kRemoteBlock;  // 4 MiB
  const std::vector<std::byte> file = byte_pattern(static_cast<std::size_t>(size), 5);
  const std::uint64_t cap = std::uint64_t{1} << 20;
  {
    auto c = ti::BlockCache::open(tmp.path.string(), cap, "http://h/big", "http://h/big");
    c->adopt("ETag \"1\"", size);
    c->write(0, 0, file.data());  // the probe's block
    c->write(1, 63, file.data());
    CHECK(du(tmp.path) <= cap);
  }
  auto c = ti::BlockCache::open(tmp.path.string(), cap, "http://h/big", "http://h/big");
  c->adopt("ETag \"1\"", size);
  std::uint64_t held = 0;
  while (held < 64 && c->holds(held)) ++held;
  for (std::uint64_t b = held; b < 64; ++b) CHECK_FALSE(c->holds(b));
  // 1 MiB holds 16 blocks but for the folder, the info file, the block table and the tag.
  CHECK(held >= 13);
  CHECK(held < 16);
  std::vector<std::byte> back(static_cast<std::size_t>(size));
  const std::vector<bool> ok = c->read(0, held - 1, back.data());
  CHECK(std::all_of(ok.begin(), ok.end(), [](bool b) { return b; }));
  CHECK(std::equal(back.begin(), back.begin() + static_cast<std::ptrdiff_t>(held * ti::kRemoteBlock), file.begin()));
}

TEST_CASE("BlockCache::open: a folder that cannot be made gives no cache, not an error") {
  test_util::TempDir tmp("ti-block-cache-");
  std::ofstream(tmp.path / "file") << "x";
  CHECK_FALSE(ti::BlockCache::open((tmp.path / "file").string(), 1 << 30, "http://h/f", "http://h/f"));
  CHECK_FALSE(ti::BlockCache::open((tmp.path / "file" / "sub").string(), 1 << 30, "http://h/f", "http://h/f"));
}
