// loaders/byte_order.cpp — big-endian stored data made native, lazily.
#include "loaders/formats.hpp"

namespace tensor_inspect {

Tensor tensor_from_stored(std::shared_ptr<Buffer> buffer, DType dtype, const Shape& shape, bool big_endian) {
  const std::size_t itemsize = dtype_info(dtype).itemsize;
  if (!big_endian || itemsize == 1) return Tensor::from_buffer(std::move(buffer), dtype, shape);
  // Read the stored bits as the unsigned int of the same size, reverse each element's
  // bytes, and reinterpret: all element-wise, so a slice swaps only what it reads.
  const DType bits = itemsize == 2 ? DType::UInt16 : itemsize == 4 ? DType::UInt32 : DType::UInt64;
  Tensor t = Tensor::from_buffer(std::move(buffer), bits, shape).byteswap();
  return bits == dtype ? t : t.bitcast(dtype);
}

}  // namespace tensor_inspect
