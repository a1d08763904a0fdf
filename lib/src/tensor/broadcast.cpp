// tensor/broadcast.cpp — the values a broadcast repeats (broadcast.hpp).
#include "tensor/broadcast.hpp"

#include <cstddef>

namespace tensor_inspect {
namespace {

// The expand's source shape, when `t` ends in an expand of the same ndim.
std::optional<Shape> expanded_from(const Tensor& t) {
  const NodePtr& n = t.node();
  if (n->op != Op::Expand || n->src.size() != 1 || n->src[0]->shape.size() != n->shape.size()) return std::nullopt;
  return n->src[0]->shape;
}

}  // namespace

std::optional<Broadcast> broadcast_source(const Tensor& t) {
  const std::optional<Shape> from = expanded_from(t);
  if (!from || t.numel() == 0) return std::nullopt;
  Tensor source(t.node()->src[0]);
  return Broadcast{source, t.numel() / source.numel()};
}

std::optional<CommonBroadcast> common_broadcast(const Tensor& a, const Tensor& b) {
  const std::optional<Shape> fa = expanded_from(a), fb = expanded_from(b);
  if (!fa || !fb || a.shape() != b.shape() || a.numel() == 0) return std::nullopt;
  Shape kept = a.shape();
  bool any = false;
  for (std::size_t i = 0; i < kept.size(); ++i)
    if ((*fa)[i] == 1 && (*fb)[i] == 1 && kept[i] > 1) {
      kept[i] = 1;
      any = true;
    }
  if (!any) return std::nullopt;
  const Tensor ra = Tensor(a.node()->src[0]).expand(kept), rb = Tensor(b.node()->src[0]).expand(kept);
  return CommonBroadcast{ra, rb, a.numel() / ra.numel()};
}

std::int64_t unreduced_index(std::int64_t flat, const Shape& reduced, const Shape& shape) {
  std::int64_t out = 0, scale = 1;
  for (std::size_t ax = shape.size(); ax-- > 0;) {
    const std::int64_t i = flat % reduced[ax];
    flat /= reduced[ax];
    out += i * scale;
    scale *= shape[ax];
  }
  return out;
}

}  // namespace tensor_inspect
