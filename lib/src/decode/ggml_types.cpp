// decode/ggml_types.cpp — ggml's type table (ggml.h enum ggml_type, block sizes from
// ggml-common.h) with each quantized type's block decoder, and the one loop that runs a
// decoder over whole blocks.
#include "decode/ggml_types.hpp"

#include <cassert>
#include <cstring>

#include "decode/ggml_blocks.hpp"
#include "decode/ggml_fast.hpp"

namespace tensor_inspect {
namespace {

namespace gb = ggml_blocks;

// ggml.h enum ggml_type; gaps (4, 5, 31-33, 36-38) are ids removed from GGUF files.
constexpr GgmlType kGgmlTypes[] = {
    {0, "F32", 1, 4, DType::Float32, false, nullptr},
    {1, "F16", 1, 2, DType::Float16, false, nullptr},
    {2, "Q4_0", 32, 18, std::nullopt, true, gb::q4_0},
    {3, "Q4_1", 32, 20, std::nullopt, true, gb::q4_1},
    {6, "Q5_0", 32, 22, std::nullopt, true, gb::q5_0},
    {7, "Q5_1", 32, 24, std::nullopt, true, gb::q5_1},
    {8, "Q8_0", 32, 34, std::nullopt, true, gb::q8_0},
    {9, "Q8_1", 32, 36, std::nullopt, false, nullptr},  // see ggml_refusal_reason
    {10, "Q2_K", 256, 84, std::nullopt, true, gb::q2_k},
    {11, "Q3_K", 256, 110, std::nullopt, true, gb::q3_k},
    {12, "Q4_K", 256, 144, std::nullopt, true, gb::q4_k},
    {13, "Q5_K", 256, 176, std::nullopt, true, gb::q5_k},
    {14, "Q6_K", 256, 210, std::nullopt, true, gb::q6_k},
    {15, "Q8_K", 256, 292, std::nullopt, true, gb::q8_k},
    {16, "IQ2_XXS", 256, 66, std::nullopt, true, gb::iq2_xxs},
    {17, "IQ2_XS", 256, 74, std::nullopt, true, gb::iq2_xs},
    {18, "IQ3_XXS", 256, 98, std::nullopt, true, gb::iq3_xxs},
    {19, "IQ1_S", 256, 50, std::nullopt, true, gb::iq1_s},
    {20, "IQ4_NL", 32, 18, std::nullopt, true, gb::iq4_nl},
    {21, "IQ3_S", 256, 110, std::nullopt, true, gb::iq3_s},
    {22, "IQ2_S", 256, 82, std::nullopt, true, gb::iq2_s},
    {23, "IQ4_XS", 256, 136, std::nullopt, true, gb::iq4_xs},
    {24, "I8", 1, 1, DType::Int8, false, nullptr},
    {25, "I16", 1, 2, DType::Int16, false, nullptr},
    {26, "I32", 1, 4, DType::Int32, false, nullptr},
    {27, "I64", 1, 8, DType::Int64, false, nullptr},
    {28, "F64", 1, 8, DType::Float64, false, nullptr},
    {29, "IQ1_M", 256, 56, std::nullopt, true, gb::iq1_m},
    {30, "BF16", 1, 2, DType::BFloat16, false, nullptr},
    {34, "TQ1_0", 256, 54, std::nullopt, true, gb::tq1_0},
    {35, "TQ2_0", 256, 66, std::nullopt, true, gb::tq2_0},
    {39, "MXFP4", 32, 17, std::nullopt, true, gb::mxfp4},
    {40, "NVFP4", 64, 36, std::nullopt, true, gb::nvfp4},
    {41, "Q1_0", 128, 18, std::nullopt, true, gb::q1_0},
    {42, "Q2_0", 64, 18, std::nullopt, true, gb::q2_0},
};

constexpr bool blocks_fit() {
  for (const GgmlType& t : kGgmlTypes)
    if (kGgmlMaxBlockElems % t.block_elems != 0) return false;
  return true;
}
// (That dequantizable rows have a decoder is tests/unit/ggml_types_test.cpp's: a function's
// address is no constant expression under -fsanitize.)
static_assert(blocks_fit(), "every ggml block divides kGgmlMaxBlockElems, the largest");

// The ids ggml.h lists as removed, with the names they had.
constexpr std::pair<std::uint32_t, std::string_view> kRemoved[] = {
    {4, "Q4_2"},         {5, "Q4_3"},         {31, "Q4_0_4_4"},   {32, "Q4_0_4_8"},
    {33, "Q4_0_8_8"},    {36, "IQ4_NL_4_4"},  {37, "IQ4_NL_4_8"}, {38, "IQ4_NL_8_8"},
};

}  // namespace

const GgmlType* ggml_type_from_id(std::uint32_t id) {
  for (const GgmlType& t : kGgmlTypes)
    if (t.id == id) return &t;
  return nullptr;
}

std::string ggml_unknown_type_reason(std::uint32_t id) {
  for (const auto& [removed, name] : kRemoved)
    if (removed == id)
      return "ggml type " + std::to_string(id) + " (" + std::string(name) + ") was removed from GGUF files";
  return "ggml type " + std::to_string(id) + " is not defined by ggml";
}

std::string_view ggml_refusal_reason(const GgmlType& type) {
  if (type.dtype || type.dequantizable) return {};
  // ggml uses Q8_1 only for the activations of its matrix products: its type_traits (ggml.c)
  // give Q8_1 no to_float, and gguf-py has no Q8_1 class, so there is no reference to follow.
  return "ggml and gguf-py have no dequantization for it";
}

void dequantize_ggml(const GgmlType& type, std::span<const std::byte> src, std::span<float> dst) {
  assert(type.decode);
  const std::size_t blocks = src.size() / type.block_bytes;
  assert(src.size() == blocks * type.block_bytes && dst.size() == blocks * type.block_elems);
  (void)dst.size();
  const auto* in = reinterpret_cast<const std::uint8_t*>(src.data());
  if (const GgmlBlocksDecoder fast = ggml_fast_decoder(type.id)) return fast(in, blocks, dst.data());
  for (std::size_t i = 0; i < blocks; ++i) type.decode(in + i * type.block_bytes, dst.data() + i * type.block_elems);
}

}  // namespace tensor_inspect
