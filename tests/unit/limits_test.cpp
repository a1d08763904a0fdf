// Setting caps by name (limits.hpp): --limit's specs, all or none, each cap once; and the
// fixed caps of typed text, which the parsers take from limits.hpp.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/expr.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/literal.hpp"

namespace ti = tensor_inspect;

namespace {

// Restores the caps in force when a test ends, passed or not.
struct SavedLimits {
  ti::Limits saved = ti::limits();
  ~SavedLimits() { ti::set_limits(saved); }
};

}  // namespace

TEST_CASE("set_limits_from sets each cap of its specs, with K, M and G suffixes") {
  SavedLimits guard;
  ti::set_limits_from(std::vector<std::string>{"stream_bytes=2G", "json_depth=100", "zip_members=3K"});
  CHECK(ti::limits().stream_bytes == std::uint64_t{2} << 30);
  CHECK(ti::limits().json_depth == 100);
  CHECK(ti::limits().zip_members == 3072);
}

TEST_CASE("one cap given twice is a usage error naming it, and no cap is set (user tester: last one silently won)") {
  SavedLimits guard;
  const ti::Limits before = ti::limits();
  const std::vector<std::string> specs{"json_depth=100", "stream_bytes=1G", "stream_bytes=2G"};
  CHECK_THROWS_WITH_AS(ti::set_limits_from(specs),
                       "--limit stream_bytes given twice ('stream_bytes=1G' and 'stream_bytes=2G'): each cap takes one "
                       "value; give it once",
                       ti::Error);
  CHECK(ti::limits().stream_bytes == before.stream_bytes);
  CHECK(ti::limits().json_depth == before.json_depth);  // the spec before the repeat is not set either
  // The same value twice is still two values for one cap.
  CHECK_THROWS_WITH_AS(
      ti::set_limits_from(std::vector<std::string>{"zip_ratio=5", "zip_ratio=5"}),
      "--limit zip_ratio given twice ('zip_ratio=5' and 'zip_ratio=5'): each cap takes one value; give it once",
      ti::Error);
  try {
    ti::set_limits_from(specs);
  } catch (const ti::Error& e) {
    CHECK(e.code() == ti::ErrorCode::Usage);
  }
}

TEST_CASE("a malformed spec among good ones sets none of them") {
  SavedLimits guard;
  const ti::Limits before = ti::limits();
  CHECK_THROWS_WITH_AS(
      ti::set_limits_from(std::vector<std::string>{"json_depth=100", "stream_bytes=0"}),
      "--limit 'stream_bytes=0': expected stream_bytes=N with N a positive count "
      "(K, M, G or KiB, MiB, GiB suffixes allowed)",
      ti::Error);
  CHECK(ti::limits().json_depth == before.json_depth);
}

TEST_CASE("--limit takes 64M and 64MiB alike, and refuses a suffix that is not one") {
  SavedLimits guard;
  ti::set_limit("remote_memory_bytes=64MiB");
  CHECK(ti::limits().remote_memory_bytes == 67108864);  // 64 * 2**20
  ti::set_limit("remote_memory_bytes=2G");
  CHECK(ti::limits().remote_memory_bytes == 2147483648);
  CHECK_THROWS_AS(ti::set_limit("remote_memory_bytes=64iB"), ti::Error);
  CHECK_THROWS_AS(ti::set_limit("remote_memory_bytes=64MB"), ti::Error);  // MB could mean 10**6: not guessed
}

// The literal's depth cap was a constant of literal.cpp, outside the header documented as
// the one place of every cap (user tester); the expression's two were in expr.hpp.
TEST_CASE("the fixed caps of literals and expressions are limits.hpp's, and the parsers refuse past them") {
  static_assert(ti::kMaxLiteralDepth == 64 && ti::kMaxExpressionDepth == 200 && ti::kMaxExpressionNodes == 1024);
  const std::size_t depth = ti::kMaxLiteralDepth;
  CHECK(ti::tensor_from_literal(std::string(depth, '[') + "1" + std::string(depth, ']'), std::nullopt).shape().size() ==
        depth);
  CHECK_THROWS_WITH_AS(
      ti::tensor_from_literal(std::string(depth + 1, '[') + "1" + std::string(depth + 1, ']'), std::nullopt),
      "literal: column 66: nesting deeper than 64 levels", ti::Error);
  const auto levels = static_cast<std::size_t>(ti::kMaxExpressionDepth);
  CHECK_THROWS_WITH_AS(
      ti::evaluate_expression(std::string(levels + 1, '(') + "1" + std::string(levels + 1, ')'), std::nullopt, {}),
      "expression: column 201: expression is nested too deeply (more than 200 levels)", ti::Error);
}
