// decode/ggml_fast.hpp — vector loops over many ggml blocks of one type, for the types where
// one pays (ggml_fast.cpp): the same bits as the type's reference block decoder. dequantize_ggml
// takes them when this CPU has AVX2.
//
//   if (GgmlBlocksDecoder fast = ggml_fast_decoder(12)) fast(blocks, count, out);   // Q4_K
#pragma once

#include <cstddef>
#include <cstdint>

namespace tensor_inspect {

/// Dequantizes `blocks` consecutive blocks at `b` into block_elems * blocks floats at `y`.
using GgmlBlocksDecoder = void (*)(const std::uint8_t* b, std::size_t blocks, float* y);

/// The vector loop of ggml type `type_id` on this CPU, or nullptr (no AVX2, or a type without
/// one: then the reference block decoder runs).
GgmlBlocksDecoder ggml_fast_decoder(std::uint32_t type_id);

}  // namespace tensor_inspect
