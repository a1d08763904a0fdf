// loaders/decoded_tensor.cpp — a Producer over a range decoder (see decoded_tensor.hpp),
// shaped as GGUF's dequantizing producer (gguf.cpp make_loader): `fill` for a realize,
// `element` for a slice read element by element, `float_range` for runs on loop threads.
#include "loaders/decoded_tensor.hpp"

#include <algorithm>
#include <cassert>

namespace tensor_inspect {

namespace {
constexpr std::size_t kRun = 256;  // floats decoded per step where the output is not float32
// Bytes either side of a run's proportional bounds that its neighbours may read: more than
// any word or block a scheme packs its codes in (MXFP4's 16-byte blocks, 4-byte words).
constexpr std::uint64_t kSharedMargin = 256;
}  // namespace

Tensor decoded_tensor(std::string label, const Shape& shape, RangeDecode decode, std::function<void()> fetch,
                      RangeRelease release) {
  fetch();
  auto producer = std::make_shared<Producer>();
  producer->label = std::move(label);
  producer->fill = [decode, fetch](std::span<std::byte> out) {
    fetch();
    assert(out.size() % sizeof(float) == 0);
    // Producer buffers are allocated for float32 elements and aligned for them.
    decode(0, std::span(reinterpret_cast<float*>(out.data()), out.size() / sizeof(float)));
  };
  producer->element = [decode](std::int64_t i) {
    float v = 0.0f;
    decode(i, std::span(&v, 1));
    return Scalar::from_float(static_cast<double>(v));
  };
  producer->float_range = [decode](std::int64_t first, std::span<double> out) {
    float run[kRun];
    for (std::size_t done = 0; done < out.size();) {
      const std::size_t n = std::min(kRun, out.size() - done);
      decode(first + static_cast<std::int64_t>(done), std::span(run, n));
      for (std::size_t k = 0; k < n; ++k) out[done + k] = static_cast<double>(run[k]);
      done += n;
    }
  };
  producer->float32_range = decode;
  producer->release_scanned = std::move(release);
  return Tensor::from_producer(producer, DType::Float32, shape);
}

RangeRelease release_in_order(std::shared_ptr<const MappedFile> file, std::uint64_t offset, std::uint64_t nbytes,
                              std::int64_t numel) {
  if (numel <= 0) return {};
  return [file = std::move(file), offset, nbytes, numel](std::int64_t first, std::int64_t last) {
    __extension__ using Wide = unsigned __int128;  // elements times bytes overflows 64 bits
    const auto at = [&](std::int64_t e) {
      return static_cast<std::uint64_t>(static_cast<Wide>(e) * nbytes / static_cast<std::uint64_t>(numel));
    };
    const std::uint64_t begin = first <= 0 ? 0 : at(first) + kSharedMargin;
    const std::uint64_t end = last >= numel ? nbytes : at(last) - std::min(at(last), kSharedMargin);
    if (end > begin) file->release_pages(offset + begin, end - begin);  // the whole pages inside
  };
}

RangeRelease release_in_slabs(std::shared_ptr<const MappedFile> file, std::uint64_t offset, std::uint64_t nbytes,
                              std::int64_t numel, std::int64_t slabs) {
  if (numel <= 0 || slabs <= 0 || numel % slabs != 0) return {};
  return [file = std::move(file), offset, nbytes, numel, slabs](std::int64_t first, std::int64_t last) {
    const std::int64_t per = numel / slabs, k0 = (first + per - 1) / per, k1 = last / per;
    if (k1 <= k0) return;
    const auto slab_bytes = nbytes / static_cast<std::uint64_t>(slabs);
    file->release_pages(offset + static_cast<std::uint64_t>(k0) * slab_bytes,
                        static_cast<std::uint64_t>(k1 - k0) * slab_bytes);
  };
}

}  // namespace tensor_inspect
