// decode/ggml_types.hpp — the ggml tensor types a GGUF file can hold: one table row per
// type id (ggml.h `enum ggml_type`), with its block layout and its block decoder, which
// dequantizes to float32 as ggml's dequantize_row_* does (ggml-quants.c; block layouts
// from ggml-common.h). Every reader of ggml blocks (the loader's producer, statistics,
// validate) goes through this table.
//
//   const GgmlType* t = ggml_type_from_id(2);              // Q4_0: 32 elements in 18 bytes
//   dequantize_ggml(*t, block_bytes, out_floats);          // out_floats.size() = 32 * blocks
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "tensor_inspect/dtype.hpp"

namespace tensor_inspect {

/// QK_K: the super-block of ggml's K, IQ and TQ quants, the largest block of any ggml type.
inline constexpr std::size_t kGgmlMaxBlockElems = 256;

/// Dequantizes one block (`block_bytes` bytes) into `block_elems` floats.
using GgmlBlockDecoder = void (*)(const std::uint8_t* block, float* out);

/// One ggml tensor type.
struct GgmlType {
  std::uint32_t id;              ///< ggml_type value stored in GGUF tensor infos
  std::string_view name;         ///< ggml's type name: "F16", "Q4_K"
  std::uint32_t block_elems;     ///< elements per block (1 for plain types)
  std::uint32_t block_bytes;     ///< bytes per block
  std::optional<DType> dtype;    ///< plain types: the dtype the bytes already are
  bool dequantizable;            ///< quantized types we turn into float32
  GgmlBlockDecoder decode;       ///< their block decoder (nullptr for the others)
};

/// The row of a ggml type id, or nullptr for ids ggml does not define (including the
/// removed 4, 5, 31-33 and 36-38).
const GgmlType* ggml_type_from_id(std::uint32_t id);

/// Why a type id has no row, for messages: "ggml type 31 (Q4_0_4_4) was removed from GGUF
/// files" or "ggml type 77 is not defined by ggml".
std::string ggml_unknown_type_reason(std::uint32_t id);

/// Why a type with a row cannot be dequantized (Q8_1), to follow "cannot dequantize: "; empty if it can.
std::string_view ggml_refusal_reason(const GgmlType& type);

/// Dequantizes whole blocks of `type` (dequantizable) from `src` into float32 `dst`, with
/// ggml's float arithmetic. `src.size()` must be blocks * block_bytes and `dst.size()`
/// blocks * block_elems (asserted: callers check sizes against the header first).
void dequantize_ggml(const GgmlType& type, std::span<const std::byte> src, std::span<float> dst);

}  // namespace tensor_inspect
