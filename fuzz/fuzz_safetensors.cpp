// fuzz/fuzz_safetensors.cpp — safetensors headers and data (loaders/safetensors.cpp).
#include "harness.hpp"
#include "loaders/formats.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::guarded([&] { fuzz::inspect(ti::open_safetensors(fuzz::file_of(data, size, "fuzz.safetensors"))); });
  return 0;
}
