// loaders/tensor_entry.cpp — TensorEntry::load(): the lazy tensor of one listed entry.
// A plain slice of the file (safetensors) is built from the entry's own fields on demand,
// so a listing of many tensors keeps no closure, no second shape and no allocation per
// entry for it; formats that need more (byte swaps, Fortran order, zip members, GGUF
// blocks) set `loader`.
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

Tensor TensorEntry::load() const {
  if (loader) return loader();
  if (!file || !dtype) throw Error(ErrorCode::Internal, "tensor '" + name + "' has no loader");
  return Tensor::from_buffer(Buffer::disk(file, offset, nbytes), *dtype, shape);
}

}  // namespace tensor_inspect
