// tensor_inspect/stored_elements.hpp — the stored bytes behind a lazy tensor: when the tensor is
// a reordering or reinterpretation of one whole buffer (a file's tensor as loaded, byte-swapped or
// transposed), its elements can be read where they lie, in the memory map, without realizing a
// copy. The memoryview reads a byte-swapped file this way, statistics and hashing scan it.
//
//   ti::Tensor t = ti::open_file("x.npy").tensors[0].load();  // a big-endian file: a ByteSwap node
//   if (std::optional<ti::StoredElements> s = ti::stored_elements(t))  // nullopt: realize t instead
//     std::printf("%lld elements of %s, swapped: %d\n", static_cast<long long>(s->numel),
//                 ti::dtype_info(s->stored).name, s->swap_bytes);
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>

#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/dtype.hpp"
#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect {

/// The stored bytes of a tensor's elements, read in place. `bytes` hold `numel` elements
/// of `stored` (native or big-endian), or, with `ggml_type`, GGUF blocks that dequantize to
/// `numel` float32 values. The order is the stored one, which is C order only when
/// `c_order` is set (a permuted or flipped view has the same values in another order).
struct StoredElements {
  std::span<const std::byte> bytes;
  DType stored = DType::Float32;         ///< the element dtype as stored (quantized: Float32)
  bool swap_bytes = false;               ///< each element's bytes are reversed from native order
  std::optional<std::uint32_t> ggml_type;  ///< GGUF block type id (2 = Q4_0, 12 = Q4_K, ...)
  std::int64_t numel = 0;                ///< elements (after dequantization)
  Shape shape;                           ///< the tensor's shape (C order of the values)
  bool c_order = true;                   ///< bytes are in C order of `shape`
  std::shared_ptr<const MappedFile> file;  ///< the mapping holding `bytes`, if any (kept alive)
  std::shared_ptr<Buffer> keep;          ///< a buffer holding `bytes`, if any (kept alive)
  /// A float32 tensor decoded on demand (a quantization scheme's logical tensor): `bytes`
  /// is empty, and each block's values come from decode(first, out), elements [first, first
  /// + out.size()) in C order, called from several threads at once.
  std::function<void(std::int64_t first, std::span<float> out)> decode;
  /// Optional, with decode: Producer::release_scanned, which a scan with
  /// ScanOptions::release_pages calls for the runs of elements it has finished.
  std::function<void(std::int64_t first, std::int64_t last)> release_scanned;
};

/// The elements of `t` in place, when t is a bijective view (reshape, permute, flip,
/// contiguous) of one whole buffer, possibly byte-swapped and bitcast between dtypes of
/// one itemsize (how loaders present big-endian data). nullopt for anything else: slices,
/// padding, arithmetic, producers, weak dtypes. Reads no element bytes. A remote file's
/// bytes are fetched whole, unless `fetch` is false: then the caller fetches
/// (fetch_bytes) each part of `bytes` before it reads it.
std::optional<StoredElements> stored_elements(const Tensor& t, bool fetch = true);

}  // namespace tensor_inspect
