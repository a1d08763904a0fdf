// stats/scan_source.cpp — the sources a scan reads: a tensor's stored elements in place or
// realized (scan_source), GGUF blocks (gguf_blocks_source).
#include "decode/ggml_types.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/realize.hpp"
#include "tensor_inspect/stats.hpp"

namespace tensor_inspect {

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
