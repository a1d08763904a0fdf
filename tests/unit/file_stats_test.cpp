// tests/unit/file_stats_test.cpp — tensor_inspect/file_stats.hpp: --fail-on's parsing and
// verdicts, a whole file's rows (values checked with NumPy: the finite values of float32
// [1, nan, -2, 0] have mean -0.3333333333333333 and std 1.247219128924647), and the
// listing totals' words (tensor_inspect/totals.hpp, counts.hpp).
#include <doctest/doctest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tensor_inspect/counts.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/file_stats.hpp"
#include "tensor_inspect/tensor_errors.hpp"
#include "tensor_inspect/totals.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

TEST_CASE("parse_fail_on: checks in the order given, each once, spaces around items allowed") {
  CHECK(ti::parse_fail_on("inf, nan,inf").checks == std::vector<std::string>{"inf", "nan"});
  CHECK_THROWS_WITH_AS(ti::parse_fail_on(""),
                       "--fail-on '': no check given (known: nan, inf, zero-tensor; e.g. --fail-on nan,inf)",
                       ti::Error);
  CHECK_THROWS_WITH_AS(ti::parse_fail_on("nan,,inf"),
                       "--fail-on 'nan,,inf': check 2 is empty (known: nan, inf, zero-tensor; e.g. --fail-on nan,inf)",
                       ti::Error);
  CHECK_THROWS_WITH_AS(ti::parse_fail_on("nans"),
                       "--fail-on: unknown check 'nans' (known: nan, inf, zero-tensor; e.g. --fail-on nan,inf)",
                       ti::Error);
}

TEST_CASE("index_text: the row-major index of a flat position") {
  CHECK(ti::index_text(5, {2, 3}) == "[1, 2]");
  CHECK(ti::index_text(7, {2, 2, 2}) == "[1, 1, 1]");
  CHECK(ti::index_text(0, {}) == "[]");
}

TEST_CASE("file_stats: one row per tensor with --fail-on's verdicts, streamed to on_row") {
  const test_util::TempDir dir("ti_file_stats_");
  const float v[] = {1.0f, std::numeric_limits<float>::quiet_NaN(), -2.0f, 0.0f};
  std::string data(sizeof v, '\0');
  std::memcpy(data.data(), v, sizeof v);
  const std::string path = dir.write("x.npy", test_util::npy(test_util::npy_header("<f4", "(4,)"), data));
  const ti::LoadedFile file = ti::open_file(path);
  const ti::FailOn fail_on = ti::parse_fail_on("nan,zero-tensor");
  std::vector<std::string> labels;
  std::size_t last_done = 0;
  ti::FileStatsCallbacks callbacks;
  callbacks.on_row = [&](const ti::StatsRow&, const std::string& label) { labels.push_back(label); };
  callbacks.progress = [&](std::size_t tensors, std::uint64_t) { last_done = tensors; };
  const std::vector<ti::StatsRow> rows = ti::file_stats(file, fail_on, {}, callbacks);
  REQUIRE(rows.size() == 1);
  CHECK(labels.size() == 1);
  CHECK(last_done == 1);
  REQUIRE(rows[0].stats);
  const ti::TensorStats& s = *rows[0].stats;
  CHECK(s.count == 4);
  CHECK(s.finite == 3);
  CHECK(s.nan == 1);
  CHECK(s.zero == 1);
  CHECK(s.mean == doctest::Approx(-0.3333333333333333));
  CHECK(s.std == doctest::Approx(1.247219128924647));
  CHECK(rows[0].failed == std::vector<std::string>{"nan"});  // one zero of four: not a zero tensor
  CHECK(rows[0].first_nan == "[1]");
  CHECK(rows[0].group == "float32");
  CHECK(rows[0].nbytes == 16);
}

TEST_CASE("apply_fail_on: a zero tensor is every element zero, inf counts both signs") {
  ti::StatsRow row;
  row.stats = ti::TensorStats{};
  row.stats->count = 3;
  row.stats->zero = 3;
  row.stats->neginf = 1;
  ti::apply_fail_on(ti::parse_fail_on("zero-tensor,inf,nan"), row);
  CHECK(row.failed == std::vector<std::string>{"zero-tensor", "inf"});
}

TEST_CASE("totals' words: decimal units, thousands separators, singular for one") {
  CHECK(ti::human_bytes(999) == "999 B");
  CHECK(ti::human_bytes(4940) == "4.94 kB");
  CHECK(ti::human_bytes(999995) == "1.00 MB");
  CHECK(ti::grouped(8030261248) == "8,030,261,248");
  CHECK(ti::count_of(1, "tensor") == "1 tensor");
  CHECK(ti::count_of(2, "metadata entry", "metadata entries") == "2 metadata entries");
}

TEST_CASE("naming_tensor: the tensor named once, the error code kept") {
  const ti::Error plain(ti::ErrorCode::BadFile, "offset past end");
  const ti::Error named = ti::naming_tensor("x.npz: tensor 'w'", plain);
  CHECK(std::string(named.what()) == "x.npz: tensor 'w': offset past end");
  CHECK(named.code() == ti::ErrorCode::BadFile);
  const ti::Error member(ti::ErrorCode::BadFile, "x.npz: member 'w.npy': truncated");
  CHECK(std::string(ti::naming_tensor("x.npz: tensor 'w'", member).what()) ==
        "x.npz: tensor 'w': member 'w.npy': truncated");
  CHECK(std::string(ti::naming_pair("a.npz: tensor 'w'", "b.npz: tensor 'w'", plain).what()) ==
        "a.npz: tensor 'w' vs b.npz: tensor 'w': offset past end");
}
