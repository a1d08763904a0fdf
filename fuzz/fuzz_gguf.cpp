// fuzz/fuzz_gguf.cpp — GGUF headers, metadata and quantized data (loaders/gguf*.cpp).
#include "harness.hpp"
#include "loaders/formats.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::guarded([&] { fuzz::inspect(ti::open_gguf(fuzz::file_of(data, size, "fuzz.gguf"))); });
  return 0;
}
