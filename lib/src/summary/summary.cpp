// summary/summary.cpp — NumPy's choice of elements for a summarized array, and the lazy
// tensor of just those elements (see tensor_inspect/summary.hpp).
#include "tensor_inspect/summary.hpp"

#include <algorithm>

#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

Shape Summary::shown_shape() const {
  Shape s = shape;
  for (std::size_t d = 0; d < s.size(); ++d)
    if (elided[d]) s[d] = edgeitems + trailing();
  return s;
}

std::optional<Summary> summarize(const Shape& shape, const PrintOptions& options) {
  // numpy/core/arrayprint.py: `summary_insert = "..." if data.size > threshold`, where an
  // empty array has already printed "[]" and a 0-d one its scalar.
  const std::int64_t size = prod(shape);
  if (shape.empty() || size == 0 || size <= options.threshold) return std::nullopt;
  Summary s;
  s.shape = shape;
  s.edgeitems = std::max<std::int64_t>(options.edgeitems, 0);
  for (std::int64_t n : shape) {
    // _formatArray: `show_summary = summary_insert and 2*edge_items < a_len`, written so
    // that a huge edgeitems cannot overflow.
    s.elided.push_back(s.edgeitems < n && n - s.edgeitems > s.edgeitems);
  }
  // No axis long enough: NumPy prints every element, with no "...".
  if (std::find(s.elided.begin(), s.elided.end(), true) == s.elided.end()) return std::nullopt;
  return s;
}

Tensor edge_elements(const Tensor& t, const Summary& s) {
  if (t.shape() != s.shape || s.elided.size() != s.shape.size())
    throw Error(ErrorCode::Internal, "internal: edge_elements of a " + shape_repr(t.shape()) +
                                         " tensor with a summary of " + shape_repr(s.shape));
  const std::int64_t e = s.edgeitems;
  Tensor out = t;
  // One axis at a time, so no intermediate shape has more than twice t's elements.
  for (std::size_t d = 0; d < s.shape.size(); ++d) {
    if (!s.elided[d]) continue;
    const std::int64_t n = s.shape[d];
    Shape shape = out.shape();
    if (e == 0) {
      // Only the last item: [n-1, n).
      Ranges keep;
      for (std::size_t k = 0; k < shape.size(); ++k) keep.push_back({0, shape[k]});
      keep[d] = {n - 1, n};
      out = out.shrink(keep);
      continue;
    }
    // The leading e and trailing e items as one view, with no copy and no cat: padded to
    // 2(n-e) items, the axis splits into (2, n-e), and items [0, e) of each half are
    // x[0:e] and x[n-e:n] (n > 2e, so none of them falls in the padding).
    Ranges padding(shape.size(), {0, 0});
    padding[d] = {0, n - 2 * e};
    out = out.pad(padding);
    Shape split = shape;
    split[d] = n - e;
    split.insert(split.begin() + static_cast<std::ptrdiff_t>(d), 2);
    out = out.reshape(split);
    Ranges keep;
    for (std::size_t k = 0; k < split.size(); ++k) keep.push_back({0, split[k]});
    keep[d + 1] = {0, e};
    out = out.shrink(keep);
    shape[d] = 2 * e;
    out = out.reshape(shape);
  }
  return out;
}

}  // namespace tensor_inspect
