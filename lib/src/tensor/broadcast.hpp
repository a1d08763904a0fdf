// tensor/broadcast.hpp — the values a broadcast repeats. A tensor whose graph ends in an
// expand (torch's `zeros(1).expand(10**6, 10**6)` saved as is: a 0 stride over one stored
// element) holds each value of the expand's source once per repetition, so statistics and
// comparisons read the source once and count each value for every repetition: their work
// follows the elements stored, not the broadcast shape.
//
//   if (auto b = broadcast_source(t)) stats = scaled(compute_stats_streamed(b->source), b->repeats);
#pragma once

#include <cstdint>
#include <optional>

#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect {

/// A broadcast tensor's source: `source` has the tensor's ndim with 1 on the broadcast
/// axes; each of its elements stands for `repeats` elements of the tensor (in C order,
/// the source's flat index i is the tensor's element at the same index with 0 on those axes).
struct Broadcast {
  Tensor source;
  std::int64_t repeats = 1;
};

/// The source of `t` when its last op is an expand over fewer elements; nullopt otherwise.
std::optional<Broadcast> broadcast_source(const Tensor& t);

/// Two tensors of one shape cut down to the axes that not both broadcast: each is its
/// expand's source expanded back along the axes only the other broadcasts. nullopt when no
/// axis broadcasts on both sides. `repeats` is elements of the shape per element kept.
struct CommonBroadcast {
  Tensor a, b;
  std::int64_t repeats = 1;
};
std::optional<CommonBroadcast> common_broadcast(const Tensor& a, const Tensor& b);

/// The flat C-order index in `shape` of element `flat` of `reduced` (the same axes, 1 where
/// `shape` was cut down): its index with 0 on the cut axes.
std::int64_t unreduced_index(std::int64_t flat, const Shape& reduced, const Shape& shape);

}  // namespace tensor_inspect
