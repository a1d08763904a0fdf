// tests/unit/tensor_stats_test.cpp — tensor_inspect/tensor_stats.hpp: one tensor's row,
// --fail-on's verdict and histogram. NumPy's figures for float32 [1, nan, -2, 0]: the finite
// values' mean is -0.3333333333333333 and std 1.247219128924647 (x[np.isfinite(x)]);
// np.histogram([-2, 0, 1], bins=3, range=(-2, 1)) counts [1, 0, 2]; the NaN is at [1].
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "tensor_inspect/literal.hpp"
#include "tensor_inspect/tensor_stats.hpp"

namespace ti = tensor_inspect;

TEST_CASE("tensor_stats: a computed tensor's row, --fail-on nan's first NaN, and its histogram") {
  const ti::Tensor t = ti::tensor_from_literal("[1.0, float('nan'), -2.0, 0.0]", ti::DType::Float32);
  ti::TensorStatsRequest req;
  req.fail_on = ti::parse_fail_on("nan,zero-tensor");
  req.hist = true;
  req.bins = 3;
  const ti::TensorStatsResult r = ti::tensor_stats(t, nullptr, "", req, {}, nullptr);
  CHECK(r.row.name.empty());
  CHECK(r.row.nbytes == 16);
  CHECK(r.row.group == "float32");
  CHECK(r.row.shape == ti::Shape{4});
  REQUIRE(r.row.stats);
  CHECK(r.row.stats->finite == 3);
  CHECK(r.row.stats->mean == doctest::Approx(-0.3333333333333333).epsilon(1e-15));
  CHECK(r.row.stats->std == doctest::Approx(1.247219128924647).epsilon(1e-15));
  CHECK(r.row.failed == std::vector<std::string>{"nan"});
  CHECK(r.row.first_nan == "[1]");
  REQUIRE(r.hist);
  CHECK(r.hist->counts == std::vector<std::uint64_t>{1, 0, 2});
  CHECK(r.hist->nan == 1);
}

TEST_CASE("tensor_stats: without --hist a histogram is neither computed for printing nor returned") {
  const ti::Tensor t = ti::tensor_from_literal("[0, 0]", ti::DType::Int32);
  ti::TensorStatsRequest req;
  req.fail_on = ti::parse_fail_on("zero-tensor");
  const ti::TensorStatsResult r = ti::tensor_stats(t, nullptr, "", req, {}, nullptr);
  CHECK_FALSE(r.hist);
  CHECK(r.row.failed == std::vector<std::string>{"zero-tensor"});
  CHECK(r.row.nbytes == 8);
}
