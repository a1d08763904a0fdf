// memoryview/stored_elements.cpp — finding the stored bytes behind a lazy tensor, so the
// memoryview, a scan or a hash reads the memory map in place instead of realizing a copy.
#include "tensor_inspect/stored_elements.hpp"

#include <variant>

#include "tensor_inspect/graph.hpp"

namespace tensor_inspect {

std::optional<StoredElements> stored_elements(const Tensor& t, bool fetch) {
  const DType values = t.dtype();
  if (is_weak(values)) return std::nullopt;
  const std::size_t itemsize = dtype_info(values).itemsize;
  bool c_order = true, swapped = false;
  const Node* n = t.node().get();
  // Walk down through ops that neither drop, repeat nor change element values beyond a
  // reinterpretation of their bytes: every element of the buffer is one element of t.
  while (n->op != Op::Buffer) {
    switch (n->op) {
      case Op::Reshape:
      case Op::Contiguous: break;
      case Op::Permute:
      case Op::Flip: c_order = false; break;
      case Op::Bitcast:
        if (dtype_info(n->src.at(0)->dtype).itemsize != itemsize) return std::nullopt;
        break;
      case Op::ByteSwap: swapped = !swapped; break;
      default: return std::nullopt;
    }
    n = n->src.at(0).get();
  }
  const auto& buffer = std::get<std::shared_ptr<Buffer>>(n->arg);
  if (dtype_info(n->dtype).itemsize != itemsize || buffer->nbytes() != static_cast<std::uint64_t>(t.numel()) * itemsize)
    return std::nullopt;
  StoredElements s;
  s.bytes = fetch ? buffer->bytes() : buffer->bytes_unfetched();
  s.stored = values;
  s.swap_bytes = swapped && itemsize > 1;
  s.numel = t.numel();
  s.shape = t.shape();
  s.c_order = c_order;
  s.file = buffer->file();
  s.keep = buffer;
  return s;
}

}  // namespace tensor_inspect
