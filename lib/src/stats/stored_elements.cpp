// stats/stored_elements.cpp — finding the stored bytes behind a lazy tensor, so a scan
// reads the memory map in place instead of realizing a copy.
#include <bit>

#include "decode/ggml_types.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/realize.hpp"
#include "tensor_inspect/stats.hpp"

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

StoredElements scan_source(const Tensor& input, const Defaults& defaults) {
  Tensor t = input.cast(commit_dtype(input.dtype(), defaults));
  if (auto s = stored_elements(t)) return *s;
  if (t.numel() == 0) {
    StoredElements s;
    s.stored = t.dtype();
    s.shape = t.shape();
    return s;
  }
  NodePtr done = realize(t.contiguous().node());
  auto s = stored_elements(Tensor(done));
  if (!s) throw Error(ErrorCode::Internal, "internal: realize did not give a buffer");
  s->shape = t.shape();
  return *s;
}

StoredElements gguf_blocks_source(std::span<const std::byte> bytes, std::uint32_t ggml_type, const Shape& shape,
                                  std::shared_ptr<const MappedFile> file) {
  const GgmlType* type = ggml_type_from_id(ggml_type);
  if (!type) throw Error(ErrorCode::Unsupported, ggml_unknown_type_reason(ggml_type));
  if (!type->dequantizable)
    throw Error(ErrorCode::Unsupported, std::string(type->name) + " cannot be dequantized: " +
                                            std::string(ggml_refusal_reason(*type)));
  const std::int64_t numel = prod(shape);
  if (numel % type->block_elems != 0 ||
      bytes.size() != static_cast<std::uint64_t>(numel) / type->block_elems * type->block_bytes)
    throw Error(ErrorCode::BadFile, std::string(type->name) + " data of " + std::to_string(bytes.size()) +
                                        " bytes does not hold whole blocks for shape " + shape_repr(shape));
  StoredElements s;
  s.bytes = bytes;
  s.stored = DType::Float32;
  s.ggml_type = ggml_type;
  s.numel = numel;
  s.shape = shape;
  s.file = std::move(file);
  return s;
}

}  // namespace tensor_inspect
