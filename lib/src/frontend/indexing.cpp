// Python's basic indexing (x[1, ::-2, None, ...]) as shrink, flip, pad and reshape, the
// way tinygrad's __getitem__ lowers it.
#include <algorithm>
#include <limits>

#include "internal.hpp"

namespace tensor_inspect::tg {

using namespace detail;

Tensor getitem(const Tensor& t, const std::vector<IndexItem>& items) {
  using K = IndexItem::Kind;
  std::size_t real = 0, ellipses = 0;
  for (const IndexItem& it : items) {
    if (it.kind == K::Int || it.kind == K::Slice) ++real;
    if (it.kind == K::Ellipsis) ++ellipses;
  }
  if (ellipses > 1) shape_error("an index can only have a single ellipsis ('...')");
  if (real > t.ndim())
    shape_error("too many indices for tensor: tensor is " + std::to_string(t.ndim()) + "-dimensional, but " +
                std::to_string(real) + " were indexed");
  std::vector<IndexItem> full;
  for (const IndexItem& it : items) {
    if (it.kind != K::Ellipsis) { full.push_back(it); continue; }
    for (std::size_t k = 0; k < t.ndim() - real; ++k) full.push_back(IndexItem{K::Slice, 0, {}, {}, {}});
  }
  if (ellipses == 0)
    for (std::size_t k = 0; k < t.ndim() - real; ++k) full.push_back(IndexItem{K::Slice, 0, {}, {}, {}});

  // Per axis: the [lo, hi) range to keep, whether to flip, the stride and the final count.
  std::vector<OptRange> ranges;
  std::vector<std::int64_t> flips;
  std::vector<std::pair<std::size_t, std::int64_t>> strides;  // (axis, |step|)
  Shape out_shape;
  std::size_t axis = 0;
  for (const IndexItem& it : full) {
    if (it.kind == K::NewAxis) { out_shape.push_back(1); continue; }
    std::int64_t n = t.shape()[axis];
    if (it.kind == K::Int) {
      std::int64_t i = it.index < 0 ? it.index + n : it.index;
      if (i < 0 || i >= n)
        shape_error("index " + std::to_string(it.index) + " is out of bounds for dimension " + std::to_string(axis) +
                    " with size " + std::to_string(n));
      ranges.push_back(std::pair{i, i + 1});
    } else {
      std::int64_t step = std::max(it.step.value_or(1), -std::numeric_limits<std::int64_t>::max());
      if (step == 0) shape_error("slice step cannot be zero");
      std::int64_t start, stop;
      auto clampv = [](std::int64_t v, std::int64_t lo, std::int64_t hi) { return std::min(std::max(v, lo), hi); };
      if (step > 0) {
        start = it.start ? clampv(*it.start < 0 ? *it.start + n : *it.start, 0, n) : 0;
        stop = it.stop ? clampv(*it.stop < 0 ? *it.stop + n : *it.stop, 0, n) : n;
      } else {
        start = it.start ? clampv(*it.start < 0 ? *it.start + n : *it.start, -1, n - 1) : n - 1;
        stop = it.stop ? clampv(*it.stop < 0 ? *it.stop + n : *it.stop, -1, n - 1) : -1;
      }
      std::int64_t count = step > 0 ? (stop > start ? (stop - start - 1) / step + 1 : 0)
                                    : (start > stop ? (start - stop - 1) / (-step) + 1 : 0);
      std::int64_t abs_step = step > 0 ? step : -step;
      if (count == 0) {
        ranges.push_back(std::pair{0, 0});
      } else if (step > 0) {
        ranges.push_back(std::pair{start, start + (count - 1) * step + 1});
      } else {
        ranges.push_back(std::pair{start + (count - 1) * step, start + 1});
        flips.push_back(sz(axis));
      }
      if (count > 1 && abs_step > 1) strides.emplace_back(axis, abs_step);
      out_shape.push_back(count);
    }
    ++axis;
  }
  Tensor r = shrink(t, ranges);
  r = flip(r, flips);
  for (auto [ax, step] : strides) {
    // Take every step-th element of axis ax: pad to count*step, split, keep column 0.
    std::int64_t len = r.shape()[ax];
    std::int64_t count = (len + step - 1) / step;
    std::vector<OptRange> p(r.ndim());
    p[ax] = std::pair<std::int64_t, std::int64_t>{0, count * step - len};
    r = pad(r, p);
    Shape split = r.shape();
    split[ax] = count;
    split.insert(split.begin() + sz(ax) + 1, step);
    r = r.reshape(split);
    std::vector<OptRange> keep(r.ndim());
    keep[ax + 1] = std::pair<std::int64_t, std::int64_t>{0, 1};
    r = shrink(r, keep);
    Shape merged = r.shape();
    merged.erase(merged.begin() + sz(ax) + 1);
    r = r.reshape(merged);
  }
  return out_shape == r.shape() ? r : r.reshape(out_shape);
}

}  // namespace tensor_inspect::tg
