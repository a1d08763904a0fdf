// fuzz/fuzz_literal.cpp — Python literal syntax (literal/): parse, realize, render.
// Byte 0 picks the dtype (a value past the table: none, i.e. inferred); the rest is the text.
#include "harness.hpp"
#include "tensor_inspect/literal.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::optional<ti::DType> dtype;
  if (data[0] < ti::kDTypeCount - 2) dtype = static_cast<ti::DType>(data[0]);
  fuzz::guarded([&] { fuzz::realize_and_render(ti::tensor_from_literal(fuzz::text_of(data + 1, size - 1), dtype)); });
  return 0;
}
