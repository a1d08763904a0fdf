// realize/encoded_stream.hpp — a tensor's bytes, as realize would store them, streamed in
// batches without materializing it (for writers: export).
//
// for_each_chunk hands over values as words; a writer that wants the stored bytes bitcast the
// tensor to unsigned ints first, which made a computed tensor (`export -e 'x * 2'`, `--dtype
// float16`) a kernel of its own, realized whole before the bitcast: 300 MiB for a 256 MiB file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "tensor_inspect/graph.hpp"

namespace tensor_inspect::realize_detail {

/// Receives the bytes of elements [start, start + bytes.size() / itemsize), in C order (but see
/// for_each_encoded's `any_order`).
using EncodedSink = std::function<void(std::int64_t start, std::span<const std::byte> bytes)>;

/// Streams the bytes of `root` in C order, at most `max_elements` elements a batch (rounded up to
/// the executor's chunk of 2048), each batch computed on all threads and handed to `sink` on
/// the calling thread: the bytes realize(root) would hold, bit for bit (the last kernel's stored
/// elements copied when it only moves them, its words encoded otherwise, as run_loop does).
/// Earlier kernels are realized as usual; a file read in place gives its pages back behind the
/// stream. Memory: one batch's bytes and words. Throws what realize throws, and what `sink` throws.
/// With `any_order`, for a sink that puts each run in its place (a seekable file), a column walk
/// (`x.T` of a table of more rows than a block cache holds) comes in runs of at most 2048 elements
/// in the order of its bands (realize/chunk_order.hpp), each block of its file read once; other
/// kernels come in C order as without it.
void for_each_encoded(const NodePtr& root, std::size_t max_elements, const EncodedSink& sink, bool any_order = false);

}  // namespace tensor_inspect::realize_detail
