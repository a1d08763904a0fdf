// loaders/onnx_model.hpp — the one parser of ONNX models, for loading and for validate.
//
// Byte layout (onnx/onnx, onnx/onnx.proto; field numbers in brackets): a ModelProto with no
// magic and no framing, fields in any order, each a protobuf record (onnx_wire.hpp):
//   1. ModelProto: ir_version [1], producer_name [2], producer_version [3], domain [4],
//      model_version [5], graph [7], opset_import [8] (domain [1], version [2]),
//      metadata_props [14] (key [1], value [2]); the rest is skipped by its length,
//   2. GraphProto: node [1], name [2], initializer [5] (TensorProto), sparse_initializer [15],
//   3. NodeProto: attribute [5]; AttributeProto: t [5] (a Constant's value: no weight, not
//      read), g [6] and graphs [11] (the subgraphs of If, Loop and Scan, whose initializers
//      are weights as the main graph's are),
//   4. TensorProto: dims [1], data_type [2], segment [3], the typed fields (onnx_types.hpp),
//      name [8], raw_data [9], external_data [13] (location, offset, length, checksum, as
//      strings), data_location [14] (EXTERNAL = 1).
// A message is at most 2 GiB - 1 bytes (protobuf's cap): weights past it live in external
// files, named relative to the model's folder. Caps (limits.hpp): initializers
// (Limits::onnx_initializers), dims of one tensor (onnx_dims), bytes of a name or external
// data string (onnx_string_bytes), nesting of subgraphs (onnx_graph_depth). Payloads are
// located, never copied: raw_data of a 1 GB model is not read to list it.
//
// Two policies over one walk, as pytorch_legacy.hpp has them: loading stops at the first
// fault (Error(BadFile) naming the file, the place and the byte), validate collects every
// fault and reads on past a broken message where its enclosing lengths allow.
//
//   OnnxFaults stop("model.onnx");
//   OnnxModel m = parse_onnx(file->bytes(), stop);
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

/// One fault of a model, as validate records it.
struct OnnxFault {
  std::string rule;      ///< validate's rule name without "onnx.": "structure", "raw_data_size"
  std::string place;     ///< "model", "initializer 'w'"
  std::uint64_t at = 0;  ///< file byte
  std::string message;   ///< what is wrong, without the file name and byte
  bool warning = false;  ///< the model loads all the same
  std::string limit;     ///< the cap hit (a Limits field), for rule "limit": the Error is LimitExceeded
};

/// The policy: the first fault throws (loading), or every fault goes to a sink (validate).
class OnnxFaults {
 public:
  /// Loading: a fault throws Error(BadFile) "<name>: <place>: <message> at byte <at>".
  explicit OnnxFaults(std::string name) : name_(std::move(name)) {}
  /// Validate: every fault goes to `sink`.
  OnnxFaults(std::string name, std::function<void(const OnnxFault&)> sink)
      : name_(std::move(name)), sink_(std::move(sink)) {}
  bool collecting() const { return static_cast<bool>(sink_); }
  const std::string& name() const { return name_; }
  /// Reports a fault; returns only when collecting or for a warning.
  void operator()(const OnnxFault& f) const {
    if (sink_) return sink_(f);
    if (f.warning) return;
    throw Error(f.limit.empty() ? ErrorCode::BadFile : ErrorCode::LimitExceeded,
                name_ + ": " + f.place + ": " + f.message + " at byte " + std::to_string(f.at),
                {name_, "", f.at, f.limit});
  }

 private:
  std::string name_;
  std::function<void(const OnnxFault&)> sink_;
};

/// One record of a typed field: a packed run of elements, or one element stored unpacked.
struct OnnxRun {
  std::uint64_t begin = 0, end = 0;  ///< file bytes of the packed payload (packed only)
  std::uint64_t count = 0;           ///< elements it holds
  std::uint64_t value = 0;           ///< the element's bits (unpacked only)
  bool packed = false;
};

/// One initializer as its TensorProto describes it.
struct OnnxTensor {
  std::string name;
  std::uint64_t at = 0;        ///< file byte of the TensorProto's tag
  std::int64_t data_type = 0;  ///< TensorProto.DataType
  std::vector<std::int64_t> dims;
  bool has_raw = false;  ///< raw_data is set: its bytes are [raw_begin, raw_end)
  std::uint64_t raw_begin = 0, raw_end = 0;
  std::uint32_t typed_field = 0;  ///< the typed field that holds elements (0: none)
  std::vector<OnnxRun> typed;     ///< its records in file order
  std::uint64_t typed_count = 0;  ///< elements in them
  bool external = false;          ///< data_location is EXTERNAL
  std::string location;           ///< external_data's "location"
  std::uint64_t external_offset = 0;
  std::optional<std::uint64_t> external_length;
  bool segment = false;     ///< one segment of a tensor stored in chunks (not read: onnx's numpy_helper refuses it too)
  std::uint64_t numel = 0;  ///< product of dims
  std::uint64_t nbytes = 0;  ///< numel elements of data_type, fixed width (0 for STRING)
  bool usable = false;       ///< passed every check: a loader may build it
};

/// What the parser read.
struct OnnxModel {
  std::optional<std::int64_t> ir_version, model_version;
  std::string producer_name, producer_version, domain, graph_name;
  std::vector<std::pair<std::string, std::int64_t>> opset_import;   ///< (domain, version)
  std::vector<std::pair<std::string, std::string>> metadata_props;  ///< (key, value)
  std::vector<OnnxTensor> initializers;   ///< the main graph's in file order, then its subgraphs' in file order
  std::uint64_t sparse_initializers = 0;  ///< not listed: sparse values need densifying
};

/// Called with the file bytes [begin, end) of each initializer once it is read, so that a
/// caller holding a file mapping can drop its pages (MappedFile::release_pages).
using OnnxRelease = std::function<void(std::uint64_t begin, std::uint64_t end)>;

/// Parses a whole model from `bytes`, reporting faults to `faults`: the wire format, each
/// initializer's name (set, unique), data_type, dims, where its data is (raw_data, one typed
/// field of its type, or external_data with a location inside the model's folder) and that
/// its size fits dims; the caps of onnx_model.hpp's header. NOTE: reading one byte of a file
/// mapping maps the whole page-cache folio around it (up to 2 MiB on kernels with large
/// folios), so a walk touching each initializer's header grew the resident set by 176 MB on a
/// 500 MB model; `release` lets the caller drop those pages as the walk leaves them.
OnnxModel parse_onnx(std::span<const std::byte> bytes, const OnnxFaults& faults, const OnnxRelease& release = {});

/// Parses one TensorProto, the payload [begin, end) of the record at `at` (onnx_tensor.cpp),
/// reporting faults as parse_onnx does; `usable` says whether it passed them.
OnnxTensor parse_onnx_tensor(std::span<const std::byte> bytes, std::uint64_t at, std::uint64_t begin, std::uint64_t end,
                             const OnnxFaults& faults);

}  // namespace tensor_inspect
