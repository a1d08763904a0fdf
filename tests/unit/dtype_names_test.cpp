// tests/unit/dtype_names_test.cpp — the one table of dtype names users write (dtype/dtype_names.cpp).
#include <doctest/doctest.h>

#include <string>

#include "tensor_inspect/dtype.hpp"
#include "tensor_inspect/error.hpp"

namespace ti = tensor_inspect;

TEST_CASE("dtype_from_user_name takes tinygrad's, NumPy's, torch's and the formats' spellings") {
  struct Case {
    const char* name;
    ti::DType dtype;
  };
  // Each spelling's meaning from its project: safetensors' dtype tags, GGUF's type names,
  // torch.<name>, numpy.<name>, tinygrad's dtypes.<name>; bit-count short names as ggml writes them.
  for (const Case& c : {Case{"bf16", ti::DType::BFloat16},
                        Case{"BF16", ti::DType::BFloat16},
                        Case{"bfloat16", ti::DType::BFloat16},
                        Case{"f16", ti::DType::Float16},
                        Case{"fp16", ti::DType::Float16},
                        Case{"F16", ti::DType::Float16},
                        Case{"half", ti::DType::Float16},
                        Case{"float", ti::DType::Float32},
                        Case{"F32", ti::DType::Float32},
                        Case{"torch.float32", ti::DType::Float32},
                        Case{"np.float64", ti::DType::Float64},
                        Case{"F8_E4M3", ti::DType::FP8E4M3},
                        Case{"float8_e4m3fn", ti::DType::FP8E4M3},
                        Case{"F8_E5M2", ti::DType::FP8E5M2},
                        Case{"i8", ti::DType::Int8},
                        Case{"I8", ti::DType::Int8},
                        Case{"u64", ti::DType::UInt64},
                        Case{"U64", ti::DType::UInt64},
                        Case{"long", ti::DType::Int64},
                        Case{"int", ti::DType::Int32},
                        Case{"uint", ti::DType::UInt32},
                        Case{"bool_", ti::DType::Bool},
                        Case{"BOOL", ti::DType::Bool},
                        Case{"dtypes.half", ti::DType::Float16}}) {
    CAPTURE(c.name);
    REQUIRE(ti::dtype_from_user_name(c.name).has_value());
    CHECK(*ti::dtype_from_user_name(c.name) == c.dtype);
  }
}

TEST_CASE("dtype_from_user_name refuses weak dtypes, NumPy's byte codes and unknown names") {
  for (const char* name : {"weakint", "weakfloat", "f4", "<f4", "i4", "", "torch.", "float17", "byte", "Q4_0"}) {
    CAPTURE(name);
    CHECK_FALSE(ti::dtype_from_user_name(name).has_value());
  }
}

TEST_CASE("parse_dtype_name names the option and lists every spelling") {
  CHECK(ti::parse_dtype_name("BF16", "--dtype") == ti::DType::BFloat16);
  try {
    ti::parse_dtype_name("bf17", "--dtype");
    FAIL("no error");
  } catch (const ti::Error& e) {
    const std::string what = e.what();
    CHECK(e.code() == ti::ErrorCode::BadDType);
    CHECK(what.rfind("--dtype: unknown dtype 'bf17' (known: bool (bool_ b1 boolean), int8 (i8 char), ", 0) == 0);
    CHECK(what.find("bfloat16 (bf16)") != std::string::npos);
    CHECK(what.find("fp8e4m3 (f8_e4m3 float8_e4m3fn float8_e4m3 fp8_e4m3 e4m3)") != std::string::npos);
  }
}
