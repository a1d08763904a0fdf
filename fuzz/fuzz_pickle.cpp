// fuzz/fuzz_pickle.cpp — the pickle machine on its own (loaders/pickle.cpp), with the
// default limits, and Python's type name of what it made.
#include "harness.hpp"
#include "loaders/pickle.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::guarded([&] {
    const ti::Pickled p = ti::read_pickle({reinterpret_cast<const std::byte*>(data), size}, "fuzz.pkl");
    if (p.root) (void)ti::pickle_type_name(*p.root);
  });
  return 0;
}
