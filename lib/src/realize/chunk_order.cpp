// chunk_order.cpp — ChunkOrder::of: see chunk_order.hpp.
#include "realize/chunk_order.hpp"

#include <algorithm>

#include "buffer/byte_source.hpp"
#include "realize/program.hpp"

namespace tensor_inspect::realize_detail {

namespace {

/// A local file's smallest block (block_reads.hpp), and the shortest band.
constexpr std::uint64_t kMinBlock = 256;
constexpr std::int64_t kMinBand = 16;

/// Bytes between the elements a Load reads at space indices 0 and 1 (the first two of the last
/// axis), or at the first pair neither of which a mask hides; 0 when every one probed is hidden.
std::uint64_t last_axis_step(const Instance& load) {
  const auto buffer_index = [&](std::int64_t e) {
    for (auto v = load.views.rbegin(); v != load.views.rend() && e >= 0; ++v) e = map_index(*v, e);
    return e;
  };
  for (std::int64_t e = 0; e < 64; e += 2) {
    const std::int64_t a = buffer_index(e), b = buffer_index(e + 1);
    if (a >= 0 && b >= 0)
      return static_cast<std::uint64_t>(a > b ? a - b : b - a) * dtype_info(load.dtype).itemsize;
  }
  return 0;
}

}  // namespace

ChunkOrder ChunkOrder::of(const Program& program) {
  ChunkOrder order{prod(program.space)};
  if (program.space.size() < 2 || program.space.back() < kBandedRow) return order;
  const std::int64_t rows = order.elements / program.space.back();
  if (rows < 2) return order;
  bool caches = false;
  for (const Instance& i : program.nodes) {
    if (i.kind != Instance::Load) continue;
    if (i.file || i.fetch_on_read) return order;  // read in order, given back behind the scan
    if (i.block_reads == Instance::BlockReadsFrom::None) continue;
    caches = true;
    // A band's rows in the blocks they lie in: a step along the last axis, or a smallest block.
    const std::uint64_t step = std::min(last_axis_step(i), i.block_caches->remote() ? kFetchBlock : kMinBlock);
    while (order.band > kMinBand && static_cast<std::uint64_t>(order.band) * step > i.block_caches->thread_share() / 2)
      order.band /= 2;
  }
  if (caches) order.row = program.space.back(), order.rows = rows;
  return order;
}

}  // namespace tensor_inspect::realize_detail
