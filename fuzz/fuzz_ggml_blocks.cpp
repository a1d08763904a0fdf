// fuzz/fuzz_ggml_blocks.cpp — every ggml block decoder (decode/ggml_*.cpp) on arbitrary bytes:
// the first byte picks the ggml type id, the rest is cut to whole blocks and dequantized.
// Any byte pattern is a valid block, so the harness looks for reads past a block, UB in the
// bit arithmetic and grid indexes past their tables (ASan/UBSan).
#include <cstring>
#include <vector>

#include "decode/ggml_types.hpp"
#include "harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const ti::GgmlType* type = ti::ggml_type_from_id(data[0] % 44u);
  if (!type || !type->dequantizable) return 0;
  const std::size_t blocks = (size - 1) / type->block_bytes;
  // A copy of exactly the blocks, so ASan sees a read past the last one.
  std::vector<std::byte> src(blocks * type->block_bytes);
  if (!src.empty()) std::memcpy(src.data(), data + 1, src.size());
  std::vector<float> out(blocks * type->block_elems);
  ti::dequantize_ggml(*type, src, out);
  return 0;
}
