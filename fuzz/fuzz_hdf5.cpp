// fuzz/fuzz_hdf5.cpp — HDF5 files (loaders/hdf5*.cpp) through libhdf5's file-image API,
// as every HDF5 input is read: the input's bytes are the image. Opened by the loader (the
// first fault throws, then datasets are realized: in place, or decoded by libhdf5) and by
// validate's checker (every fault collected, chunked data read whole).
//
// NOTE: libhdf5 is not instrumented (Debian's build): ASan sees its reads of the image only
// where they land in our mapping, and a fault inside libhdf5 itself is a crash of libhdf5,
// reported as such. The harness still checks everything of ours it reaches.
#include "harness.hpp"
#include "loaders/formats.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/validate.hpp"

// libhdf5 allocates a chunk whole to read any of it: a few bytes may declare a 1 GiB chunk
// (the default cap), which would pass libFuzzer's memory limit without being a finding.
static const bool kSmallChunks = [] {
  ti::Limits l = ti::limits();
  l.hdf5_chunk_bytes = std::uint64_t{16} << 20;
  ti::set_limits(l);
  return true;
}();

// libhdf5 mallocs sizes read from the file's metadata (H5C_protect: a metadata entry's
// declared length) and takes NULL for an answer; ASan's default aborts on a request over its
// maximum instead of returning NULL, which would report libhdf5's checked malloc as a crash.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)kSmallChunks;
  const auto file = fuzz::file_of(data, size, "fuzz.h5");
  fuzz::guarded([&] { fuzz::inspect(ti::open_hdf5(file)); });
  fuzz::guarded([&] { (void)ti::validate_file(file); });
  return 0;
}
