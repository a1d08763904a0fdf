// fusion.hpp — which nodes a kernel fuses and which end it (realization boundaries).
// Shared by the scheduler (schedule.cpp) and the executor (execute.cpp) so both cut the
// graph at the same places.
#pragma once

#include "tensor_inspect/graph.hpp"

namespace tensor_inspect::realize_detail {

// A same-size bitcast of an int is exact on the loop's values, so it fuses; other
// bitcasts (another itemsize, or float bits a double could not carry: signalling nans)
// reinterpret a realized buffer's bytes instead.
inline bool is_fused_bitcast(const Node& n) {
  const DType from = n.src[0]->dtype;
  return dtype_info(from).itemsize == dtype_info(n.dtype).itemsize && (is_int(from) || from == DType::Bool);
}

// A producer with an element formula is computed inside loops, like a constant.
inline bool is_formula(const Node& n) {
  return n.op == Op::Producer && std::get<std::shared_ptr<const Producer>>(n.arg)->element != nullptr;
}

// A node whose value a kernel reads from a buffer instead of computing it in its loop.
inline bool is_boundary(const Node& n) {
  const Op op = n.op;
  if (op == Op::Bitcast) return !is_fused_bitcast(n);
  if (op == Op::Producer) return !is_formula(n);
  return op == Op::Buffer || op == Op::Contiguous || is_reduce(op) || is_scan(op);
}

}  // namespace tensor_inspect::realize_detail
