// stats/bit_patterns.cpp — bit pattern counts of 1- and 2-byte elements (bit_patterns.hpp) and
// the histogram made from them (stats.hpp's histogram_of_patterns).
#include "stats/bit_patterns.hpp"

#include <algorithm>
#include <cstring>

#include "decode/lanes.hpp"
#include "stats/histogram_bins.hpp"
#include "tensor_inspect/dtype.hpp"
#include "tensor_inspect/stats.hpp"

namespace tensor_inspect {

bool counts_bit_patterns(const StoredElements& source) {
  const DTypeInfo& d = dtype_info(source.stored);
  return !source.ggml_type && !source.decode && !source.bytes.empty() && (d.itemsize == 1 || d.itemsize == 2) &&
         d.bits >= 1 && d.bits <= 16 && source.bytes.size() == static_cast<std::size_t>(source.numel) * d.itemsize;
}

std::size_t pattern_count(const StoredElements& source) {
  return dtype_info(source.stored).itemsize == 1 ? 256 : 65536;
}

void count_patterns(std::span<const std::byte> bytes, std::size_t itemsize, std::uint64_t* counts) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t n = bytes.size() / itemsize;
  if (itemsize == 1) {
    for (std::size_t i = 0; i < n; ++i) ++counts[p[i]];
    return;
  }
  for (std::size_t i = 0; i < n; ++i)
    ++counts[static_cast<unsigned>(p[2 * i]) | static_cast<unsigned>(p[2 * i + 1]) << 8];
}

Histogram histogram_of_patterns(const StoredElements& source, const std::vector<std::uint64_t>& counts,
                                std::size_t bins, double lo, double hi) {
  Histogram h = histogram_frame(bins, lo, hi);
  const HistogramBins slots(h);
  const std::size_t itemsize = dtype_info(source.stored).itemsize, patterns = counts.size();
  // Every pattern's bytes, in a source of its own that decodes them as `source` decodes its elements.
  std::vector<std::byte> table(patterns * itemsize);
  for (std::size_t k = 0; k < patterns; ++k) {
    const unsigned char le[2] = {static_cast<unsigned char>(k & 0xff), static_cast<unsigned char>(k >> 8)};
    std::memcpy(table.data() + k * itemsize, le, itemsize);
  }
  StoredElements all = source;
  all.bytes = table;
  all.numel = static_cast<std::int64_t>(patterns);
  all.shape.assign(1, all.numel);
  all.c_order = true;
  all.file = nullptr;
  all.keep = nullptr;
  const Lane lane = lane_of(all);
  std::vector<std::uint64_t> by_slot(slots.slots(), 0);
  alignas(64) std::byte buf[kStatsBlock * 8];
  double values[kStatsBlock];
  for (std::int64_t b = 0; b < all.numel; b += kStatsBlock) {
    const std::int64_t n = std::min(kStatsBlock, all.numel - b);
    decode_block(all, b, n, buf);
    lane_values(lane, buf, n, values);
    for (std::int64_t i = 0; i < n; ++i)
      if (const std::uint64_t c = counts[static_cast<std::size_t>(b + i)]) by_slot[slots.slot(values[i])] += c;
  }
  slots.add_to(h, by_slot);
  return h;
}

}  // namespace tensor_inspect
