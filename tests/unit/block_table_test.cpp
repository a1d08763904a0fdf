// block_table_test.cpp — BlockTable (realize/block_table.hpp) against std::unordered_map: random
// sets, finds and erases, in both its forms (a direct table for few blocks, a hash for many),
// with blocks chosen so that many share a home (the hash's erase moves entries back).
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

#include "realize/block_table.hpp"

namespace rd = tensor_inspect::realize_detail;

namespace {

// Runs `ops` random operations on blocks below `range`, at most `slots` held, checking every
// find against the reference map; returns the finds that disagreed.
int disagreements(std::uint64_t blocks, std::uint64_t range, std::size_t slots, int ops, unsigned seed) {
  rd::BlockTable table;
  table.reset(blocks, slots);
  std::unordered_map<std::uint64_t, const std::byte*> want;
  std::vector<std::byte> slot_bytes(slots);
  std::mt19937_64 rng(seed);
  int wrong = 0;
  for (int k = 0; k < ops; ++k) {
    const std::uint64_t b = rng() % range;
    const int op = static_cast<int>(rng() % 3);
    if (op == 0 && (want.size() < slots || want.count(b))) {
      const std::byte* p = slot_bytes.data() + rng() % slots;
      table.set(b, p);
      want[b] = p;
    } else if (op == 1) {
      table.erase(b);
      want.erase(b);
    }
    const auto it = want.find(b);
    wrong += table.find(b) != (it == want.end() ? nullptr : it->second);
  }
  for (const auto& [b, p] : want) wrong += table.find(b) != p;
  return wrong;
}

}  // namespace

TEST_CASE("a block table finds what was set and nothing erased, direct or hashed") {
  CHECK(disagreements(1000, 1000, 64, 200000, 1) == 0);                  // direct: one pointer a block
  CHECK(disagreements(std::uint64_t{1} << 40, 4096, 1024, 400000, 2) == 0);  // hashed, dense keys
  CHECK(disagreements(std::uint64_t{1} << 40, std::uint64_t{1} << 40, 512, 400000, 3) == 0);  // sparse keys
  // Keys a multiple of 2**k apart (rows of a column walk) crowd few homes.
  rd::BlockTable table;
  table.reset(std::uint64_t{1} << 30, 4096);
  std::vector<std::byte> slot(1);
  for (std::uint64_t r = 0; r < 4096; ++r) table.set(r << 16, slot.data());
  int wrong = 0;
  for (std::uint64_t r = 0; r < 4096; r += 2) table.erase(r << 16);
  for (std::uint64_t r = 0; r < 4096; ++r) wrong += (table.find(r << 16) != nullptr) != (r % 2 == 1);
  CHECK(wrong == 0);
  CHECK_FALSE(table.empty());
  table.release();
  CHECK(table.empty());
}
