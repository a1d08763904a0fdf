// loaders/onnx_types.hpp — ONNX's TensorProto.DataType values (onnx/onnx, onnx/onnx.proto,
// enum DataType, ids 1 to 24) and the typed field that holds each when raw_data does not:
//   float_data (4): FLOAT (and COMPLEX64 as pairs),
//   int32_data (5): INT32, INT16, INT8, UINT16, UINT8, BOOL, and FLOAT16, BFLOAT16 and the
//                   FLOAT8 types as their bit patterns (one element per int32),
//   int64_data (7): INT64,   double_data (10): DOUBLE (and COMPLEX128 as pairs),
//   uint64_data (11): UINT32, UINT64,   string_data (6): STRING.
// raw_data (9) holds any but STRING as fixed-width little-endian elements.
//
//   const OnnxType* t = onnx_type(10);   // FLOAT16: dtype float16, held in int32_data
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "tensor_inspect/dtype.hpp"

namespace tensor_inspect {

/// TensorProto's field numbers of the typed fields.
inline constexpr std::uint32_t kOnnxFloatData = 4, kOnnxInt32Data = 5, kOnnxStringData = 6, kOnnxInt64Data = 7,
                               kOnnxDoubleData = 10, kOnnxUint64Data = 11;

/// One TensorProto.DataType.
struct OnnxType {
  std::int32_t id;
  std::string_view name;       ///< onnx.proto's name: "FLOAT16"
  std::optional<DType> dtype;  ///< the dtype values come out as; nullopt where tinygrad has none
  std::uint32_t bits;          ///< bits of one element in raw_data (4 for INT4; 0 for STRING)
  std::uint32_t typed_field;   ///< the typed field holding it (kOnnx*Data)
  std::string_view why_not;    ///< why its values are not shown (dtype unset)
};

/// The row of data type `id`, or nullptr for UNDEFINED (0) and ids onnx.proto does not define.
const OnnxType* onnx_type(std::int64_t id);

/// "float_data", "int32_data", ... for a typed field number; "" for others.
std::string_view onnx_typed_field_name(std::uint32_t field);

}  // namespace tensor_inspect
