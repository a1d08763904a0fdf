// tests/unit/checks_test.cpp — tensor_inspect/checks.hpp: --expect and --assert decided over
// literal tensors, and their report. Expected values worked by hand: [[1, 2], [3, 4]] as
// float32 is 4 elements of 4 bytes (nbytes 16, format 'f'); (x < 3) is False at the flat
// positions 2 and 3, the first of them row-major [1, 0].
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tensor_inspect/checks.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/literal.hpp"
#include "tensor_inspect/view.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

namespace {

ti::SelectedTensor literal_item(const char* text, const char* label) {
  return ti::SelectedTensor{std::nullopt, std::nullopt, ti::tensor_from_literal(text, ti::DType::Float32),
                            label, "", std::nullopt, ""};
}

}  // namespace

TEST_CASE("evaluate_checks: --expect values from the lazy tensor, --assert's first False element") {
  const std::vector<ti::SelectedTensor> items{literal_item("[[1, 2], [3, 4]]", "m.npy")};
  const std::vector<ti::CheckResult> r = ti::evaluate_checks(
      items, {"shape=(2, 2)", "nbytes=16", "format=f", "dtype=half", "stored_dtype=float32"},
      {"(x < 3).all()", "(x < 5)", "x > 3"}, {});
  REQUIRE(r.size() == 8);
  CHECK(r[0].passed);
  CHECK(r[0].expected == "(2, 2)");
  CHECK(r[1].passed);
  CHECK(r[2].passed);
  CHECK_FALSE(r[3].passed);
  CHECK(r[3].expected == "float16");
  CHECK(r[3].actual == "float32");
  CHECK(r[4].passed);
  CHECK_FALSE(r[5].passed);
  CHECK(r[5].actual == "False");
  CHECK(r[6].passed);
  CHECK_FALSE(r[7].passed);
  CHECK(r[7].actual == "3 of 4 elements are False, first at [0, 0]");
  const std::vector<ti::CheckResult> one = ti::evaluate_checks(items, {}, {"x < 4"}, {});
  CHECK(one[0].actual == "1 of 4 elements is False, at [1, 1]");
}

TEST_CASE("evaluate_checks: malformed checks are usage errors, a non-boolean assertion is refused") {
  const std::vector<ti::SelectedTensor> items{literal_item("[1]", "")};
  CHECK_THROWS_WITH_AS(ti::evaluate_checks(items, {"rank=1"}, {}, {}),
                       "--expect 'rank=1': unknown key 'rank' (dtype, shape, ndim, numel, format, nbytes, "
                       "stored_dtype, stored_nbytes)",
                       ti::Error);
  CHECK_THROWS_WITH_AS(ti::evaluate_checks(items, {"ndim=-1"}, {}, {}),
                       "--expect 'ndim=-1': '-1' is not a non-negative integer", ti::Error);
  CHECK_THROWS_WITH_AS(ti::evaluate_checks(items, {}, {"x + 1"}, {}),
                       "--assert 'x + 1' gives float32, not a boolean (compare, or end with .all())", ti::Error);
}

TEST_CASE("stored_type_matches: a stored type's own name in any case, or the dtype it spells") {
  CHECK(ti::stored_type_matches("q4_k", "Q4_K"));
  CHECK(ti::stored_type_matches("float32", "<f4"));
  CHECK(ti::stored_type_matches("int16", ">i2"));
  CHECK(ti::stored_type_matches("bf16", "BF16"));
  CHECK(ti::stored_type_matches("uint8", "ByteStorage"));
  CHECK(ti::stored_type_matches("float16", "HalfStorage"));
  CHECK_FALSE(ti::stored_type_matches("int8", "ByteStorage"));
  CHECK_FALSE(ti::stored_type_matches("float64", "<f4"));
}

TEST_CASE("render_checks: each failure and a summary (text), one object (JSON), one line each (JSONL)") {
  const std::vector<ti::SelectedTensor> items{literal_item("[1, 2]", "x.npy")};
  const std::vector<ti::CheckResult> r = ti::evaluate_checks(items, {"numel=3", "ndim=1"}, {}, {});
  std::size_t failed = 0;
  const std::string text = test_util::rendered(
      [&](ti::OutBuffer& out) { failed = ti::render_checks(r, items, ti::ChecksOutput::Text, out); });
  CHECK(failed == 1);
  CHECK(text == "x.npy: --expect numel=3 failed: numel is 2\n1 of 2 checks failed on 1 tensor\n");
  const std::string json =
      test_util::rendered([&](ti::OutBuffer& out) { ti::render_checks(r, items, ti::ChecksOutput::Json, out); });
  CHECK(json.find("\"kind\": \"checks\", \"file\": null, \"checked\": 2, \"failed\": 1, \"results\": [{") !=
        std::string::npos);
  const std::string lines =
      test_util::rendered([&](ti::OutBuffer& out) { ti::render_checks(r, items, ti::ChecksOutput::Jsonl, out); });
  CHECK(lines.find("\"type\": \"expect\", \"check\": \"ndim=1\", \"passed\": true, \"expected\": \"1\", "
                   "\"actual\": \"1\"}\n") != std::string::npos);
}

TEST_CASE("write_stats_with_checks: the statistics object carries the checks as its last key") {
  const std::vector<ti::SelectedTensor> items{literal_item("[1, 2]", "x.npy")};
  const std::vector<ti::CheckResult> pass = ti::evaluate_checks(items, {"ndim=1"}, {}, {});
  auto stats = [](int status) {
    return [status](std::FILE* to) {
      std::fputs("{\"kind\": \"stats\", \"mean\": 1.5}\n", to);
      return status;
    };
  };
  int status = -1;
  const std::string one = test_util::rendered(
      [&](ti::OutBuffer& out) { status = ti::write_stats_with_checks(pass, items, stats(0), out); });
  CHECK(status == 0);
  CHECK(one == "{\"kind\": \"stats\", \"mean\": 1.5, \"checks\": " + ti::checks_json(pass, items) + "}\n");
  test_util::rendered([&](ti::OutBuffer& out) { status = ti::write_stats_with_checks(pass, items, stats(1), out); });
  CHECK(status == 1);  // --fail-on found something
  const std::vector<ti::CheckResult> fail = ti::evaluate_checks(items, {"ndim=2"}, {}, {});
  test_util::rendered([&](ti::OutBuffer& out) { status = ti::write_stats_with_checks(fail, items, stats(0), out); });
  CHECK(status == 1);
  auto corrupt = [](std::FILE*) -> int { throw ti::Error(ti::ErrorCode::BadFile, "x.npy: corrupt"); };
  const std::string none = test_util::rendered([&](ti::OutBuffer& out) {
    CHECK_THROWS_AS(ti::write_stats_with_checks(pass, items, corrupt, out), ti::Error);
  });
  CHECK(none.empty());  // trouble writes nothing
}

TEST_CASE("parse_shape: shapes as users write them") {
  CHECK(ti::parse_shape("2,3", "--shape") == ti::Shape{2, 3});
  CHECK(ti::parse_shape("(2, 3)", "--shape") == ti::Shape{2, 3});
  CHECK(ti::parse_shape("4,", "--shape") == ti::Shape{4});
  CHECK(ti::parse_shape("()", "--shape").empty());
  CHECK_THROWS_WITH_AS(ti::parse_shape("2,,2", "--shape"),
                       "--shape: '2,,2' has an empty dimension (a shape is like 2,3)", ti::Error);
  CHECK_THROWS_WITH_AS(ti::parse_shape("2,x", "--view-as"), "--view-as: '2,x' is not a shape like 2,3", ti::Error);
}
