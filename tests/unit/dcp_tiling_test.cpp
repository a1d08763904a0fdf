// dcp_tiling_fault (loaders/dcp_tiling.cpp): whether a DCP tensor's chunks hold each element
// exactly once. The cases are boxes drawn by hand, with the element each fault names worked
// out on paper: the first element (C order of the grid the cut points make) a second chunk
// also holds, or no chunk holds.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "loaders/dcp_metadata.hpp"
#include "tensor_inspect/limits.hpp"

namespace ti = tensor_inspect;

namespace {

ti::DcpChunk tiling_chunk(ti::Shape offsets, ti::Shape sizes) { return {std::move(offsets), std::move(sizes), {}, 0}; }

std::string tiling_rule(const ti::Shape& size, const std::vector<ti::DcpChunk>& chunks, std::string* why = nullptr) {
  std::string rule;
  const std::string w = ti::dcp_tiling_fault(size, chunks, rule);
  if (why) *why = w;
  return w.empty() ? "" : rule;
}

}  // namespace

TEST_CASE("DCP chunks that tile their tensor: rows, an uneven 2x2 grid, a scalar, an empty tensor") {
  CHECK(tiling_rule({8, 5}, {tiling_chunk({0, 0}, {2, 5}), tiling_chunk({2, 0}, {6, 5})}) == "");
  CHECK(tiling_rule({5, 7}, {tiling_chunk({0, 0}, {3, 4}), tiling_chunk({0, 4}, {3, 3}), tiling_chunk({3, 0}, {2, 4}),
                             tiling_chunk({3, 4}, {2, 3})}) == "");
  CHECK(tiling_rule({}, {tiling_chunk({}, {})}) == "");
  CHECK(tiling_rule({0, 5}, {}) == "");
  // a chunk of no element beside the one that holds all: nothing held twice
  CHECK(tiling_rule({4}, {tiling_chunk({0}, {4}), tiling_chunk({2}, {0})}) == "");
}

TEST_CASE("DCP chunks past the tensor, overlapping, or leaving a hole name the element") {
  std::string why;
  CHECK(tiling_rule({10}, {tiling_chunk({0}, {4}), tiling_chunk({5}, {6})}, &why) == "chunk_bounds");
  CHECK(why.find("chunk 1") != std::string::npos);
  // rows 0-1 and 1-2 of an (8, 5): row 1 twice, first element (1, 0)
  CHECK(tiling_rule({8, 5}, {tiling_chunk({0, 0}, {2, 5}), tiling_chunk({1, 0}, {7, 5})}, &why) == "chunk_overlap");
  CHECK(why.find("both hold element (1, 0)") != std::string::npos);
  // a (5, 7) grid whose last block is (2, 2) instead of (2, 3): column 6 of rows 3-4 unheld
  CHECK(tiling_rule({5, 7}, {tiling_chunk({0, 0}, {3, 4}), tiling_chunk({0, 4}, {3, 3}), tiling_chunk({3, 0}, {2, 4}),
                             tiling_chunk({3, 4}, {2, 2})},
                    &why) == "coverage");
  CHECK(why.find("no chunk holds element (3, 6)") != std::string::npos);
  CHECK(tiling_rule({}, {tiling_chunk({}, {}), tiling_chunk({}, {})}) == "chunk_overlap");
  CHECK(tiling_rule({3}, {}) == "coverage");
}

TEST_CASE("DCP tiling checks at most Limits::dcp_grid_cells cells") {
  const ti::Limits saved = ti::limits();
  ti::Limits small = saved;
  small.dcp_grid_cells = 4;
  ti::set_limits(small);
  // cuts at 0, 1, 2, 3, 4, 5 on one axis: 5 cells, over 4
  std::vector<ti::DcpChunk> chunks;
  for (std::int64_t i = 0; i < 5; ++i) chunks.push_back(tiling_chunk({i}, {1}));
  CHECK(tiling_rule({5}, chunks) == "limit");
  chunks.pop_back();
  chunks.back().sizes = {2};
  CHECK(tiling_rule({5}, chunks) == "");
  ti::set_limits(saved);
}
