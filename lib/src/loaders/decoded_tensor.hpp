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
#include <memory>
#include <span>
#include <string>

#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/tensor.hpp"
#include "tensor_inspect/view.hpp"

namespace tensor_inspect {

/// Elements [first, first + out.size()) in C order of the logical tensor. Must be safe to
/// call from several threads at once and read only the stored bytes those elements need.
using RangeDecode = std::function<void(std::int64_t first, std::span<float> out)>;

/// Producer::release_scanned: drops the pages of stored bytes that only elements [first,
/// last) read, once a scan has read them all.
using RangeRelease = std::function<void(std::int64_t first, std::int64_t last)>;

/// A lazy float32 tensor of `shape` whose values `decode` makes. `fetch` runs when the
/// tensor is opened and before a whole fill (a remote file's bytes are fetched there, not on
/// loop threads, where a failed fetch could not be reported); it may throw. `release`, when
/// set, lets a statistics scan keep the resident set flat (release_in_order, release_in_slabs).
Tensor decoded_tensor(std::string label, const Shape& shape, RangeDecode decode, std::function<void()> fetch,
                      RangeRelease release = {});

/// The release of a part whose `nbytes` at `offset` of `file` hold the codes of the `numel`
/// logical elements in their C order, in proportion (F8 weights, codes packed along the
/// row, MXFP4 blocks): the pages inside a finished run's bytes, less a margin either side
/// for the words and blocks it shares with its neighbours; the whole part at the end.
RangeRelease release_in_order(std::shared_ptr<const MappedFile> file, std::uint64_t offset, std::uint64_t nbytes,
                              std::int64_t numel);

/// The release of a part in `slabs` equal slabs, each read by every element of its share
/// of the logical tensor (GPTQ's and AWQ's qweight, stored [in, out] under a logical [out,
/// in], is one slab; MXFP4 experts, stored [R, G, 16] under [G*32, R], one each): the slabs
/// wholly inside a finished run.
RangeRelease release_in_slabs(std::shared_ptr<const MappedFile> file, std::uint64_t offset, std::uint64_t nbytes,
                              std::int64_t numel, std::int64_t slabs);

}  // namespace tensor_inspect
