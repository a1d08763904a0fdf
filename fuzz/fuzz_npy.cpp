// fuzz/fuzz_npy.cpp — .npy headers and data (loaders/npy.cpp): open, realize, render.
#include "harness.hpp"
#include "loaders/formats.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::guarded([&] { fuzz::inspect(ti::open_npy(fuzz::file_of(data, size, "fuzz.npy"))); });
  return 0;
}
