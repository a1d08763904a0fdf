// loaders/decoded_tensor.cpp — a Producer over a range decoder (see decoded_tensor.hpp),
// shaped as GGUF's dequantizing producer (gguf.cpp make_loader): `fill` for a realize,
// `element` for a slice read element by element, `float_range` for runs on loop threads.
#include "loaders/decoded_tensor.hpp"

#include <algorithm>
#include <cassert>

namespace tensor_inspect {

namespace {
constexpr std::size_t kRun = 256;  // floats decoded per step where the output is not float32
}  // namespace

Tensor decoded_tensor(std::string label, const Shape& shape, RangeDecode decode, std::function<void()> fetch) {
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
  return Tensor::from_producer(producer, DType::Float32, shape);
}

}  // namespace tensor_inspect
