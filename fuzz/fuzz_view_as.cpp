// fuzz/fuzz_view_as.cpp — memoryview.cast chains (--view-as) over Tensor.data().
//   byte 0  dtype of the tensor (mod the 15 concrete dtypes), byte 1 its byte count (<= 64)
//   then    that many bytes (one axis of nbytes / itemsize elements, truncated)
//   then    casts, each: format char, ndim (mod 4; 3 means no shape argument), ndim dims
#include <cstring>

#include "harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const auto dtype = static_cast<ti::DType>(data[0] % (ti::kDTypeCount - 2));
  const std::size_t isz = ti::dtype_info(dtype).itemsize;
  const std::size_t want = std::min<std::size_t>(data[1] % 65, size - 2) / isz * isz;
  auto buf = ti::Buffer::cpu(want);
  if (want) std::memcpy(buf->mutable_bytes().data(), data + 2, want);
  std::size_t at = 2 + want;
  fuzz::guarded([&] {
    ti::MemoryView mv =
        fuzz::realize_capped(ti::Tensor::from_buffer(buf, dtype, {static_cast<std::int64_t>(want / isz)}));
    while (size - at >= 2) {
      const char fmt = static_cast<char>(data[at]);
      const unsigned ndim = data[at + 1] % 4u;
      at += 2;
      std::optional<ti::Shape> shape;
      if (ndim != 3) {
        if (size - at < ndim) break;
        ti::Shape s;
        for (unsigned i = 0; i < ndim; ++i) s.push_back(static_cast<std::int8_t>(data[at++]));
        shape = s;
      }
      mv = ti::cast_view(mv, fmt, shape);
      fuzz::render(mv);
    }
  });
  return 0;
}
