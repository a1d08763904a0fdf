// loaders/onnx_values.hpp — how one ONNX initializer's values reach the engine: a slice of
// the mapped model (raw_data, a packed float_data or double_data), a slice of the external
// file it names (mapped when first loaded, once per file), or the varints of a typed field
// decoded into a CPU buffer (int32_data holding the 8- and 16-bit types as onnx.proto says).
//
//   OnnxExternalFiles ext = onnx_external_files(file);
//   set_onnx_values(entry, tensor, file, ext);   // entry.load() then reads the values
#pragma once

#include <memory>

#include "loaders/onnx_model.hpp"
#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

class OnnxExternal;
/// The external files of one model, opened on first use and shared by its tensors.
using OnnxExternalFiles = std::shared_ptr<OnnxExternal>;

/// An empty cache for the model `file` (its folder is where locations are resolved).
OnnxExternalFiles onnx_external_files(const std::shared_ptr<const MappedFile>& model);

/// Sets how `e` (name, dtype and shape already set from `t`) loads its values. Loading an
/// external tensor throws Error(Io) naming the model, the tensor and the location when the
/// file cannot be read, Error(BadFile) when offset and size run past its end.
void set_onnx_values(TensorEntry& e, const OnnxTensor& t, const std::shared_ptr<const MappedFile>& model,
                     const OnnxExternalFiles& external);

}  // namespace tensor_inspect
