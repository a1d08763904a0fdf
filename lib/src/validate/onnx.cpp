// validate/onnx.cpp — ONNX models, read by the loader's own parser (loaders/onnx_model.hpp)
// collecting every fault: the protobuf wire format of every message walked (onnx.structure),
// protobuf's 2 GiB cap (onnx.size), ir_version set (onnx.ir_version, a warning), and each
// initializer: a name (onnx.name), given once (onnx.duplicate_name), a known data_type
// (onnx.data_type), dims of non-negative sizes (onnx.dims), its elements in one field of
// its type (onnx.data_field), as many as dims ask (onnx.raw_data_size, onnx.data_size),
// external data at a location inside the model's folder with a length that fits
// (onnx.external_data); the caps (onnx.limit). Sparse initializers are a note (not read).
// Whether each external file exists and holds the bytes is the loader's check, run after.
#include "loaders/onnx_model.hpp"
#include "validate/findings.hpp"

namespace tensor_inspect::validate {

void check_onnx(std::span<const std::byte> bytes, Findings& f) {
  const OnnxFaults collect("onnx", [&f](const OnnxFault& x) {
    if (x.warning)
      f.warning(x.rule, x.place, x.at, x.message);
    else
      f.error(x.rule, x.place, x.at, x.message);
  });
  const OnnxModel model = parse_onnx(bytes, collect);
  if (model.sparse_initializers > 0)
    f.note("unsupported", "graph", std::nullopt,
           std::to_string(model.sparse_initializers) + " sparse initializer" +
               (model.sparse_initializers == 1 ? "" : "s") + ", which this tool does not list");
}

}  // namespace tensor_inspect::validate
