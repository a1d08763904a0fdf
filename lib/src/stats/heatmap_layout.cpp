// stats/heatmap_layout.cpp — heatmap_layout: see heatmap_layout.hpp.
#include "stats/heatmap_layout.hpp"

#include <cstdlib>
#include <variant>
#include <vector>

#include "tensor_inspect/graph.hpp"
#include "tensor_inspect/view.hpp"

namespace tensor_inspect {

std::optional<HeatmapLayout> heatmap_layout(const Tensor& t) {
  if (t.shape().size() != 2) return std::nullopt;
  // The movement ops down to the buffer (stored_elements' walk), then their View from it up.
  std::vector<const Node*> ops;
  const Node* n = t.node().get();
  for (; n->op != Op::Buffer; n = n->src.at(0).get()) {
    if (n->op != Op::Reshape && n->op != Op::Permute && n->op != Op::Flip && n->op != Op::Contiguous &&
        n->op != Op::Bitcast && n->op != Op::ByteSwap)
      return std::nullopt;
    ops.push_back(n);
  }
  View v = View::make(n->shape);
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    const Node& m = **it;
    if (m.op == Op::Reshape) {
      std::optional<View> r = v.reshape(m.shape);
      if (!r) return std::nullopt;
      v = *r;
    } else if (m.op == Op::Permute) {
      v = v.permute(std::get<Shape>(m.arg));
    } else if (m.op == Op::Flip) {
      std::vector<bool> axes(m.shape.size(), false);
      for (const std::int64_t a : std::get<Shape>(m.arg)) axes[static_cast<std::size_t>(a)] = true;
      v = v.flip(axes);
    }
  }
  if (v.shape != t.shape() || v.mask) return std::nullopt;
  const std::int64_t rows = v.shape[0], cols = v.shape[1];
  const std::int64_t s0 = v.strides.empty() ? cols : v.strides[0], s1 = v.strides.empty() ? 1 : v.strides[1];
  // A size-1 axis has stride 0 (View::make): any stride fits it.
  const auto is = [](std::int64_t stride, std::int64_t len, std::int64_t want) {
    return len == 1 || std::abs(stride) == want;
  };
  HeatmapLayout l;
  if (is(s1, cols, 1) && is(s0, rows, cols)) {
    l.transposed = false;
  } else if (is(s0, rows, 1) && is(s1, cols, rows)) {
    l.transposed = true;
  } else {
    return std::nullopt;
  }
  l.flip_rows = s0 < 0;
  l.flip_cols = s1 < 0;
  return l;
}

}  // namespace tensor_inspect
