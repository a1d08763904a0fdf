// fuzz/fuzz_expr_realize.cpp — expressions realized over small tensors: the frontend,
// scheduler and executor on every dtype.
//   byte 0  dtype of x (mod the 15 concrete dtypes)
//   byte 1  shape of x: bits 0-1 ndim (0..3), each further 2 bits one dim (0..3)
//   then    the bytes of x (C order; short input is zero-filled), then the expression
#include <cstring>

#include "harness.hpp"
#include "tensor_inspect/expr.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const auto dtype = static_cast<ti::DType>(data[0] % (ti::kDTypeCount - 2));
  ti::Shape shape;
  const unsigned ndim = data[1] & 3u;
  for (unsigned i = 0; i < ndim; ++i) shape.push_back((data[1] >> (2 + 2 * i)) & 3);
  const std::size_t nbytes = static_cast<std::size_t>(ti::prod(shape)) * ti::dtype_info(dtype).itemsize;
  std::size_t at = 2;
  auto buf = ti::Buffer::cpu(nbytes);
  const std::size_t have = std::min(nbytes, size - at);
  if (have) std::memcpy(buf->mutable_bytes().data(), data + at, have);
  at += have;
  const std::string_view expr = fuzz::text_of(data + at, size - at);
  fuzz::guarded([&] {
    const ti::Tensor x = ti::Tensor::from_buffer(buf, dtype, shape);
    fuzz::realize_and_render(ti::evaluate_expression(expr, x, {}));
  });
  return 0;
}
