// tests/unit/diff_input_test.cpp — what a diff is given (tensor_inspect/diff.hpp): its options
// checked against each other, each side opened from its argument; and what several files warn
// of, once each (tensor_inspect/input.hpp).
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "tensor_inspect/diff.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/input.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;

TEST_CASE("check_diff_options: tolerances >= 0, and --exact or --tolerance torch alone") {
  ti::DiffOptions o;
  ti::check_diff_options(o, "");
  o.rtol = -1;
  CHECK_THROWS_WITH_AS(ti::check_diff_options(o, "--rtol"),
                       "diff: --rtol and --atol must be numbers >= 0 (got --rtol -1, --atol 1e-08)", ti::Error);
  o.rtol = NAN;
  CHECK_THROWS_AS(ti::check_diff_options(o, "--rtol"), ti::Error);
  o = {};
  o.exact = true;
  ti::check_diff_options(o, "");
  CHECK_THROWS_WITH_AS(ti::check_diff_options(o, "--atol"),
                       "diff: --exact and --atol contradict (--exact compares bits, --atol is a tolerance of values): "
                       "choose one",
                       ti::Error);
  o.tolerance = "torch";
  CHECK_THROWS_WITH_AS(ti::check_diff_options(o, ""),
                       "diff: --tolerance torch and --exact contradict (--tolerance torch sets each pair's rtol and "
                       "atol): choose one",
                       ti::Error);
}

TEST_CASE("open_diff_input: a literal is one unnamed tensor, a file its tensors") {
  const ti::DiffInput lit = ti::open_diff_input("[[1.5, -2.0]]", false, "A");
  CHECK(lit.format == "literal");
  CHECK(lit.label == "[[1.5, -2.0]]");
  CHECK_FALSE(lit.file.has_value());
  REQUIRE(lit.entries.size() == 1);
  CHECK(lit.entries[0].dtype == std::optional<ti::DType>(ti::DType::Float32));
  CHECK(lit.entries[0].shape == ti::Shape{1, 2});
  CHECK(test_util::values(lit.entries[0].load()) == std::vector<double>{1.5, -2.0});
  const std::string path = test_util::kSamples + "mixed.safetensors";
  const ti::DiffInput file = ti::open_diff_input(path, false, "B");
  CHECK(file.format == "safetensors");
  CHECK(file.label == path);
  CHECK(file.entries.size() == 7);
}

TEST_CASE("warnings_once: each warning once, in order, over several files") {
  ti::LoadedFile a, b;
  a.warnings = {"shard 2 missing", "pickle global os.system"};
  b.warnings = {"pickle global os.system", "shard 3 missing"};
  CHECK(ti::warnings_once({&a, nullptr, &b, &a}) ==
        std::vector<std::string>{"shard 2 missing", "pickle global os.system", "shard 3 missing"});
  CHECK(ti::warnings_once({}).empty());
}
