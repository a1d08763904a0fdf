// loaders/raw.cpp — raw bytes read as numpy.frombuffer reads them.
//
// Byte layout (there is no header; the user names everything):
//   1. `offset` bytes that are skipped,
//   2. the data: prod(shape) elements of `dtype`, C order, in the byte order asked for.
// Without a shape the data is one axis whose length is (file size - offset) / itemsize,
// and the length must divide exactly (numpy: "buffer size must be a multiple of element
// size"). An empty remainder is the shape (0,), as np.frombuffer(b'', np.uint8) gives.
#include <string>

#include "loaders/byte_reader.hpp"
#include "loaders/formats.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

namespace {

/// numpy's descr for the dtype in the given byte order ("<f4", ">i8", "|u1"), or the
/// tinygrad name when numpy has no such dtype (bfloat16, fp8).
std::string raw_stored_type(const DTypeInfo& info, bool big_endian) {
  if (info.numpy_kind.empty()) return std::string(info.name);
  const char order = info.itemsize == 1 ? '|' : (big_endian ? '>' : '<');
  return order + std::string(info.numpy_kind);
}

}  // namespace

LoadedFile open_raw(std::shared_ptr<const MappedFile> file, const RawOptions& options) {
  const std::string& name = file->name();
  if (is_weak(options.dtype))
    throw Error(ErrorCode::BadDType, name + ": raw data needs a concrete dtype, not " +
                                         std::string(dtype_info(options.dtype).name));
  const DTypeInfo& info = dtype_info(options.dtype);
  const std::uint64_t itemsize = info.itemsize;
  const std::uint64_t size = file->size();
  if (options.offset > size)
    throw Error(ErrorCode::BadFile, name + ": offset " + std::to_string(options.offset) +
                                        " is past the end of the file (" + std::to_string(size) + " bytes)");
  const std::uint64_t length = size - options.offset;

  Shape shape;
  if (options.shape) {
    shape = *options.shape;
    std::uint64_t numel = 1;
    for (std::int64_t d : shape) {
      if (d < 0)
        throw Error(ErrorCode::BadShape, name + ": raw shape " + shape_repr(shape) + " has a negative dimension");
      numel = checked_mul(numel, static_cast<std::uint64_t>(d), name, "raw shape " + shape_repr(shape));
    }
    const std::uint64_t need = checked_mul(numel, itemsize, name, "raw shape " + shape_repr(shape));
    if (need != length)
      throw Error(ErrorCode::BadFile, name + ": shape " + shape_repr(shape) + " of " + std::string(info.name) +
                                          " needs " + std::to_string(need) + " bytes, but " + std::to_string(length) +
                                          " bytes follow offset " + std::to_string(options.offset));
  } else {
    if (length % itemsize != 0)
      throw Error(ErrorCode::BadFile, name + ": " + std::to_string(length) + " bytes after offset " +
                                          std::to_string(options.offset) + " is not a multiple of itemsize " +
                                          std::to_string(itemsize));
    shape = {static_cast<std::int64_t>(length / itemsize)};
  }

  const bool swap = options.big_endian && itemsize > 1 && length > 0;
  TensorEntry entry;
  entry.name = "";
  entry.stored_type = raw_stored_type(info, options.big_endian);
  entry.dtype = options.dtype;
  entry.shape = shape;
  entry.details_for_write().stored_shape = shape;
  entry.offset = options.offset;
  entry.nbytes = length;
  if (options.big_endian && itemsize > 1) entry.note = "big-endian, converted to native order";
  const DType dtype = options.dtype;
  const std::uint64_t offset = options.offset;
  entry.details_for_write().loader = [file, dtype, shape, offset, length, swap]() {
    return tensor_from_stored(Buffer::disk(file, offset, length), dtype, shape, swap);
  };

  LoadedFile out;
  out.path = name;
  out.format = "raw";
  out.tensors.push_back(std::move(entry));
  out.file = std::move(file);
  return out;
}

}  // namespace tensor_inspect
