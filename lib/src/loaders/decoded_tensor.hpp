// loaders/decoded_tensor.hpp — a float32 tensor whose elements are decoded from stored
// bytes on demand: safetensors dtypes tinygrad lacks (F8_E8M0, F4) and the quantization
// schemes' logical tensors (schemes/). One call decodes a run of elements, so bulk paths
// (realize, --stats) pay one indirect call per run, never one per element.
//
//   auto decode = [bytes](std::int64_t first, std::span<float> out) { decode_fp4_range(bytes, first, out); };
//   Tensor t = decoded_tensor("decode F4 'w'", {4, 8}, decode, [] {});
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>

#include "tensor_inspect/tensor.hpp"
#include "tensor_inspect/view.hpp"

namespace tensor_inspect {

/// Elements [first, first + out.size()) in C order of the logical tensor. Must be safe to
/// call from several threads at once and read only the stored bytes those elements need.
using RangeDecode = std::function<void(std::int64_t first, std::span<float> out)>;

/// A lazy float32 tensor of `shape` whose values `decode` makes. `fetch` runs when the
/// tensor is opened and before a whole fill (a remote file's bytes are fetched there, not on
/// loop threads, where a failed fetch could not be reported); it may throw.
Tensor decoded_tensor(std::string label, const Shape& shape, RangeDecode decode, std::function<void()> fetch);

}  // namespace tensor_inspect
