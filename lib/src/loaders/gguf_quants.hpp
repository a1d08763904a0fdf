// loaders/gguf_quants.hpp — the ggml tensor types a GGUF file can hold: one table row per
// type id (ggml.h `enum ggml_type`), with its block size, and float32 dequantization of
// the quantized blocks as ggml's dequantize_row_* computes it (ggml-quants.c, block
// layouts from ggml-common.h).
//
//   const GgmlType* t = ggml_type_from_id(2);              // Q4_0: 32 elements in 18 bytes
//   dequantize_ggml(*t, block_bytes, out_floats);          // out_floats.size() = 32 * blocks
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "tensor_inspect/dtype.hpp"

namespace tensor_inspect {

/// One ggml tensor type.
struct GgmlType {
  std::uint32_t id;              ///< ggml_type value stored in GGUF tensor infos
  std::string_view name;         ///< ggml's type name: "F16", "Q4_K"
  std::uint32_t block_elems;     ///< elements per block (1 for plain types)
  std::uint32_t block_bytes;     ///< bytes per block
  std::optional<DType> dtype;    ///< plain types: the dtype the bytes already are
  bool dequantizable;            ///< quantized types we turn into float32
};

/// The row of a ggml type id, or nullptr for ids ggml does not define (including the
/// removed 4, 5, 31-33 and 36-38).
const GgmlType* ggml_type_from_id(std::uint32_t id);

/// Dequantizes whole blocks of `type` (dequantizable) from `src` into float32 `dst`, with
/// ggml's float arithmetic. `src.size()` must be blocks * block_bytes and `dst.size()`
/// blocks * block_elems (asserted: callers check sizes against the header first).
void dequantize_ggml(const GgmlType& type, std::span<const std::byte> src, std::span<float> dst);

}  // namespace tensor_inspect
