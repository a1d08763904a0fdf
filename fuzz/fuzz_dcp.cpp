// fuzz/fuzz_dcp.cpp — torch.distributed.checkpoint .metadata pickles (loaders/dcp*.cpp):
// the allow-listed decode through both policies of its one reader (loading: the first
// fault throws; validate's: every fault collected), the chunk tiling check on the grid the
// chunks cut, and the listing open_dcp makes. The input is named inside a folder that does
// not exist, so loading a tensor looks for its .distcp file there and fails with Error: the
// harness never reads the disk.
#include "harness.hpp"
#include "loaders/dcp_metadata.hpp"
#include "loaders/formats.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto file = fuzz::file_of(data, size, "/nonexistent-fuzz-dcp/.metadata");
  fuzz::guarded([&] { fuzz::inspect(ti::open_dcp(file)); });
  fuzz::guarded([&] {
    std::size_t faults = 0;
    (void)ti::parse_dcp_metadata(file->bytes(), file->name(), [&faults](const ti::DcpFault&) { ++faults; });
  });
  return 0;
}
