// loaders/dcp_tiling.cpp — whether a DCP tensor's chunks tile it exactly once, as
// torch.distributed.checkpoint's loader expects (default_planner.py creates one read per
// chunk the saved tensor holds, and a hole or a double would leave elements unset or set
// twice). The chunk boundaries along each axis cut the tensor into a grid; each chunk
// marks the cells of its box, one byte each, so the check takes time and memory in the
// cells (at most Limits::dcp_grid_cells), never in the elements.
#include <algorithm>

#include "loaders/dcp_metadata.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

namespace {

std::string dcp_chunk_repr(const DcpChunk& c) {
  return "offsets " + shape_repr(c.offsets) + ", sizes " + shape_repr(c.sizes);
}

// The first element of grid cell `cell` (one index per axis) as a tuple.
std::string dcp_cell_element(const std::vector<std::vector<std::int64_t>>& cuts, const Shape& cell) {
  Shape at;
  for (std::size_t d = 0; d < cell.size(); ++d) at.push_back(cuts[d][static_cast<std::size_t>(cell[d])]);
  return shape_repr(at);
}

}  // namespace

std::string dcp_tiling_fault(const Shape& size, const std::vector<DcpChunk>& chunks, std::string& rule) {
  const std::size_t ndim = size.size();
  for (std::size_t i = 0; i < chunks.size(); ++i)
    for (std::size_t d = 0; d < ndim; ++d)
      if (chunks[i].offsets[d] > size[d] - chunks[i].sizes[d]) {  // sizes and offsets are >= 0
        rule = "chunk_bounds";
        return "chunk " + std::to_string(i) + " (" + dcp_chunk_repr(chunks[i]) + ") reaches past the tensor's size " +
               shape_repr(size) + " along axis " + std::to_string(d);
      }
  if (std::find(size.begin(), size.end(), 0) != size.end()) return {};  // no element to hold
  std::vector<std::vector<std::int64_t>> cuts(ndim);
  std::uint64_t cells = 1;
  for (std::size_t d = 0; d < ndim; ++d) {
    cuts[d] = {0, size[d]};
    for (const DcpChunk& c : chunks) {
      cuts[d].push_back(c.offsets[d]);
      cuts[d].push_back(c.offsets[d] + c.sizes[d]);
    }
    std::sort(cuts[d].begin(), cuts[d].end());
    cuts[d].erase(std::unique(cuts[d].begin(), cuts[d].end()), cuts[d].end());
    const std::uint64_t n = cuts[d].size() - 1;
    if (cells > limits().dcp_grid_cells / n) {
      rule = "limit";
      return "its " + std::to_string(chunks.size()) + " chunks cut it into more than " +
             std::to_string(limits().dcp_grid_cells) + " cells to check" + limit_hint("dcp_grid_cells");
    }
    cells *= n;
  }
  std::vector<std::uint8_t> owner(static_cast<std::size_t>(cells), 0);  // 0: none; 1: a chunk's
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const DcpChunk& c = chunks[i];
    if (std::find(c.sizes.begin(), c.sizes.end(), 0) != c.sizes.end()) continue;  // holds nothing
    Shape lo(ndim), hi(ndim);
    for (std::size_t d = 0; d < ndim; ++d) {
      lo[d] = std::lower_bound(cuts[d].begin(), cuts[d].end(), c.offsets[d]) - cuts[d].begin();
      hi[d] = std::lower_bound(cuts[d].begin(), cuts[d].end(), c.offsets[d] + c.sizes[d]) - cuts[d].begin();
    }
    Shape cell = lo;
    for (;;) {
      std::uint64_t flat = 0;
      for (std::size_t d = 0; d < ndim; ++d) flat = flat * (cuts[d].size() - 1) + static_cast<std::uint64_t>(cell[d]);
      if (owner[flat]) {
        // The earlier chunk holding this cell: the one whose box contains its first element.
        std::size_t other = 0;
        for (std::size_t j = 0; j < i; ++j) {
          bool inside = true;
          for (std::size_t d = 0; d < ndim && inside; ++d) {
            const std::int64_t e = cuts[d][static_cast<std::size_t>(cell[d])];
            inside = e >= chunks[j].offsets[d] && e < chunks[j].offsets[d] + chunks[j].sizes[d];
          }
          if (inside) {
            other = j;
            break;
          }
        }
        rule = "chunk_overlap";
        return "chunks " + std::to_string(other) + " (" + dcp_chunk_repr(chunks[other]) + ") and " + std::to_string(i) +
               " (" + dcp_chunk_repr(c) + ") both hold element " + dcp_cell_element(cuts, cell);
      }
      owner[flat] = 1;
      std::size_t d = ndim;
      while (d > 0 && ++cell[d - 1] == hi[d - 1]) {
        cell[d - 1] = lo[d - 1];
        --d;
      }
      if (d == 0) break;
    }
  }
  const auto hole = std::find(owner.begin(), owner.end(), 0);
  if (hole == owner.end()) return {};
  std::uint64_t flat = static_cast<std::uint64_t>(hole - owner.begin());
  Shape cell(ndim);
  for (std::size_t d = ndim; d > 0; --d) {
    const std::uint64_t n = cuts[d - 1].size() - 1;
    cell[d - 1] = static_cast<std::int64_t>(flat % n);
    flat /= n;
  }
  rule = "coverage";
  return "no chunk holds element " + dcp_cell_element(cuts, cell) + " (" + std::to_string(chunks.size()) + " chunk" +
         (chunks.size() == 1 ? "" : "s") + " for size " + shape_repr(size) + ")";
}

}  // namespace tensor_inspect
