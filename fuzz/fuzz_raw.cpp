// fuzz/fuzz_raw.cpp — raw bytes as numpy.frombuffer reads them (loaders/raw.cpp).
//   byte 0  dtype (mod the 17 dtypes: weak ones must be refused), bit 7 of byte 1 big-endian
//   byte 1  bits 0-1: ndim of an explicit shape (0: none), bits 2-6: the offset
//   then    one byte per dim of the shape, then the file's bytes
#include "harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  ti::RawOptions o;
  o.dtype = static_cast<ti::DType>(data[0] % ti::kDTypeCount);
  o.big_endian = (data[1] & 0x80) != 0;
  o.offset = (data[1] >> 2) & 0x1f;
  const unsigned ndim = data[1] & 3u;
  std::size_t at = 2;
  if (ndim) {
    if (size - at < ndim) return 0;
    ti::Shape s;
    for (unsigned i = 0; i < ndim; ++i) s.push_back(data[at++]);
    o.shape = s;
  }
  fuzz::guarded([&] { fuzz::inspect(ti::open_raw(fuzz::file_of(data + at, size - at, "fuzz.bin"), o)); });
  return 0;
}
