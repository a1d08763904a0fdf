// stats/float_moments.hpp — the float lane's block kernel, reading a block's stored words
// directly when the dtype allows it (native float32, bfloat16 and float16), so the block is
// not decoded into a buffer first.
//
//   if (StoredBlockKernel k = stored_block_kernel(source))
//     part = k(source.bytes.data() + byte_offset_of(source, first), n);   // n <= kStatsBlock
#pragma once

#include <cstddef>
#include <cstdint>

#include "stats/moments.hpp"
#include "tensor_inspect/stats.hpp"

namespace tensor_inspect {

/// The moments of n (<= kStatsBlock) stored elements at `bytes` (any alignment): the same
/// numbers as block_moments_f32 of their values decoded.
using StoredBlockKernel = Moments (*)(const std::byte* bytes, std::int64_t n);

/// The same kernel on the x86-64 baseline's vector loop, which machines without AVX2 run,
/// whatever this machine has: for tests, that both loops give the same bits. `stored` is
/// Float32, BFloat16 or Float16.
Moments block_moments_baseline(const std::byte* bytes, std::int64_t n, DType stored);

/// The kernel for `source`'s stored words, or nullptr when its blocks must be decoded first
/// (byte-swapped, GGUF blocks, fp8, float64, ints).
StoredBlockKernel stored_block_kernel(const StoredElements& source);

}  // namespace tensor_inspect
