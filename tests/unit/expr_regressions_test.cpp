// Regression tests for the expression faults of issue 9, each named after its bug. Expected
// values are CPython's (computed by hand from Python's rules and checked in a Python shell).
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/expr.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;
using ti::DType;
using ti::Tensor;

namespace {

ti::Defaults int64_defaults() {
  ti::Defaults d;
  d.int_dtype = DType::Int64;
  return d;
}

Tensor eval64(const std::string& e) { return ti::evaluate_expression(e, std::nullopt, int64_defaults()); }

std::int64_t int_value(const std::string& e) {
  std::vector<std::int64_t> v = test_util::ints(eval64(e));
  REQUIRE(v.size() == 1);
  return v[0];
}

std::string error_of(const std::string& e) {
  try {
    eval64(e);
  } catch (const ti::Error& err) {
    return err.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("constant folding never shifts by 64 bits or more (issue 9 fault 1: UB in folding)") {
  CHECK(int_value("0 << 64") == 0);
  CHECK(int_value("0 << 10**18") == 0);
  CHECK(int_value("-1 << 63") == INT64_MIN);
  CHECK(int_value("3 >> 64") == 0);
  CHECK(int_value("-3 >> 200") == -1);
  CHECK(error_of("1 << 65") == "expression: column 3: integer result is out of the 64-bit range");
  CHECK(error_of("1 << -1") == "expression: column 3: negative shift count");
}

TEST_CASE("constant folding never overflows a signed int (issue 9 fault 1: UB in folding)") {
  CHECK(int_value("(2**63-1) // -2") == -4611686018427387904);
  CHECK(int_value("(2**63-1) % -2") == -1);
  CHECK(int_value("-2**63 % -1") == 0);
  CHECK(int_value("-2**63 // -1 - 1") == INT64_MAX);  // 2**63 is a Python int, then back in range
  CHECK(int_value("(-2)**63") == INT64_MIN);
  CHECK(int_value("-(-2**63) - 1") == INT64_MAX);
  CHECK(int_value("~(-2**63)") == INT64_MAX);
  CHECK(int_value("(-2**63) % 3") == 1);
  CHECK(error_of("2**63 * 2**63") == "expression: column 7: integer result is out of the 64-bit range");
  CHECK(error_of("(2**63-1) * -2 - 2**63") == "expression: column 11: integer result is out of the 64-bit range");
  CHECK(error_of("7 % 0") == "expression: column 3: integer division or modulo by zero");
  CHECK(error_of("7 // 0") == "expression: column 3: integer division or modulo by zero");
}

TEST_CASE("Python ints up to 2**64 - 1 compare exactly (issue 9 fault 1)") {
  CHECK(int_value("18446744073709551615 == 18446744073709551614") == 0);
  CHECK(int_value("9223372036854775808 > 9223372036854775807") == 1);
  CHECK(int_value("18446744073709551615 // 3") == 6148914691236517205);
}

TEST_CASE("Tensor.arange(10**12) names its real length in the error (issue 9 fault 13)") {
  CHECK_THROWS_WITH_AS(eval64("Tensor.arange(10**12)"),
                       "expression: column 8: arange: shape (1000000000000,) has more than 2147483648 elements", ti::Error);
  CHECK_THROWS_WITH_AS(eval64("Tensor.arange(0, 1e12, 0.5)"),
                       "expression: column 8: arange: shape (2000000000000,) has more than 2147483648 elements", ti::Error);
  CHECK(test_util::ints(eval64("Tensor.arange(-2**63, 2**63-1, 2**62)")) ==
        std::vector<std::int64_t>{INT64_MIN, -4611686018427387904, 0, 4611686018427387904});
  CHECK_THROWS_WITH_AS(eval64("Tensor.arange(3).repeat(2**62, 4)"),
                       "expression: column 18: repeat (4611686018427387904, 4) of shape (3,) has more than 2147483648 elements",
                       ti::Error);
}
