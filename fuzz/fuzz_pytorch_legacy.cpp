// fuzz/fuzz_pytorch_legacy.cpp — torch.save's legacy layout (loaders/pytorch_legacy.cpp):
// the five pickles and the raw storages after them, through both policies of its one
// parser: loading (the first fault throws, then tensors are realized) and validate's
// (every fault collected, the walk carried on), which must never read out of bounds either.
#include "harness.hpp"
#include "loaders/pytorch_legacy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = fuzz::file_of(data, size, "fuzz.pt");
  fuzz::guarded([&] { fuzz::inspect(ti::open_pytorch_legacy(file)); });
  fuzz::guarded([&] {
    std::size_t faults = 0;
    const ti::LegacyFaults collect("fuzz.pt", [&faults](const ti::LegacyFault&) { ++faults; });
    (void)ti::parse_pytorch_legacy(file->bytes(), collect);
  });
  return 0;
}
