// loaders/onnx_types.cpp — the table of TensorProto.DataType (see onnx_types.hpp).
#include "loaders/onnx_types.hpp"

namespace tensor_inspect {

namespace {

constexpr std::string_view kOnnxNoDtype = "tinygrad has no dtype for it";

// Ids and names as onnx/onnx's onnx.proto defines them (enum DataType).
constexpr OnnxType kOnnxTypes[] = {
    {1, "FLOAT", DType::Float32, 32, kOnnxFloatData, {}},
    {2, "UINT8", DType::UInt8, 8, kOnnxInt32Data, {}},
    {3, "INT8", DType::Int8, 8, kOnnxInt32Data, {}},
    {4, "UINT16", DType::UInt16, 16, kOnnxInt32Data, {}},
    {5, "INT16", DType::Int16, 16, kOnnxInt32Data, {}},
    {6, "INT32", DType::Int32, 32, kOnnxInt32Data, {}},
    {7, "INT64", DType::Int64, 64, kOnnxInt64Data, {}},
    {8, "STRING", std::nullopt, 0, kOnnxStringData, "a tensor of strings, which tinygrad has no dtype for"},
    {9, "BOOL", DType::Bool, 8, kOnnxInt32Data, {}},
    {10, "FLOAT16", DType::Float16, 16, kOnnxInt32Data, {}},
    {11, "DOUBLE", DType::Float64, 64, kOnnxDoubleData, {}},
    {12, "UINT32", DType::UInt32, 32, kOnnxUint64Data, {}},
    {13, "UINT64", DType::UInt64, 64, kOnnxUint64Data, {}},
    {14, "COMPLEX64", std::nullopt, 64, kOnnxFloatData, "complex64, which tinygrad has no dtype for"},
    {15, "COMPLEX128", std::nullopt, 128, kOnnxDoubleData, "complex128, which tinygrad has no dtype for"},
    {16, "BFLOAT16", DType::BFloat16, 16, kOnnxInt32Data, {}},
    {17, "FLOAT8E4M3FN", DType::FP8E4M3, 8, kOnnxInt32Data, {}},
    {18, "FLOAT8E4M3FNUZ", std::nullopt, 8, kOnnxInt32Data, kOnnxNoDtype},
    {19, "FLOAT8E5M2", DType::FP8E5M2, 8, kOnnxInt32Data, {}},
    {20, "FLOAT8E5M2FNUZ", std::nullopt, 8, kOnnxInt32Data, kOnnxNoDtype},
    {21, "UINT4", std::nullopt, 4, kOnnxInt32Data, kOnnxNoDtype},
    {22, "INT4", std::nullopt, 4, kOnnxInt32Data, kOnnxNoDtype},
    {23, "FLOAT4E2M1", std::nullopt, 4, kOnnxInt32Data, kOnnxNoDtype},
    {24, "FLOAT8E8M0", std::nullopt, 8, kOnnxInt32Data, kOnnxNoDtype},
};

}  // namespace

const OnnxType* onnx_type(std::int64_t id) {
  for (const OnnxType& t : kOnnxTypes)
    if (t.id == id) return &t;
  return nullptr;
}

std::string_view onnx_typed_field_name(std::uint32_t field) {
  switch (field) {
    case kOnnxFloatData: return "float_data";
    case kOnnxInt32Data: return "int32_data";
    case kOnnxStringData: return "string_data";
    case kOnnxInt64Data: return "int64_data";
    case kOnnxDoubleData: return "double_data";
    case kOnnxUint64Data: return "uint64_data";
    default: return "";
  }
}

}  // namespace tensor_inspect
