// Regression tests for the expression faults of issue 9, each named after its bug. Expected
// values are CPython's (computed by hand from Python's rules and checked in a Python shell).
#include <doctest/doctest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/expr.hpp"
#include "tensor_inspect/literal.hpp"
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
  CHECK(error_of("1 << 65") == "expression: column 1: integer 36893488147419103232 is out of the 64-bit range");
  CHECK(int_value("(1 << 65) >> 60") == 32);  // intermediates may leave 64 bits, as in Python
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
  CHECK(error_of("2**63 * 2**63") == "expression: column 7: integer result is out of range (more than 2**120)");
  CHECK(error_of("(2**63-1) * -2 - 2**63") ==
        "expression: column 1: integer -27670116110564327422 is out of the 64-bit range");
  CHECK(error_of("7 % 0") == "expression: column 3: integer division or modulo by zero");
  CHECK(error_of("7 // 0") == "expression: column 3: integer division or modulo by zero");
}

TEST_CASE("Python ints up to 2**64 - 1 compare exactly (issue 9 fault 1)") {
  CHECK(int_value("18446744073709551615 == 18446744073709551614") == 0);
  CHECK(int_value("9223372036854775808 > 9223372036854775807") == 1);
  CHECK(int_value("18446744073709551615 // 3") == 6148914691236517205);
}

TEST_CASE("Tensor.arange(10**13) names its real length in the error (issue 9 fault 13)") {
  CHECK_THROWS_WITH_AS(eval64("Tensor.arange(10**13)"),
                       "expression: column 8: arange: shape (10000000000000,) has more than 1099511627776 elements "
                       "(limit expression_elements; raise it with --limit expression_elements=N)",
                       ti::Error);
  CHECK_THROWS_WITH_AS(eval64("Tensor.arange(0, 1e12, 0.5)"),
                       "expression: column 8: arange: shape (2000000000000,) has more than 1099511627776 elements "
                       "(limit expression_elements; raise it with --limit expression_elements=N)",
                       ti::Error);
  CHECK(test_util::ints(eval64("Tensor.arange(-2**63, 2**63-1, 2**62)")) ==
        std::vector<std::int64_t>{INT64_MIN, -4611686018427387904, 0, 4611686018427387904});
  CHECK_THROWS_WITH_AS(
      eval64("Tensor.arange(3).repeat(2**62, 4)"),
      "expression: column 18: repeat (4611686018427387904, 4) of shape (3,) has more than 1099511627776 elements"
      " (limit expression_elements; raise it with --limit expression_elements=N)",
      ti::Error);
}

TEST_CASE("each dtype's extreme ints reach Tensor() exactly (issue 9 fault 15: Tensor([-2**63]) overflows)") {
  CHECK(test_util::ints(eval64("Tensor([-2**63], dtype=dtypes.int64)")) == std::vector<std::int64_t>{INT64_MIN});
  CHECK(test_util::ints(eval64("Tensor([-2**63, 2**63-1], dtype=dtypes.int64)")) ==
        std::vector<std::int64_t>{INT64_MIN, INT64_MAX});
  CHECK(test_util::realized(eval64("Tensor([2**64-1, 0], dtype=dtypes.uint64)"))[0].as_bits() == UINT64_MAX);
  CHECK(test_util::ints(eval64("Tensor([-2**31, 2**31-1], dtype=dtypes.int32)")) ==
        std::vector<std::int64_t>{INT32_MIN, INT32_MAX});
  CHECK(test_util::ints(eval64("Tensor([2**32-1], dtype=dtypes.uint32)")) == std::vector<std::int64_t>{UINT32_MAX});
  CHECK(test_util::ints(eval64("Tensor([-2**15, -2**7], dtype=dtypes.int16)")) ==
        std::vector<std::int64_t>{-32768, -128});
  CHECK(test_util::ints(eval64("Tensor([1], dtype=dtypes.int64) * (-2**63)")) == std::vector<std::int64_t>{INT64_MIN});
  CHECK(error_of("Tensor([2**64])") == "expression: column 1: integer 18446744073709551616 is out of the 64-bit range");
  // A Python int beyond 64 bits meets a tensor as a weak CONST; the store wraps it (tinygrad: [1]).
  CHECK(test_util::ints(eval64("Tensor([1]) + 2**64")) == std::vector<std::int64_t>{1});
  CHECK(test_util::ints(eval64("Tensor([7], dtype=dtypes.uint8) < 2**64")) == std::vector<std::int64_t>{1});
}

TEST_CASE("a flat chain of 250 + is not nesting (issue 9 fault 14: depth limits counted chain length)") {
  std::string chain = "1";
  for (int i = 0; i < 250; ++i) chain += "+1";
  CHECK(int_value(chain) == 251);
  std::string transposes = "Tensor([[1, 2, 3]])";
  for (int i = 0; i < 301; ++i) transposes += ".T";
  CHECK(eval64(transposes).shape() == ti::Shape{3, 1});
  std::string sums = "Tensor([1, 2])";
  for (int i = 0; i < 150; ++i) sums += " + Tensor([1, 2])";
  CHECK(test_util::ints(eval64(sums)) == std::vector<std::int64_t>{151, 302});
  // Real nesting stays bounded, and so does the length of a chain: refused, never a stack overflow.
  CHECK(error_of(std::string(201, '(') + "1" + std::string(201, ')')) ==
        "expression: column 201: expression is nested too deeply (more than 200 levels)");
  CHECK(int_value(std::string(200, '(') + "1" + std::string(200, ')')) == 1);
  std::string huge = "1";
  for (int i = 0; i < 100000; ++i) huge += "+1";
  CHECK(error_of(huge) ==
        "expression: column 1024: expression has more than 1024 parts (each name, number, operator and call is one)");
}

TEST_CASE("maximum and minimum compare an out-of-range Python int exactly (issue 9 fault 24)") {
  // uint8 [0, 1, 255]: max(x, -1) == x and min(x, 300) == x mathematically; a winning
  // out-of-range int is cast as where() casts it: 300 -> 44, -1 -> 255.
  const std::string x = "Tensor([0, 1, 255], dtype=dtypes.uint8)";
  CHECK(test_util::ints(eval64(x + ".maximum(-1)")) == std::vector<std::int64_t>{0, 1, 255});
  CHECK(test_util::ints(eval64(x + ".minimum(300)")) == std::vector<std::int64_t>{0, 1, 255});
  CHECK(test_util::ints(eval64(x + ".maximum(300)")) == std::vector<std::int64_t>{44, 44, 44});
  CHECK(test_util::ints(eval64(x + ".minimum(-1)")) == std::vector<std::int64_t>{255, 255, 255});
  CHECK(test_util::ints(eval64(x + ".clip(-5, 1000)")) == std::vector<std::int64_t>{0, 1, 255});
  CHECK(test_util::ints(eval64("Tensor([-128, 5], dtype=dtypes.int8).maximum(-200)")) ==
        std::vector<std::int64_t>{-128, 5});
  CHECK(eval64(x + ".maximum(-1)").dtype() == DType::UInt8);
  CHECK(test_util::ints(eval64(x + ".maximum(2)")) == std::vector<std::int64_t>{2, 2, 255});
}

TEST_CASE("clone() is a method, a copy with the same values (issue 9 fault 25)") {
  Tensor c = eval64("Tensor([[1, 2], [3, 4]]).T.clone()");
  CHECK(c.shape() == ti::Shape{2, 2});
  CHECK(test_util::ints(c) == std::vector<std::int64_t>{1, 3, 2, 4});
  CHECK(error_of("Tensor([1]).clone(1)") == "expression: column 13: clone() takes at most 0 arguments (1 given)");
}

// tinygrad's transpose(dim0=1, dim1=0) swaps two items of the list range(ndim), so each dim
// is a Python list index in [-ndim, ndim): on a 0-d tensor none is (x.T raises IndexError
// "list index out of range"), on a 1-d one -1 and 0 are (transpose(-1, 0) is the tensor
// itself) but T's 1 is not. Our messages name the method and the shape.
TEST_CASE(
    "x.T and transpose() of 0-d and 1-d tensors follow tinygrad's list indexing, in our words (new user: 0-d x.T)") {
  CHECK_THROWS_WITH_AS(eval64("Tensor(5).T"),
                       "expression: column 11: T (transpose(1, 0)) of shape (): a 0-d tensor has no dims to swap",
                       ti::Error);
  CHECK(error_of("Tensor([1, 2]).T") ==
        "expression: column 16: T (transpose(1, 0)) of shape (2,): a 1-d tensor has no dim 1 (x.reshape(-1, 1) is a "
        "column)");
  CHECK(error_of("Tensor(5).transpose()") ==
        "expression: column 11: transpose(1, 0) of shape (): a 0-d tensor has no dims to swap");
  CHECK(error_of("Tensor(5).transpose(0, 0)") ==
        "expression: column 11: transpose(0, 0) of shape (): a 0-d tensor has no dims to swap");
  CHECK(error_of("Tensor([1, 2]).transpose()") ==
        "expression: column 16: transpose(1, 0) of shape (2,): no dim 1 (dims are -1 to 0)");
  CHECK(error_of("Tensor([[1, 2]]).transpose(0, -3)") ==
        "expression: column 18: transpose(0, -3) of shape (1, 2): no dim -3 (dims are -2 to 1)");
  for (const char* ok :
       {"Tensor([1, 2]).transpose(-1, 0)", "Tensor([1, 2]).transpose(0, -1)", "Tensor([1, 2]).transpose(0, 0)"}) {
    CAPTURE(ok);
    CHECK(test_util::ints(eval64(ok)) == std::vector<std::int64_t>{1, 2});
  }
  CHECK(test_util::ints(eval64("Tensor([[1, 2], [3, 4]]).transpose(-2, -1)")) == std::vector<std::int64_t>{1, 3, 2, 4});
  // ours alone: an error, exit status 2, not an exception type of Python's
  CHECK_THROWS_AS(eval64("Tensor(5).T"), ti::Error);
}

// Python compares tuples and lists item by item and orders them lexicographically; values of
// different types are unequal (a tuple never equals a list). Each expected bool is what
// CPython 3 gives for the same expression with shape = (2, 3); --assert 'x.shape == (3, 4)'
// said "unsupported operand type(s) for ==: 'tuple' and 'tuple'".
TEST_CASE("x.shape == (2, 3) is Python's tuple comparison, a bool (user tester: tuple == tuple refused)") {
  const Tensor x = ti::tensor_from_literal("[[1, 2, 3], [4, 5, 6]]", std::nullopt);
  auto truth = [&](const std::string& e) {
    const Tensor r = ti::evaluate_expression(e, x, {});
    REQUIRE(r.dtype() == DType::Bool);
    REQUIRE(r.shape().empty());
    return test_util::ints(r)[0] == 1;
  };
  const std::pair<const char*, bool> cases[] = {
      {"x.shape == (2, 3)", true},           {"x.shape != (2, 3)", false},          {"x.shape != (2,)", true},
      {"x.shape == (2.0, 3)", true},         {"x.shape == [2, 3]", false},          {"x.shape != [2, 3]", true},
      {"x.shape == 6", false},               {"x.shape == 2**70", false},           {"() == ()", true},
      {"(True, 1) == (1, 1.0)", true},       {"((1, 2), 3) == ((1, 2), 3)", true},  {"None == None", true},
      {"x.shape < (2, 4)", true},            {"x.shape < (2, 3)", false},           {"x.shape <= (2, 3)", true},
      {"x.shape > (2,)", true},              {"(1, 2) > (1, 1, 9)", true},          {"[1, 2] < [1, 2, 0]", true},
      {"x.dtype == dtypes.int32", true},     {"x.dtype != dtypes.int", false},      {"x.dtype == 1", false},
  };
  for (const auto& c : cases) {  // not a structured binding: clang 14's CAPTURE cannot capture one
    const std::string e = c.first;
    CAPTURE(e);
    CHECK(truth(e) == c.second);
  }
  auto error_with_x = [&](const std::string& e) {
    try {
      ti::evaluate_expression(e, x, {});
    } catch (const ti::Error& err) {
      return std::string(err.what());
    }
    return std::string("(no error)");
  };
  // CPython's TypeError, word for word after the column.
  CHECK(error_with_x("x.shape < [2, 3]") ==
        "expression: column 9: '<' not supported between instances of 'tuple' and 'list'");
  CHECK(error_with_x("x.shape >= 6") ==
        "expression: column 9: '>=' not supported between instances of 'tuple' and 'int'");
  CHECK(error_with_x("(1, None) < (1, 2)") ==
        "expression: column 11: '<' not supported between instances of 'NoneType' and 'int'");
  CHECK(error_with_x("(x, 1) == (x, 1)").find("holds a Tensor") != std::string::npos);
}
