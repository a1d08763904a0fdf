#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>

#include "tensor_inspect/dtype.hpp"

namespace ti = tensor_inspect;
using ti::DType;
using ti::Scalar;

namespace {
struct ConvCase {
  std::uint64_t bits;
  std::uint16_t f16, bf16;
  std::uint8_t e4m3, e5m2;
};
constexpr ConvCase kConv[] = {
#include "dtype_cases.inc"
};
}  // namespace

TEST_CASE("float16, bfloat16 and fp8 rounding agree with CPython's struct and tinygrad's converters") {
  for (const auto& c : kConv) {
    double v = std::bit_cast<double>(c.bits);
    CAPTURE(v);
    CHECK(ti::float16_from_double(v) == c.f16);
    CHECK(ti::bfloat16_from_double(v) == c.bf16);
    CHECK(ti::fp8_from_double(v, DType::FP8E4M3) == c.e4m3);
    CHECK(ti::fp8_from_double(v, DType::FP8E5M2) == c.e5m2);
  }
}

TEST_CASE("decoding the small floats gives the values Python prints") {
  CHECK(ti::float16_to_double(0x2e66) == 0.0999755859375);
  CHECK(ti::float16_to_double(0x0001) == 5.960464477539063e-08);
  CHECK(std::isinf(ti::float16_to_double(0x7c00)));
  CHECK(std::isnan(ti::float16_to_double(0x7e00)));
  CHECK(ti::bfloat16_to_double(0x3dcd) == 0.10009765625);
  CHECK(ti::fp8_to_double(0x7e, DType::FP8E4M3) == 448.0);
  CHECK(std::isnan(ti::fp8_to_double(0x7f, DType::FP8E4M3)));
  CHECK(ti::fp8_to_double(0x7b, DType::FP8E5M2) == 57344.0);
  CHECK(std::isinf(ti::fp8_to_double(0x7c, DType::FP8E5M2)));
  CHECK(std::signbit(ti::fp8_to_double(0x80, DType::FP8E4M3)));
}

TEST_CASE("names and aliases resolve as getattr(dtypes, name) does") {
  CHECK(ti::dtype_from_name("half") == DType::Float16);
  CHECK(ti::dtype_from_name("float") == DType::Float32);
  CHECK(ti::dtype_from_name("double") == DType::Float64);
  CHECK(ti::dtype_from_name("long") == DType::Int64);
  CHECK(ti::dtype_from_name("uchar") == DType::UInt8);
  CHECK(ti::dtype_from_name("fp8e4m3") == DType::FP8E4M3);
  CHECK_FALSE(ti::dtype_from_name("float128"));
  CHECK_FALSE(ti::dtype_from_name("Float32"));
  CHECK(ti::dtype_info(DType::BFloat16).fmt == 0);
  CHECK(ti::dtype_info(DType::Int64).fmt == 'q');
  CHECK(ti::dtype_info(DType::Float16).itemsize == 2);
}

TEST_CASE("least_upper_dtype follows tinygrad's lattice with weak dtypes") {
  CHECK(ti::least_upper_dtype(DType::Int8, DType::UInt8) == DType::Int16);
  CHECK(ti::least_upper_dtype(DType::Int32, DType::UInt32) == DType::Int64);
  CHECK(ti::least_upper_dtype(DType::Int64, DType::UInt64) == DType::WeakFloat);
  CHECK(ti::least_upper_dtype(DType::Int8, DType::WeakInt) == DType::Int8);
  CHECK(ti::least_upper_dtype(DType::UInt8, DType::WeakInt) == DType::UInt8);
  CHECK(ti::least_upper_dtype(DType::Bool, DType::WeakInt) == DType::WeakInt);
  CHECK(ti::least_upper_dtype(DType::Int8, DType::WeakFloat) == DType::WeakFloat);
  CHECK(ti::least_upper_dtype(DType::Float16, DType::WeakFloat) == DType::Float16);
  CHECK(ti::least_upper_dtype(DType::Float16, DType::BFloat16) == DType::Float32);
  CHECK(ti::least_upper_dtype(DType::FP8E4M3, DType::Int64) == DType::FP8E4M3);
  CHECK(ti::least_upper_dtype(DType::Float32, DType::Float64) == DType::Float64);
  CHECK(ti::sum_acc_dtype(DType::Int8) == DType::Int32);
  CHECK(ti::sum_acc_dtype(DType::UInt8) == DType::UInt32);
  CHECK(ti::sum_acc_dtype(DType::Bool) == DType::Int32);
  CHECK(ti::sum_acc_dtype(DType::Float16) == DType::Float32);
  CHECK(ti::sum_acc_dtype(DType::Int64) == DType::Int64);
}

TEST_CASE("casts wrap ints like C, truncate floats toward zero, and make bools from nonzero") {
  CHECK(ti::cast_scalar(Scalar::from_int(300), DType::UInt8).u == 44);
  CHECK(ti::cast_scalar(Scalar::from_int(-1), DType::UInt16).u == 65535);
  CHECK(ti::cast_scalar(Scalar::from_int(32768), DType::Int16).i == -32768);
  CHECK(ti::cast_scalar(Scalar::from_uint(18446744073709551615ULL), DType::Int64).i == -1);
  CHECK(ti::cast_scalar(Scalar::from_float(255.9), DType::UInt8).u == 255);
  CHECK(ti::cast_scalar(Scalar::from_float(-300.2), DType::Int32).i == -300);
  CHECK(ti::cast_scalar(Scalar::from_float(-7.9), DType::Int8).i == -7);
  CHECK(ti::cast_scalar(Scalar::from_float(1e20), DType::UInt64).u == 7766279631452241920ULL);  // int(1e20) % 2**64
  CHECK(ti::cast_scalar(Scalar::from_float(std::nan("")), DType::Bool).b);
  CHECK_FALSE(ti::cast_scalar(Scalar::from_float(-0.0), DType::Bool).b);
  CHECK(ti::cast_scalar(Scalar::from_uint(18446744073709551615ULL), DType::Float32).f == 1.8446744073709552e19);
  CHECK(ti::cast_scalar(Scalar::from_float(16777217.0), DType::Float32).f == 16777216.0);
}
