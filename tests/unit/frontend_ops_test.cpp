// tests/unit/frontend_ops_test.cpp — the frontend's reductions, matmul, unary math, casts,
// constructors and composed ops, against NumPy and tinygrad (split from frontend_test.cpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/frontend.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "tensor_builders.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;
namespace tg = tensor_inspect::tg;
using ti::DType;
using ti::Scalar;
using ti::Shape;
using ti::Tensor;

using test_tensors::floats;
using test_tensors::iota;
using test_tensors::ints;

using test_util::values;

TEST_CASE("sum accumulates in sum_acc_dtype; prod, max and min stay in the dtype") {
  Tensor i8 = ints({100, 100, 100}, DType::Int8);
  CHECK(tg::sum(i8, std::nullopt, false).dtype() == DType::Int32);
  CHECK(values(tg::sum(i8, std::nullopt, false)) == std::vector<double>{300});
  CHECK(tg::sum(ints({200, 200}, DType::UInt8), std::nullopt, false).dtype() == DType::UInt32);
  CHECK(values(tg::prod(ints({200, 200}, DType::UInt8), std::nullopt, false)) == std::vector<double>{64});
  Tensor f16 = floats({1.5, 2.5}, DType::Float16);
  CHECK(tg::sum(f16, std::nullopt, false).dtype() == DType::Float16);
  Tensor x = iota({2, 3});
  CHECK(values(tg::sum(x, std::vector<std::int64_t>{-1}, true)) == std::vector<double>{3, 12});
  CHECK(tg::sum(x, std::vector<std::int64_t>{-1}, true).shape() == Shape{2, 1});
  CHECK(values(tg::max(x, std::vector<std::int64_t>{0}, false)) == std::vector<double>{3, 4, 5});
  CHECK(values(tg::min(x, std::vector<std::int64_t>{0, 1}, false)) == std::vector<double>{0});
  CHECK(values(tg::sum(tg::reshape(ints({}, DType::Int32), {0, 3}), std::vector<std::int64_t>{0}, false)) ==
        std::vector<double>{0, 0, 0});
  CHECK_THROWS_WITH_AS(tg::sum(x, std::vector<std::int64_t>{2}, false), "dim=2 out of range [-2, 1]", ti::Error);
}

TEST_CASE("mean, var and std divide in a float; an empty mean is nan") {
  CHECK(values(tg::mean(ints({1, 2}, DType::Int8), std::nullopt, false)) == std::vector<double>{1.5});
  CHECK(std::isnan(values(tg::mean(floats({}), std::nullopt, false))[0]));
  // var([1, 2, 3, 4]) with correction 1 = 5/3
  CHECK(values(tg::var(floats({1, 2, 3, 4}), std::nullopt, false))[0] == doctest::Approx(5.0 / 3.0).epsilon(1e-6));
  CHECK(values(tg::std_dev(floats({1, 2, 3, 4}), std::nullopt, false))[0] ==
        doctest::Approx(std::sqrt(5.0 / 3.0)).epsilon(1e-6));
}

TEST_CASE("argmax and argmin give the first occurrence as int32") {
  Tensor x = ints({1, 3, 3, 0, 0}, DType::Int32);
  CHECK(tg::argmax(x, std::nullopt, false).dtype() == DType::Int32);
  CHECK(values(tg::argmax(x, std::nullopt, false)) == std::vector<double>{1});
  CHECK(values(tg::argmin(x, std::nullopt, false)) == std::vector<double>{3});
  Tensor m = ints({5, 1, 9, 9, 2, 2}, DType::Int32, {2, 3});
  CHECK(values(tg::argmax(m, 1, false)) == std::vector<double>{2, 0});
  CHECK(values(tg::argmax(m, 0, true)) == std::vector<double>{1, 1, 0});
}

TEST_CASE("matmul sums products; int matmul stays int") {
  Tensor a = ints({1, 2, 3, 4, 5, 6}, DType::Int32, {2, 3});
  Tensor b = ints({7, 8, 9, 10, 11, 12}, DType::Int32, {3, 2});
  Tensor c = tg::matmul(a, b);
  CHECK(c.dtype() == DType::Int32);
  CHECK(c.shape() == Shape{2, 2});
  CHECK(values(c) == std::vector<double>{58, 64, 139, 154});
  CHECK(values(tg::matmul(ints({1, 2, 3}, DType::Int32), ints({4, 5, 6}, DType::Int32))) == std::vector<double>{32});
  CHECK(values(tg::matmul(ints({1, 2, 3}, DType::Int32), b)) == std::vector<double>{58, 64});
  CHECK_THROWS_WITH_AS(tg::matmul(a, a), "cannot dot (2, 3) and (2, 3)", ti::Error);
}

TEST_CASE("unary math: int inputs compute in float, abs keeps -0.0, relu and neg of bool") {
  CHECK(tg::exp(ints({1}, DType::Int32)).dtype() == DType::Float32);
  CHECK(values(tg::sqrt(ints({4}, DType::Int32))) == std::vector<double>{2.0});
  CHECK(std::signbit(values(tg::abs(floats({-0.0})))[0]));
  CHECK(values(tg::abs(ints({-128, 5}, DType::Int8))) == std::vector<double>{-128, 5});
  CHECK(values(tg::relu(floats({-1.0, 2.0}))) == std::vector<double>{0.0, 2.0});
  Tensor b = tg::from_values({Scalar::from_bool(true), Scalar::from_bool(false)}, {2}, std::nullopt);
  CHECK(values(tg::neg(b)) == std::vector<double>{0, 1});
  CHECK(values(tg::invert(ints({0, 5}, DType::UInt8))) == std::vector<double>{255, 250});
  CHECK(values(tg::floor(floats({-1.5, 1.5, -2.0}))) == std::vector<double>{-2.0, 1.0, -2.0});
  CHECK(values(tg::ceil(floats({-1.5, 1.5}))) == std::vector<double>{-1.0, 2.0});
}

TEST_CASE("cast and bitcast refuse weak dtypes and sizes that do not divide") {
  Tensor weak = tg::full({}, Scalar::from_int(5), std::nullopt);
  CHECK(weak.dtype() == DType::WeakInt);
  CHECK_THROWS_WITH_AS(tg::bitcast(weak, DType::Int32),
                       "bitcast requires concrete dtypes, got dtypes.weakint -> dtypes.int32", ti::Error);
  CHECK_THROWS_AS(tg::bitcast(ints({1, 2, 3}, DType::Int32), DType::Int64), ti::Error);
  CHECK(tg::bitcast(ints({1, 2}, DType::Int32), DType::Int64).shape() == Shape{1});
  CHECK_THROWS_AS(tg::cast(weak, DType::WeakFloat), ti::Error);
}

TEST_CASE("constructors: arange, full, ones, eye, linspace and their default dtypes") {
  CHECK(tg::arange(Scalar::from_int(5), Scalar::from_int(0), Scalar::from_int(1), std::nullopt).shape() == Shape{0});
  CHECK(values(tg::arange(Scalar::from_int(2), Scalar::from_int(10), Scalar::from_int(3), std::nullopt)) ==
        std::vector<double>{2, 5, 8});
  CHECK(values(tg::arange(Scalar::from_int(3), Scalar::from_int(-3), Scalar::from_int(-2), std::nullopt)) ==
        std::vector<double>{3, 1, -1});
  Tensor f = tg::arange(Scalar::from_int(0), Scalar::from_int(1), Scalar::from_float(0.25), std::nullopt);
  CHECK(f.dtype() == DType::Float32);
  CHECK(values(f) == std::vector<double>{0.0, 0.25, 0.5, 0.75});
  CHECK(tg::full({2}, Scalar::from_int(7), std::nullopt).dtype() == DType::WeakInt);
  CHECK(tg::full({2}, Scalar::from_bool(true), std::nullopt).dtype() == DType::Bool);
  CHECK(tg::ones({2, 3}, std::nullopt).dtype() == DType::Float32);
  CHECK(values(tg::eye(2, 3, std::nullopt)) == std::vector<double>{1, 0, 0, 0, 1, 0});
  CHECK(values(tg::linspace(Scalar::from_int(0), Scalar::from_int(1), 5, std::nullopt)) ==
        std::vector<double>{0, 0.25, 0.5, 0.75, 1});
  CHECK_THROWS_AS(tg::arange(Scalar::from_int(0), Scalar::from_int(1), Scalar::from_int(0), std::nullopt), ti::Error);
  CHECK_THROWS_AS(tg::ones({1 << 21, 1 << 20}, std::nullopt), ti::Error);  // past expression_elements (2**40)
  CHECK_THROWS_AS(tg::expand(tg::ones({1}, std::nullopt), {1 << 21, 1 << 20}), ti::Error);
}

TEST_CASE("softmax and log_softmax follow tinygrad's max-shifted formulas") {
  // NumPy, float32: e = exp(x - x.max(-1)); e / e.sum(-1) for rows [1, 2, 3] and [4, 5, 6]
  const double expected[] = {0.09003057330846786, 0.2447284609079361, 0.6652409434318542};
  const std::vector<Scalar> six = {Scalar::from_float(1), Scalar::from_float(2), Scalar::from_float(3),
                                   Scalar::from_float(4), Scalar::from_float(5), Scalar::from_float(6)};
  Tensor x = tg::from_values(six, {2, 3}, DType::Float32);
  auto mv = ti::data(tg::softmax(x, -1));
  CHECK(mv.shape == Shape{2, 3});
  for (std::int64_t i = 0; i < 6; ++i) CHECK(mv.element(i).f == doctest::Approx(expected[i % 3]).epsilon(1e-6));
  auto lmv = ti::data(tg::log_softmax(x, 1));
  for (std::int64_t i = 0; i < 6; ++i)
    CHECK(lmv.element(i).f == doctest::Approx(std::log(expected[i % 3])).epsilon(1e-6));
  CHECK(ti::data(tg::softmax(x, 0)).element(0).f == doctest::Approx(0.04742587317756678).epsilon(1e-6));  // 1/(1+e^3)
  CHECK_THROWS_AS(tg::softmax(x, 2), ti::Error);
}

TEST_CASE("cumsum gives NumPy's running sums along an axis") {
  // np.array([[1, 2, 3], [4, 5, 6]]).cumsum(0) and .cumsum(1)
  std::vector<Scalar> six;
  for (int v = 1; v <= 6; ++v) six.push_back(Scalar::from_int(v));
  Tensor x = tg::from_values(six, {2, 3}, DType::Int32);
  CHECK(values(tg::cumsum(x, 0)) == std::vector<double>{1, 2, 3, 5, 7, 9});
  CHECK(values(tg::cumsum(x, 1)) == std::vector<double>{1, 3, 6, 4, 9, 15});
  CHECK(values(tg::cumsum(x, -1)) == std::vector<double>{1, 3, 6, 4, 9, 15});
  Tensor i8 = tg::from_values({Scalar::from_int(100), Scalar::from_int(100)}, {2}, DType::Int8);
  CHECK(values(tg::cumsum(i8, 0)) == std::vector<double>{100, 200});  // accumulates in int32, like sum
  CHECK_THROWS_AS(tg::cumsum(x, 2), ti::Error);
}

TEST_CASE("cat, stack, tril and triu agree with NumPy's concatenate, stack, tril and triu") {
  std::vector<Scalar> four;
  for (int v = 1; v <= 4; ++v) four.push_back(Scalar::from_int(v));
  Tensor x = tg::from_values(four, {2, 2}, DType::Int32);
  // np.concatenate([x, x], 1), np.stack([x, x], 1), np.tril(x), np.triu(x, 1)
  CHECK(values(tg::cat({x, x}, 1)) == std::vector<double>{1, 2, 1, 2, 3, 4, 3, 4});
  CHECK(tg::cat({x, x}, 0).shape() == Shape{4, 2});
  CHECK(values(tg::stack({x, x}, 1)) == std::vector<double>{1, 2, 1, 2, 3, 4, 3, 4});
  CHECK(tg::stack({x, x}, -1).shape() == Shape{2, 2, 2});
  CHECK(values(tg::tril(x, 0)) == std::vector<double>{1, 0, 3, 4});
  CHECK(values(tg::tril(x, 1, true)) == std::vector<double>{0, 2, 0, 0});
  // -0.0 survives cat (added as bits, not as floats)
  Tensor z = tg::from_values({Scalar::from_float(-0.0)}, {1}, DType::Float32);
  CHECK(std::signbit(ti::data(tg::cat({z, z}, 0)).element(1).f));
  CHECK_THROWS_AS(tg::cat({x, tg::from_values(four, {4}, DType::Int32)}, 0), ti::Error);
  CHECK_THROWS_AS(tg::tril(tg::from_values(four, {4}, DType::Int32), 0), ti::Error);
}

TEST_CASE("round goes half to even, as Python's round does") {
  const double in[] = {0.5, 1.5, 2.5, -1.5, 2.4, 2.6, -2.6, -7.5};
  std::vector<Scalar> s;
  for (double v : in) s.push_back(Scalar::from_float(v));
  // [float(round(v)) for v in in]
  CHECK(values(tg::round(tg::from_values(s, {8}, DType::Float32))) == std::vector<double>{0, 2, 2, -2, 2, 3, -3, -8});
}

TEST_CASE("repeat tiles like np.tile") {
  std::vector<Scalar> four;
  for (int v = 1; v <= 4; ++v) four.push_back(Scalar::from_int(v));
  Tensor x = tg::from_values(four, {2, 2}, DType::Int32);
  // np.tile([[1, 2], [3, 4]], (1, 2)) and np.tile([[1, 2], [3, 4]], (2, 1, 1)).shape
  CHECK(values(tg::repeat(x, {1, 2})) == std::vector<double>{1, 2, 1, 2, 3, 4, 3, 4});
  CHECK(tg::repeat(x, {2, 1, 1}).shape() == Shape{2, 2, 2});
  CHECK_THROWS_AS(tg::repeat(x, {2}), ti::Error);
}

TEST_CASE("isnan, isinf and isfinite give bools as tinygrad's x != x and x == +-inf") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  Tensor x = floats({1.0, nan, inf, -inf, -0.0});
  CHECK(tg::isnan(x).dtype() == DType::Bool);
  CHECK(values(tg::isnan(x)) == std::vector<double>{0, 1, 0, 0, 0});
  CHECK(values(tg::isinf(x)) == std::vector<double>{0, 0, 1, 1, 0});
  CHECK(values(tg::isinf(x, false, true)) == std::vector<double>{0, 0, 0, 1, 0});
  CHECK(values(tg::isinf(x, true, false)) == std::vector<double>{0, 0, 1, 0, 0});
  CHECK(values(tg::isinf(x, false, false)) == std::vector<double>{0, 0, 0, 0, 0});
  CHECK(values(tg::isfinite(x)) == std::vector<double>{1, 0, 0, 0, 1});
  CHECK(values(tg::isfinite(ints({-128, 127}, DType::Int8))) == std::vector<double>{1, 1});
}

TEST_CASE("any and all reduce to bool; any of nothing is False, all of nothing is True") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = tg::reshape(floats({0.0, -0.0, nan, 2.0}), {2, 2});
  CHECK(tg::any(x, std::nullopt, false).dtype() == DType::Bool);
  CHECK(values(tg::any(x, std::vector<std::int64_t>{1}, false)) == std::vector<double>{0, 1});
  CHECK(values(tg::all(x, std::vector<std::int64_t>{1}, false)) == std::vector<double>{0, 1});
  CHECK(values(tg::all(x, std::vector<std::int64_t>{0}, true)) == std::vector<double>{0, 0});
  CHECK(tg::all(x, std::vector<std::int64_t>{0}, true).shape() == Shape{1, 2});
  Tensor empty = tg::reshape(ints({}, DType::Int32), {0, 3});
  CHECK(values(tg::any(empty, std::vector<std::int64_t>{0}, false)) == std::vector<double>{0, 0, 0});
  CHECK(values(tg::all(empty, std::vector<std::int64_t>{0}, false)) == std::vector<double>{1, 1, 1});
  CHECK(values(tg::all(empty, std::nullopt, false)) == std::vector<double>{1});
}
