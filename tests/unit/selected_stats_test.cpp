// tests/unit/selected_stats_test.cpp — statistics over several selected tensors
// (tensor_inspect/tensor_stats.hpp): one --plot path each, refused when two would be one file,
// and each tensor's row, skipped where its values cannot be decoded. Figures hand-computed.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/tensor_stats.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

namespace {

ti::SelectedTensor named(const std::string& name, std::vector<float> values) {
  ti::SelectedTensor s{std::string("m.safetensors"), name, test_util::tensor_of(values, ti::DType::Float32), "", "",
                       std::nullopt, ""};
  s.label = "m.safetensors: tensor '" + name + "'";
  return s;
}

}  // namespace

TEST_CASE("plot_paths_for: {name} per tensor; two tensors giving one path are refused, naming both") {
  const std::vector<ti::SelectedTensor> two = {named("dir/a", {1}), named("b", {2})};
  CHECK(ti::plot_paths_for("h-{name}.png", two) == std::vector<std::string>{"h-dir_a.png", "h-b.png"});
  CHECK(ti::plot_paths_for("one.png", {named("w", {1})}) == std::vector<std::string>{"one.png"});
  CHECK_THROWS_WITH_AS(ti::plot_paths_for("h.png", two),
                       "--plot over 2 tensors: put {name} in the path for one picture each (--plot 'hist-{name}.png')",
                       ti::Error);
  const std::vector<ti::SelectedTensor> clash = {named("dir/a", {1}), named("dir_a", {2})};
  CHECK_THROWS_WITH_AS(ti::plot_paths_for("h-{name}.png", clash),
                       "--plot 'h-{name}.png': tensors 'dir/a' and 'dir_a' both give the path h-dir_a.png (a '/' or "
                       "control character in a name becomes '_')",
                       ti::Error);
  // "a/./h.png" and "a//h.png" are one file once normalized.
  CHECK_THROWS_AS(ti::plot_paths_for("a/{name}/h.png", {named(".", {1}), named("", {2})}), ti::Error);
}

TEST_CASE("selected_tensor_stats: a row named after the tensor; undecodable values a skipped row") {
  ti::TensorStatsRequest req;
  const ti::TensorStatsResult r = ti::selected_tensor_stats(named("w", {1, -2, 4}), req, {}, nullptr);
  CHECK(r.row.name == "w");
  REQUIRE(r.row.stats.has_value());
  CHECK(r.row.stats->min_value() == -2.0);
  CHECK(r.row.stats->max_value() == 4.0);
  CHECK(r.row.stats->mean == doctest::Approx(1.0));  // (1 - 2 + 4) / 3
  CHECK(r.row.stats->std == doctest::Approx(std::sqrt(6.0)));  // numpy.std (ddof=0): sqrt((0 + 9 + 9) / 3)
  ti::SelectedTensor q = named("q", {});
  ti::TensorEntry e;
  e.name = "q";
  e.shape = {32};
  e.nbytes = 18;
  q.entry = e;
  q.load_error = "m.gguf: tensor 'q': Q8_1 cannot be dequantized";
  const ti::TensorStatsResult s = ti::selected_tensor_stats(q, req, {}, nullptr);
  CHECK(s.row.skipped == q.load_error);
  CHECK_FALSE(s.row.stats.has_value());
  CHECK(s.row.nbytes == 18);
  req.fail_on = ti::parse_fail_on("nan");
  CHECK_THROWS_WITH_AS(ti::selected_tensor_stats(q, req, {}, nullptr), ti::fail_on_unchecked(q.load_error).c_str(),
                       ti::Error);
  CHECK_THROWS_WITH_AS(ti::refuse_unchecked({named("w", {1}), q}, req.fail_on, false),
                       ti::fail_on_unchecked(q.load_error).c_str(), ti::Error);
  ti::refuse_unchecked({q}, req.fail_on, true);  // -e's results: nothing stored to refuse
  ti::refuse_unchecked({q}, {}, false);          // no --fail-on: a skipped row instead
}

TEST_CASE("parse_hist_bins: whole numbers from 1 to 100000") {
  CHECK(ti::parse_hist_bins("1") == 1);
  CHECK(ti::parse_hist_bins("40") == 40);
  CHECK(ti::parse_hist_bins("100000") == 100000);
  CHECK_THROWS_WITH_AS(ti::parse_hist_bins("0"),
                       "--hist: '0' is not a number of bins from 1 to 100000 (write --hist=BINS before INPUT)",
                       ti::Error);
  for (const char* bad : {"100001", "-3", "2.5", "", "x.npy", "0000001"})  // "0000001": seven digits
    CHECK_THROWS_AS(ti::parse_hist_bins(bad), ti::Error);
}
