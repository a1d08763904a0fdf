// fuzz/fuzz_manifest.cpp — hash manifests (hash --check MANIFEST): untrusted JSON read back
// into algorithm, inputs and tensors; every fault must be one Error, never a crash.
#include "harness.hpp"
#include "tensor_inspect/hash.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::text_of(data, size);
  fuzz::guarded([&] { (void)ti::parse_manifest(text, "manifest.json"); });
  return 0;
}
