#include <doctest/doctest.h>

#include <omp.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "tensor_inspect/compare.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/realize.hpp"
#include "tensor_inspect/tensor.hpp"

#include "test_util.hpp"

namespace ti = tensor_inspect;
using ti::DType;
using ti::Tensor;

namespace {
using test_util::tensor_of;
}  // namespace

TEST_CASE("compare_tensors: figures of a small float pair, worked by hand") {
  // a - b = [0, 0.5, -1, 0]; |b| = [1, 2, 4, 0.5]
  const Tensor a = tensor_of<double>({1.0, 2.5, 3.0, 0.5}, DType::Float64);
  const Tensor b = tensor_of<double>({1.0, 2.0, 4.0, 0.5}, DType::Float64);
  const ti::Comparison c = ti::compare_tensors(a, b, {});
  CHECK(c.numel == 4);
  CHECK(c.mismatched == 2);
  REQUIRE(c.first_mismatch);
  CHECK(*c.first_mismatch == 1);
  CHECK(c.max_abs == 1.0);
  CHECK(c.max_rel == 0.25);                           // 0.5/2 and 1/4
  CHECK(c.rmse == doctest::Approx(std::sqrt(1.25 / 4)));
  const double dot = 1 + 5 + 12 + 0.25, na = 1 + 6.25 + 9 + 0.25, nb = 1 + 4 + 16 + 0.25;
  REQUIRE(c.cosine);
  CHECK(*c.cosine == doctest::Approx(dot / std::sqrt(na * nb)));
}

TEST_CASE("compare_tensors: numpy.allclose's rule |a - b| <= atol + rtol * |b|, relative to b") {
  const Tensor a = tensor_of<double>({100.0, 1.0}, DType::Float64);
  const Tensor b = tensor_of<double>({101.0, 1.0}, DType::Float64);
  ti::CompareOptions o;
  o.rtol = 0.01;  // 1 <= 0.01 * 101: equal; against a (0.01 * 100 = 1, also equal) the rule is B's
  o.atol = 0;
  CHECK(ti::compare_tensors(a, b, o).mismatched == 0);
  o.rtol = 0.0099;  // 0.0099 * 101 = 0.9999 < 1
  CHECK(ti::compare_tensors(a, b, o).mismatched == 1);
}

TEST_CASE("compare_tensors: NaN pairs are equal unless nan_equal is false, and never enter the figures") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const Tensor a = tensor_of<double>({nan, 1.0, inf, 2.0, nan}, DType::Float64);
  const Tensor b = tensor_of<double>({nan, 1.0, inf, 2.0, 3.0}, DType::Float64);
  ti::Comparison c = ti::compare_tensors(a, b, {});
  CHECK(c.mismatched == 1);  // only NaN vs 3
  CHECK(*c.first_mismatch == 4);
  CHECK(c.max_abs == 0);     // inf == inf: difference 0
  CHECK(c.rmse == 0);
  ti::CompareOptions o;
  o.nan_equal = false;
  c = ti::compare_tensors(a, b, o);
  CHECK(c.mismatched == 2);
  CHECK(*c.first_mismatch == 0);
  const Tensor d = tensor_of<double>({nan, 1.0, -inf, 2.0, nan}, DType::Float64);
  c = ti::compare_tensors(d, b, {});
  CHECK(c.mismatched == 2);  // -inf vs inf, NaN vs 3
  CHECK(std::isinf(c.max_abs));
}

TEST_CASE("compare_tensors: integers compare exactly beyond 2**53") {
  const Tensor a = tensor_of<std::int64_t>({(std::int64_t{1} << 53) + 1, -5}, DType::Int64);
  const Tensor b = tensor_of<std::int64_t>({std::int64_t{1} << 53, -5}, DType::Int64);
  ti::CompareOptions o;
  o.rtol = 0;
  o.atol = 0;
  const ti::Comparison c = ti::compare_tensors(a, b, o);
  CHECK(c.mismatched == 1);
  CHECK(c.max_abs == 1.0);
  const Tensor u = tensor_of<std::uint64_t>({~std::uint64_t{0}, 0}, DType::UInt64);
  const Tensor s = tensor_of<std::int64_t>({-1, 0}, DType::Int64);
  CHECK(ti::compare_tensors(u, s, o).max_abs == doctest::Approx(18446744073709551616.0));  // 2**64 - 1 - (-1)
}

TEST_CASE("compare_tensors: --exact compares the bits of each element") {
  const Tensor a = tensor_of<float>({-0.0f, 1.0f, 2.0f}, DType::Float32);
  const Tensor b = tensor_of<float>({0.0f, 1.0f, 2.0f}, DType::Float32);
  CHECK(ti::compare_tensors(a, b, {}).mismatched == 0);  // -0.0 == 0.0 as values
  ti::CompareOptions o;
  o.exact = true;
  const ti::Comparison c = ti::compare_tensors(a, b, o);
  CHECK(c.mismatched == 1);
  CHECK(*c.first_mismatch == 0);
  // Two NaNs of different payloads (a signaling and a quiet one) are different bits.
  std::uint32_t snan = 0x7f800001u, qnan = 0x7fc00001u;
  float fs, fq;
  std::memcpy(&fs, &snan, 4);
  std::memcpy(&fq, &qnan, 4);
  const Tensor n1 = tensor_of<float>({fs}, DType::Float32), n2 = tensor_of<float>({fq}, DType::Float32);
  CHECK(ti::compare_tensors(n1, n2, {}).mismatched == 0);
  CHECK(ti::compare_tensors(n1, n2, o).mismatched == 1);
}

TEST_CASE("compare_tensors: the same figures on 1 and 2 threads, over many chunks, and shapes must agree") {
  const std::size_t n = 100003;  // 49 chunks of 2048 and a partial one
  std::vector<float> x(n), y(n);
  for (std::size_t i = 0; i < n; ++i) {
    x[i] = std::sin(static_cast<float>(i)) * 3.0f;
    y[i] = x[i] + (i % 97 == 0 ? 0.001f * static_cast<float>(i % 5) : 0.0f);
  }
  y[77777] = std::numeric_limits<float>::quiet_NaN();
  const Tensor a = tensor_of(x, DType::Float32, {1, static_cast<std::int64_t>(n)});
  const Tensor bf = tensor_of(y, DType::Float32, {1, static_cast<std::int64_t>(n)});
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const ti::Comparison one = ti::compare_tensors(a, bf, {});
  omp_set_num_threads(2);
  const ti::Comparison two = ti::compare_tensors(a, bf, {});
  omp_set_num_threads(threads);
  CHECK(one.mismatched == two.mismatched);
  CHECK(one.first_mismatch == two.first_mismatch);
  CHECK(one.max_abs == two.max_abs);
  CHECK(one.max_rel == two.max_rel);
  CHECK(one.rmse == two.rmse);  // bit for bit
  CHECK(one.cosine == two.cosine);
  // The mismatches, counted here: |x - y| > 1e-8 + 1e-5 |y|, and the NaN.
  std::int64_t want = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = std::fabs(static_cast<double>(x[i]) - static_cast<double>(y[i]));
    want += std::isnan(y[i]) || !(d <= 1e-8 + 1e-5 * std::fabs(static_cast<double>(y[i])));
  }
  CHECK(one.mismatched == want);
  CHECK_THROWS_AS(ti::compare_tensors(a, tensor_of(x, DType::Float32), {}), ti::Error);
}

TEST_CASE("compare_tensors: equal tensors have cosine 1 even where the squared norms overflow") {
  // 1e300 squared is inf in float64, so dot / (|a| |b|) would be inf / inf = nan.
  const Tensor a = tensor_of<double>({1.5, -0.0, 1e300}, DType::Float64);
  const ti::Comparison c = ti::compare_tensors(a, a, {});
  CHECK(c.mismatched == 0);
  REQUIRE(c.cosine.has_value());
  CHECK(*c.cosine == 1.0);
}

TEST_CASE(
    "compare_tensors: two tensors broadcast along the same axes give the figures of the pairs visited one by one (new "
    "user: diff of a saved expand ran for ever)") {
  // (3, 1) and (1, 1) sources broadcast to (3, 4, 5) on axes 1 and 2 both, and b also on 0;
  // the reference is the same pairs made contiguous first, so no axis broadcasts.
  const Tensor a = tensor_of<double>({1.0, 2.5, -3.0}, DType::Float64).reshape({3, 1, 1}).expand({3, 4, 5});
  const Tensor b = tensor_of<double>({2.5}, DType::Float64).reshape({1, 1, 1}).expand({3, 4, 5});
  const ti::Comparison got = ti::compare_tensors(a, b, {});
  const ti::Comparison want = ti::compare_tensors(a.contiguous(), b.contiguous(), {});
  CHECK(want.mismatched == 40);  // rows 0 and 2 of 20 elements each
  CHECK(got.numel == want.numel);
  CHECK(got.mismatched == want.mismatched);
  REQUIRE(got.first_mismatch);
  CHECK(*got.first_mismatch == *want.first_mismatch);
  CHECK(got.max_abs == want.max_abs);
  CHECK(got.max_rel == want.max_rel);
  CHECK(got.rmse == doctest::Approx(want.rmse));
  REQUIRE(got.cosine);
  CHECK(*got.cosine == doctest::Approx(*want.cosine));
  // the first mismatch off axis 0: a broadcast along axis 0 whose row 0 agrees
  const Tensor c = tensor_of<double>({2.5, 2.5, 7.0}, DType::Float64).reshape({1, 3}).expand({4, 3});
  const Tensor d = tensor_of<double>({2.5}, DType::Float64).reshape({1, 1}).expand({4, 3});
  const ti::Comparison cd = ti::compare_tensors(c, d, {});
  CHECK(cd.mismatched == 4);
  REQUIRE(cd.first_mismatch);
  CHECK(*cd.first_mismatch == 2);
}
