// loaders/onnx_values.cpp — an initializer's values, where onnx/onnx's onnx.proto puts
// them (TensorProto: raw_data, the typed fields, external_data) and as onnx's own
// numpy_helper.to_array reads them: raw_data little-endian and fixed-width; a typed field's
// values cast to the data type (the low bytes of each int32 for INT8..UINT16, the bit
// pattern of FLOAT16, BFLOAT16 and FLOAT8; nonzero is True for BOOL); external data at
// "offset" in "location", relative to the model's folder.
#include "loaders/onnx_values.hpp"

#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "loaders/onnx_types.hpp"
#include "loaders/onnx_wire.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

class OnnxExternal {
 public:
  explicit OnnxExternal(std::shared_ptr<const MappedFile> model) : model_(std::move(model)) {}
  /// The external file `location` names, mapped once.
  std::shared_ptr<const MappedFile> open(const std::string& tensor, const std::string& location) {
    const std::lock_guard<std::mutex> lock(mutex_);
    auto it = files_.find(location);
    if (it != files_.end()) return it->second;
    if (model_->location().empty())
      throw Error(ErrorCode::Io,
                  model_->name() + ": tensor '" + tensor + "' is in external file '" + location +
                      "', which cannot be found for a model not read from a path",
                  {model_->name(), tensor, std::nullopt, ""});
    const std::filesystem::path dir = std::filesystem::path(model_->location()).parent_path();
    std::shared_ptr<const MappedFile> file;
    try {
      file = MappedFile::open((dir / location).string());
    } catch (const Error& e) {
      throw Error(ErrorCode::Io,
                  model_->name() + ": tensor '" + tensor + "' is in external file '" + location +
                      "', which cannot be read (" + e.what() + ")",
                  {model_->name(), tensor, std::nullopt, ""});
    }
    files_.emplace(location, file);
    return file;
  }

 private:
  std::shared_ptr<const MappedFile> model_;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const MappedFile>> files_;
};

OnnxExternalFiles onnx_external_files(const std::shared_ptr<const MappedFile>& model) {
  return std::make_shared<OnnxExternal>(model);
}

namespace {

/// Decodes the typed field's records of `t` into a CPU buffer of `dtype` elements.
std::shared_ptr<Buffer> onnx_decode_typed(const OnnxTensor& t, DType dtype,
                                          const std::shared_ptr<const MappedFile>& model) {
  const std::size_t itemsize = dtype_info(dtype).itemsize;
  std::shared_ptr<Buffer> out = Buffer::cpu(static_cast<std::size_t>(t.numel) * itemsize);
  std::byte* dst = out->mutable_bytes().data();
  const std::span<const std::byte> bytes = model->bytes();
  const bool varints =
      t.typed_field == kOnnxInt32Data || t.typed_field == kOnnxInt64Data || t.typed_field == kOnnxUint64Data;
  const auto put = [&](std::uint64_t v) {
    if (dtype == DType::Bool) v = static_cast<std::uint32_t>(v) != 0;
    std::memcpy(dst, &v, itemsize);  // the low bytes, on a little-endian host
    dst += itemsize;
  };
  std::vector<std::uint64_t> values;
  for (const OnnxRun& run : t.typed) {
    if (!run.packed) {
      put(run.value);
    } else if (varints) {
      values.resize(static_cast<std::size_t>(run.count));
      try {
        wire_decode_varints(bytes, run.begin, run.end, values);
      } catch (const WireError& e) {
        throw Error(ErrorCode::BadFile, model->name() + ": initializer '" + t.name +
                                            "': " + std::string(onnx_typed_field_name(t.typed_field)) + ": " +
                                            e.message + " at byte " + std::to_string(e.at));
      }
      for (std::uint64_t v : values) put(v);
    } else {
      const std::size_t n = static_cast<std::size_t>(run.end - run.begin);
      fetch_bytes(bytes.subspan(static_cast<std::size_t>(run.begin), n));
      std::memcpy(dst, bytes.data() + run.begin, n);  // packed float/double: already little-endian values
      dst += n;
    }
  }
  return out;
}

}  // namespace

void set_onnx_values(TensorEntry& e, const OnnxTensor& t, const std::shared_ptr<const MappedFile>& model,
                     const OnnxExternalFiles& external) {
  const OnnxType& type = *onnx_type(t.data_type);
  const std::string tensor = t.name;
  if (t.segment || !type.dtype) {
    const std::string why = t.segment ? "is one segment of a tensor stored in chunks, which this tool does not join"
                                      : "has data type " + std::string(type.name) + ", " + std::string(type.why_not);
    if (t.has_raw && !t.segment) {
      e.offset = t.raw_begin;
      e.details_for_write().blocks_file = model;  // diff compares the stored bytes
    }
    e.details_for_write().loader = [name = model->name(), tensor, why]() -> Tensor {
      throw Error(ErrorCode::Unsupported, name + ": initializer '" + tensor + "' " + why);
    };
    return;
  }
  const DType dtype = *type.dtype;
  if (t.external) {
    e.note = "external data in " + t.location;
    e.offset = t.external_offset;
    e.details_for_write().loader = [external, name = model->name(), tensor, location = t.location,
                                    offset = t.external_offset, nbytes = t.nbytes, dtype, shape = e.shape]() {
      std::shared_ptr<const MappedFile> file = external->open(tensor, location);
      if (offset > file->size() || nbytes > file->size() - offset)
        throw Error(ErrorCode::BadFile, name + ": initializer '" + tensor + "': external data [" +
                                            std::to_string(offset) + ", +" + std::to_string(nbytes) +
                                            ") runs past the end of '" + location + "' (" +
                                            std::to_string(file->size()) + " bytes)");
      return Tensor::from_buffer(Buffer::disk(file, offset, nbytes), dtype, shape);
    };
    return;
  }
  if (t.has_raw || t.numel == 0) {
    e.file = model;  // a plain slice of the model, read in place
    e.offset = t.raw_begin;
    return;
  }
  const bool fixed = t.typed_field == kOnnxFloatData || t.typed_field == kOnnxDoubleData;
  e.note = "in " + std::string(onnx_typed_field_name(t.typed_field));
  if (fixed && t.typed.size() == 1 && t.typed[0].packed) {
    e.file = model;  // one packed run of little-endian floats or doubles: a slice too
    e.offset = t.typed[0].begin;
    return;
  }
  e.offset = t.typed.empty() ? 0 : t.typed[0].begin;
  e.details_for_write().loader = [t, dtype, model, shape = e.shape]() {
    return Tensor::from_buffer(onnx_decode_typed(t, dtype, model), dtype, shape);
  };
}

}  // namespace tensor_inspect
