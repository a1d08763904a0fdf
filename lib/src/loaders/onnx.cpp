// loaders/onnx.cpp — ONNX models (onnx/onnx, onnx/onnx.proto): the initializers of the
// graph and its subgraphs as tensors, named as the model names them, in file order; the
// model's header fields as metadata. The byte layout is in onnx_model.hpp, the data types
// in onnx_types.hpp, where values come from in onnx_values.hpp. Listing reads the
// structure only: raw_data is never copied and external files are not opened until a
// tensor's values are asked for.
#include "loaders/formats.hpp"
#include "loaders/onnx_model.hpp"
#include "loaders/onnx_types.hpp"
#include "loaders/onnx_values.hpp"

namespace tensor_inspect {

LoadedFile open_onnx(std::shared_ptr<const MappedFile> file) {
  const OnnxModel model =
      parse_onnx(file->bytes(), OnnxFaults(file->name()),
                 [&file](std::uint64_t begin, std::uint64_t end) { file->release_pages(begin, end - begin); });
  LoadedFile out;
  out.path = file->name();
  out.format = "onnx";
  out.file = file;
  const auto meta = [&](std::string key, std::string type, nlohmann::ordered_json value) {
    out.metadata.push_back(MetaEntry{std::move(key), std::move(type), std::move(value)});
  };
  if (model.ir_version) meta("ir_version", "int64", *model.ir_version);
  if (!model.producer_name.empty()) meta("producer_name", "string", model.producer_name);
  if (!model.producer_version.empty()) meta("producer_version", "string", model.producer_version);
  if (!model.domain.empty()) meta("domain", "string", model.domain);
  if (model.model_version) meta("model_version", "int64", *model.model_version);
  if (!model.graph_name.empty()) meta("graph.name", "string", model.graph_name);
  for (const auto& [domain, version] : model.opset_import)
    meta("opset_import." + (domain.empty() ? std::string("ai.onnx") : domain), "int64", version);
  for (const auto& [key, value] : model.metadata_props) meta("metadata_props." + key, "string", value);
  if (model.sparse_initializers > 0)
    out.warnings.push_back(file->name() + ": " + std::to_string(model.sparse_initializers) + " sparse initializer" +
                           (model.sparse_initializers == 1 ? " is" : "s are") +
                           " not listed (their values need densifying)");

  const OnnxExternalFiles external = onnx_external_files(file);
  out.tensors.reserve(model.initializers.size());
  for (const OnnxTensor& t : model.initializers) {
    const OnnxType& type = *onnx_type(t.data_type);  // parse_onnx checked it
    TensorEntry e;
    e.name = t.name;
    e.stored_type = std::string(type.name);
    e.dtype = type.dtype;
    e.shape = Shape(t.dims.begin(), t.dims.end());
    e.nbytes = t.nbytes;
    set_onnx_values(e, t, file, external);
    out.tensors.push_back(std::move(e));
  }
  return out;
}

}  // namespace tensor_inspect
