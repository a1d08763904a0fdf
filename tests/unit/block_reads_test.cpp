// block_reads_test.cpp — BlockReads (realize/block_reads.hpp) over a mapped file of known bytes:
// every element it copies is the file's own (the bytes written, read back with the map), under
// the walks a kernel makes (in order, a column walk over few rows, one over more rows than the
// cache holds, masked elements), and the cache sizes its blocks as the file comment says.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <vector>

#include "realize/block_reads.hpp"
#include "tensor_inspect/buffer.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;
namespace rd = ti::realize_detail;

namespace {

constexpr std::int64_t kRows = 64, kCols = 4096;  // float32: 16 KiB a row, 1 MiB in all

// A file of kRows x kCols uint32 elements, element i holding i * 2654435761 (no two alike).
struct Grid {
  test_util::TempDir dir{"ti-block-reads-"};
  std::shared_ptr<ti::MappedFile> file;
  Grid() {
    std::vector<std::uint32_t> v(static_cast<std::size_t>(kRows * kCols));
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint32_t>(i * 2654435761U);
    const auto path = (dir.path / "grid.bin").string();
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(v.data()),
                                                 static_cast<std::streamsize>(v.size() * 4));
    file = ti::MappedFile::open(path);
  }
  std::uint32_t at(std::int64_t i) const {
    std::uint32_t x = 0;
    std::memcpy(&x, file->bytes().data() + i * 4, 4);
    return x;
  }
};

// The buffer indices of x.T's elements [start, start + n) for x of (rows, kCols).
std::vector<std::int64_t> column_walk(std::int64_t rows, std::int64_t start, std::int64_t n) {
  std::vector<std::int64_t> idx;
  for (std::int64_t k = start; k < start + n; ++k) idx.push_back((k % rows) * kCols + k / rows);
  return idx;
}

// Gathers all of x.T (rows x kCols) through `r` in chunks of 2048 and checks every element.
void check_walk(const Grid& g, rd::BlockReads& r, std::int64_t rows) {
  const std::int64_t total = rows * kCols;
  std::vector<std::uint32_t> out(2048);
  std::int64_t wrong = 0;
  for (std::int64_t s = 0; s < total; s += 2048) {
    const auto idx = column_walk(rows, s, std::min<std::int64_t>(2048, total - s));
    r.gather(idx.data(), idx.size(), reinterpret_cast<std::byte*>(out.data()));
    for (std::size_t i = 0; i < idx.size(); ++i) wrong += out[i] != g.at(idx[i]);
  }
  CHECK(wrong == 0);
}

}  // namespace

TEST_CASE("block reads copy the file's own bytes, in order and masked") {
  Grid g;
  rd::BlockReads r(g.file->bytes().data(), g.file->size(), 4, false, 64 << 10);
  CHECK(r.block_bytes() == 16384);  // 16 KiB blocks by default
  std::vector<std::int64_t> idx = {0, 1, -1, kRows * kCols - 1, 5000, -1, 4};
  std::vector<std::uint32_t> out(idx.size(), 0xFFFFFFFF);
  r.gather(idx.data(), idx.size(), reinterpret_cast<std::byte*>(out.data()));
  for (std::size_t i = 0; i < idx.size(); ++i) CHECK(out[i] == (idx[i] < 0 ? 0U : g.at(idx[i])));
  CHECK(r.reads() == 3);  // blocks 0, 63 (the last) and 1
  CHECK_FALSE(r.through_map());
}

TEST_CASE("a column walk over rows the cache holds reads each block once") {
  Grid g;
  // 8 rows of 16 KiB: a block a row; a budget of 16 slots holds them.
  rd::BlockReads r(g.file->bytes().data(), 8 * kCols * 4, 4, false, 16 * 16384);
  check_walk(g, r, 8);
  CHECK(r.reads() == 8);
  CHECK(r.block_bytes() == 16384);
}

TEST_CASE("a column walk over more rows than the cache holds: smaller blocks, then the map") {
  Grid g;
  {  // 64 rows against 2 slots of 16 KiB (an 8 KiB budget) thrash: 4 KiB blocks make 2 slots,
     // 1 KiB 8, 256 bytes (the smallest) 32, still thrashing...
    std::atomic<unsigned> learned{0};
    rd::BlockReads r(g.file->bytes().data(), g.file->size(), 4, false, 8192, &learned);
    // Twice: 256-byte blocks read again pass 16 times the bytes used (64 MiB a 4 MiB window)
    // only past the first walk.
    check_walk(g, r, kRows);
    check_walk(g, r, kRows);
    CHECK(r.through_map());  // ...so it gave up to the map, and said so to the Load's other caches
    CHECK(learned.load() == rd::BlockReads::kThroughMap);
    rd::BlockReads next(g.file->bytes().data(), g.file->size(), 4, false, 8192, &learned);
    check_walk(g, next, kRows);
    CHECK(next.reads() == 0);
  }
  {  // 64 rows against 4 slots of 16 KiB: 4 KiB blocks (16 slots) thrash, 1 KiB (64 slots) hold them
    std::atomic<unsigned> learned{0};
    rd::BlockReads r(g.file->bytes().data(), g.file->size(), 4, false, 4 * 16384, &learned);
    check_walk(g, r, kRows);
    CHECK_FALSE(r.through_map());
    CHECK(r.block_bytes() == 1024);
    CHECK(learned.load() == 10);
  }
  {  // 16 rows against 8 slots of 16 KiB: 4 KiB blocks (32 slots) hold them
    std::atomic<unsigned> learned{0};
    rd::BlockReads r(g.file->bytes().data(), 16 * kCols * 4, 4, false, 8 * 16384, &learned);
    check_walk(g, r, 16);
    CHECK_FALSE(r.through_map());
    CHECK(r.block_bytes() == 4096);
    CHECK(learned.load() == 12);
  }
}

TEST_CASE("settle sizes the blocks from the kernel's first reads") {
  const std::uint64_t bytes = std::uint64_t{256} << 20, budget = std::uint64_t{16} << 20;
  // x.T of 150 rows of 1 MiB: 150 blocks of 16 KiB fit 1,024 slots.
  std::vector<std::int64_t> few;
  for (std::int64_t k = 0; k < 65536; ++k) few.push_back((k % 150) * (1 << 18) + k / 150);
  CHECK(rd::BlockReads::settle(few, bytes, 4, false, budget) == 14);
  // x.T of 2,000 rows of 128 KiB: 8 KiB blocks (2,048 slots).
  std::vector<std::int64_t> more;
  for (std::int64_t k = 0; k < 65536; ++k) more.push_back((k % 2000) * (1 << 15) + k / 2000);
  CHECK(rd::BlockReads::settle(more, bytes, 4, false, budget) == 13);
  // x.T of 8,192 rows of 32 KiB: 2 KiB blocks (8,192 slots).
  std::vector<std::int64_t> rows8k;
  for (std::int64_t k = 0; k < 65536; ++k) rows8k.push_back((k % 8192) * (1 << 13) + k / 8192);
  CHECK(rd::BlockReads::settle(rows8k, bytes, 4, false, budget) == 11);
  // x.T of 16,384 rows of 16 KiB: 1 KiB blocks (16,384 slots).
  std::vector<std::int64_t> many;
  for (std::int64_t k = 0; k < 65536; ++k) many.push_back((k % 16384) * (1 << 12) + k / 16384);
  CHECK(rd::BlockReads::settle(many, bytes, 4, false, budget) == 10);
  // x.T of 32,768 rows of 8 KiB against 4 MiB: 256-byte blocks make 16,384 slots; the map.
  std::vector<std::int64_t> rows32k;
  for (std::int64_t k = 0; k < 65536; ++k) rows32k.push_back((k % 32768) * (1 << 11) + k / 32768);
  CHECK(rd::BlockReads::settle(rows32k, bytes, 4, false, budget / 4) == rd::BlockReads::kThroughMap);
  CHECK(rd::BlockReads::settle(rows32k, bytes, 4, false, budget) == 9);  // 512 bytes: 32,768 slots
  // A remote file: 256 KiB requests when the rows fit, 64 KiB (its fetch block) at least.
  CHECK(rd::BlockReads::settle(few, bytes, 4, true, std::uint64_t{64} << 20) == 18);
  CHECK(rd::BlockReads::settle(more, bytes, 4, true, std::uint64_t{64} << 20) == rd::BlockReads::kThroughMap);
}

namespace {

// A file of a (rows, cols) uint32 table, element i holding i * 2654435761 (no two alike).
struct Table {
  test_util::TempDir dir{"ti-block-reads-"};
  std::int64_t rows, cols;
  std::vector<std::uint32_t> v;
  std::shared_ptr<ti::MappedFile> file;
  Table(std::int64_t rows_, std::int64_t cols_) : rows(rows_), cols(cols_), v(static_cast<std::size_t>(rows_ * cols_)) {
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint32_t>(i * 2654435761U);
    const auto path = (dir.path / "table.bin").string();
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(v.data()),
                                                 static_cast<std::streamsize>(v.size() * 4));
    file = ti::MappedFile::open(path);
  }
  // Gathers all of x.T through `r`, `chunk` elements at a time: the elements that differ from v's.
  std::int64_t walk_columns(rd::BlockReads& r, std::int64_t chunk) const {
    std::vector<std::uint32_t> out(static_cast<std::size_t>(chunk));
    std::int64_t wrong = 0;
    for (std::int64_t s = 0; s < rows * cols; s += chunk) {
      std::vector<std::int64_t> idx;
      for (std::int64_t k = s; k < std::min(s + chunk, rows * cols); ++k) idx.push_back((k % rows) * cols + k / rows);
      r.gather(idx.data(), idx.size(), reinterpret_cast<std::byte*>(out.data()));
      for (std::size_t i = 0; i < idx.size(); ++i) wrong += out[i] != v[static_cast<std::size_t>(idx[i])];
    }
    return wrong;
  }
};

}  // namespace

TEST_CASE("a table read column by column: 16 columns stay in the cache, 32 go to the map") {
  // A float32 table of C columns read as x.T is, a column at a time: each pass reads every block
  // again, C times in all, whatever the block size; what counts is blocks read again per byte
  // used, past kThrashRatio (16). The grid's 1 MiB, 16 times over, is 4 MiB of (rows, C).
  for (const std::int64_t cols : {16, 32}) {
    const Table t((std::int64_t{16} << 20) / 4 / cols, cols);  // 16 MiB
    std::atomic<unsigned> learned{0};
    rd::BlockReads r(t.file->bytes().data(), t.file->size(), 4, false, 16 * 16384, &learned);
    CHECK(t.walk_columns(r, 4096) == 0);
    if (cols == 16) {  // 1,024 blocks of 16 KiB, each read in each of the 16 passes
      CHECK_FALSE(r.through_map());
      CHECK(r.block_bytes() == 16384);
      CHECK(r.reads() == 16 * 1024);
    } else {
      CHECK(r.through_map());
      CHECK(learned.load() == rd::BlockReads::kThroughMap);
    }
  }
}

TEST_CASE("rows shorter than a block: blocks of a row's bytes or less when their slots hold every row") {
  // A float32 (1024, 256) table, rows of 1 KiB, read column by column against 320 KiB: 16 KiB
  // blocks (16 rows each, 20 slots) thrash with a run of rows in each; 256-byte blocks make 1,280
  // slots, one a row or more. (They went to the map: a run of rows in each block read was taken for a
  // table too tall for any block size.)
  const Table t(1024, 256);
  std::atomic<unsigned> learned{0};
  rd::BlockReads r(t.file->bytes().data(), t.file->size(), 4, false, 320 * 1024, &learned);
  CHECK(t.walk_columns(r, 2048) == 0);
  CHECK_FALSE(r.through_map());
  CHECK(r.block_bytes() == 256);
  CHECK(learned.load() == 8);
}
