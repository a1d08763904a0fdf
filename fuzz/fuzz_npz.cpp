// fuzz/fuzz_npz.cpp — .npz archives (loaders/npz.cpp over zip_archive.cpp), in the
// structure-aware member-list form of zip_input.hpp.
#include "harness.hpp"
#include "loaders/formats.hpp"
#include "zip_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string zip = fuzz::zip_from_input(data, size);
  fuzz::guarded([&] {
    fuzz::inspect(
        ti::open_npz(fuzz::file_of(reinterpret_cast<const std::uint8_t*>(zip.data()), zip.size(), "fuzz.npz")));
  });
  return 0;
}
