// view_merge.cpp — merge_views: see view_merge.hpp.
//
// Top maps its index c (in its mask's box: first_d <= c_d <= last_d) to the linear index
// l = offset + sum(c_d * stride_d) of bottom's shape, which bottom splits into its multi-index
// (C order, digits b_k of place value place_k) before mapping it to the buffer. When each of
// top's strides is a multiple m_d of one place value place_k (the largest that divides it) and
// the digits stay inside bottom's shape and mask over the whole box, the split is linear:
// b_k(c) = b_k(first) + sum over top axes d of digit k of (m_d * (c_d - first_d)), no carry,
// so the buffer index is linear in c too: stride m_d * bottom.stride_k on axis d.
#include "realize/view_merge.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tensor_inspect::realize_detail {

std::optional<View> merge_views(const View& bottom, const View& top) {
  const std::size_t nb = bottom.shape.size(), nt = top.shape.size();
  if (nb == 0 || nt == 0 || prod(bottom.shape) == 0 || prod(top.shape) == 0) return std::nullopt;
  // Bottom's place values (C order, size-1 axes included) and strides to the buffer.
  std::vector<std::int64_t> place(nb, 1), bstride(nb);
  for (std::size_t k = nb; k-- > 1;) place[k - 1] = place[k] * bottom.shape[k];
  const std::vector<std::int64_t> c_order = strides_for_shape(bottom.shape);
  for (std::size_t k = 0; k < nb; ++k)
    bstride[k] = bottom.strides.size() == nb ? bottom.strides[k] : c_order[k];
  // Top's box and the linear index at its first corner.
  std::vector<std::int64_t> first(nt), last(nt), tstride(nt);
  const std::vector<std::int64_t> t_order = strides_for_shape(top.shape);
  std::int64_t at = top.offset;
  for (std::size_t d = 0; d < nt; ++d) {
    first[d] = 0, last[d] = top.shape[d] - 1;
    if (top.mask) {
      first[d] = std::max<std::int64_t>(first[d], (*top.mask)[d].first);
      last[d] = std::min<std::int64_t>(last[d], (*top.mask)[d].second - 1);
    }
    if (last[d] < first[d]) return std::nullopt;  // reads nothing: left as it is
    tstride[d] = top.strides.size() == nt ? top.strides[d] : t_order[d];
    at += tstride[d] * first[d];
  }
  if (at < 0 || at >= prod(bottom.shape)) return std::nullopt;
  // The digits of the first corner, then the least and most each digit reaches over the box.
  std::vector<std::int64_t> low(nb), high(nb);
  for (std::size_t k = 0; k < nb; ++k) low[k] = high[k] = at / place[k] % bottom.shape[k];
  const std::vector<std::int64_t> base = low;
  std::vector<std::int64_t> merged(nt, 0);
  for (std::size_t d = 0; d < nt; ++d) {
    const std::int64_t s = tstride[d], span = last[d] - first[d];
    if (s == 0 || span == 0) continue;
    std::size_t k = 0;  // the largest place value dividing the stride
    while (k < nb && s % place[k] != 0) ++k;
    if (k == nb) return std::nullopt;  // place[nb - 1] is 1: unreachable
    const std::int64_t m = s / place[k];
    if (m >= bottom.shape[k] || -m >= bottom.shape[k]) return std::nullopt;  // would carry
    (m > 0 ? high[k] : low[k]) += m * span;
    merged[d] = m * bstride[k];
  }
  std::int64_t offset = bottom.offset;
  for (std::size_t k = 0; k < nb; ++k) {
    std::int64_t lo = 0, hi = bottom.shape[k];
    if (bottom.mask) lo = std::max(lo, (*bottom.mask)[k].first), hi = std::min(hi, (*bottom.mask)[k].second);
    if (low[k] < lo || high[k] >= hi) return std::nullopt;  // a carry, or an element bottom's mask hides
    offset += base[k] * bstride[k];
  }
  for (std::size_t d = 0; d < nt; ++d) offset -= merged[d] * first[d];
  return View::make(top.shape, merged, offset, top.mask);
}

}  // namespace tensor_inspect::realize_detail
