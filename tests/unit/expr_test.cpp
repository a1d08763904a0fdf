#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/expr.hpp"
#include "tensor_inspect/frontend.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;
using ti::DType;
using ti::Scalar;
using ti::Tensor;

namespace {

Tensor eval(const std::string& e, const std::optional<Tensor>& x = std::nullopt) {
  return ti::evaluate_expression(e, x, {});
}

using test_util::values;

double value(const std::string& e) {
  std::vector<double> v = values(eval(e));
  REQUIRE(v.size() == 1);
  return v[0];
}

// [[1, 2, 3], [4, 5, 6]] as int32.
Tensor x23() {
  std::vector<Scalar> v;
  for (int i = 1; i <= 6; ++i) v.push_back(Scalar::from_int(i));
  return ti::tg::from_values(v, {2, 3}, std::nullopt);
}

}  // namespace

TEST_CASE("** binds tighter than a unary minus on its left and is right-associative") {
  CHECK(ti::expression_tree("-2**2") == "(neg (** 2 2))");
  CHECK(ti::expression_tree("2**-1") == "(** 2 (neg 1))");
  CHECK(ti::expression_tree("2**3**2") == "(** 2 (** 3 2))");
  CHECK(value("-2**2") == -4);
  CHECK(value("2**3**2") == 512);
  CHECK(value("2**-1") == 0.5);
}

TEST_CASE("arithmetic, bitwise and comparison operators follow Python's precedence") {
  CHECK(ti::expression_tree("1 + 2 * 3") == "(+ 1 (* 2 3))");
  CHECK(ti::expression_tree("1 - 2 - 3") == "(- (- 1 2) 3)");
  CHECK(ti::expression_tree("x < 1 + 2") == "(< x (+ 1 2))");
  CHECK(ti::expression_tree("a | b ^ c & d << 1") == "(| a (^ b (& c (<< d 1))))");
  CHECK(ti::expression_tree("x @ y * 2") == "(* (@ x y) 2)");
  CHECK(ti::expression_tree("-x.T") == "(neg (. x T))");
  CHECK(ti::expression_tree("~x[0]") == "(inv (index x 0))");
  CHECK(ti::expression_tree("(1 + 2) * 3") == "(* (+ 1 2) 3)");
  CHECK(value("1 + 2 * 3") == 7);
  CHECK(value("10 - 2 - 3") == 5);
}

TEST_CASE("not binds looser than a comparison, as Python's not_test, and negates") {
  CHECK(ti::expression_tree("not x < 1") == "(not (< x 1))");
  CHECK(ti::expression_tree("not not x") == "(not (not x))");
  CHECK(ti::expression_tree("not x.isnan().any()") == ti::expression_tree("not (x.isnan().any())"));
  CHECK(value("not 0") == 1);  // Python: not 0 is True
  CHECK(value("not 2.5") == 0);
  CHECK(value("not None") == 1);
  CHECK(values(eval("not (x - 2)", x23())) ==
        std::vector<double>{0, 1, 0, 0, 0, 0});  // logical_not of [[-1, 0, 1], ...]
}

TEST_CASE("number literals: underscores, hex, octal, binary and the float spellings") {
  CHECK(ti::expression_tree("1_000") == "1000");
  CHECK(ti::expression_tree("0x1F") == "31");
  CHECK(ti::expression_tree("0o17") == "15");
  CHECK(ti::expression_tree("0b101") == "5");
  CHECK(ti::expression_tree("1.") == "1.0");
  CHECK(ti::expression_tree(".5") == "0.5");
  CHECK(ti::expression_tree("1e3") == "1000.0");
  CHECK(ti::expression_tree("2.5E-1") == "0.25");
  CHECK(ti::expression_tree("18446744073709551615") == "18446744073709551615");
}

TEST_CASE("number literals: one underscore may follow a base prefix, as Python allows (0x_1f is 31)") {
  CHECK(ti::expression_tree("0x_1f") == "31");
  CHECK(ti::expression_tree("0o_1_7") == "15");
  CHECK(ti::expression_tree("0B_1") == "1");
  CHECK_THROWS_WITH_AS(ti::expression_tree("0x__1"), "expression: column 4: invalid number literal", ti::Error);
  CHECK_THROWS_WITH_AS(ti::expression_tree("0x_"), "expression: column 3: invalid number literal", ti::Error);
}

TEST_CASE("calls, keywords, slices, None and ellipsis parse into the tree") {
  CHECK(ti::expression_tree("x.sum(axis=0, keepdim=True)") == "(call (. x sum) axis=0 keepdim=True)");
  CHECK(ti::expression_tree("x[1:, ::-1, None, ...]") ==
        "(index x (tuple (slice 1 _ _) (slice _ _ (neg 1)) None ...))");
  CHECK(ti::expression_tree("x[::2]") == "(index x (slice _ _ 2))");
  CHECK(ti::expression_tree("x[0,]") == "(index x (tuple 0))");
  CHECK(ti::expression_tree("x.pad(((1, 0), None))") == "(call (. x pad) (tuple (tuple 1 0) None))");
  CHECK(ti::expression_tree("Tensor([1, 2], dtype=dtypes.half)") == "(call Tensor (list 1 2) dtype=(. dtypes half))");
  CHECK(ti::expression_tree("f()") == "(call f)");
  CHECK(ti::expression_tree("(1,)") == "(tuple 1)");
  CHECK(ti::expression_tree("()") == "(tuple)");
}

TEST_CASE("Python scalar arithmetic is folded as Python computes it") {
  CHECK(value("7 // -2") == -4);
  CHECK(value("-7 % 3") == 2);
  CHECK(value("7 % -3") == -2);
  CHECK(value("-7.5 // 2") == -4.0);
  CHECK(value("1 / 4") == 0.25);
  CHECK(value("True + True") == 2);
  CHECK(value("2 ** 62 // 2 ** 60") == 4);
  CHECK(values(eval("Tensor([1], dtype=dtypes.int64) + 2 ** 40")) == std::vector<double>{1099511627777.0});
  CHECK(value("1 << 4") == 16);
  CHECK(value("-9 >> 1") == -5);
  CHECK(value("~5") == -6);
  CHECK(std::isinf(value("float('inf')")));
  CHECK(std::isnan(value("float('nan')")));
  CHECK(value("float('-inf')") == -INFINITY);
  CHECK(value("int(-2.7)") == -2);
  CHECK(value("abs(-3)") == 3);
  CHECK(value("math.pi") == doctest::Approx(3.141592653589793));
  CHECK(value("3 > 2") == 1);
}

TEST_CASE("a Python scalar result is a 0-d tensor of its weak dtype") {
  CHECK(eval("5").dtype() == DType::WeakInt);
  CHECK(eval("2.5").dtype() == DType::WeakFloat);
  CHECK(eval("True").dtype() == DType::Bool);
  CHECK(eval("1 / 3").shape().empty());
}

TEST_CASE("expressions over x reach the tinygrad frontend") {
  Tensor x = x23();
  CHECK(values(eval("x.T.reshape(6)", x)) == std::vector<double>{1, 4, 2, 5, 3, 6});
  CHECK(values(eval("x[0, 1:]", x)) == std::vector<double>{2, 3});
  CHECK(values(eval("x[:, ::-1][-1]", x)) == std::vector<double>{6, 5, 4});
  CHECK(values(eval("x.sum(axis=1)", x)) == std::vector<double>{6, 15});
  CHECK(values(eval("(x > 2).where(x, -x)", x)) == std::vector<double>{-1, -2, 3, 4, 5, 6});
  CHECK(values(eval("x.reshape(x.shape[0], -1, 1).flatten()", x)) == std::vector<double>{1, 2, 3, 4, 5, 6});
  CHECK(eval("x.cast(dtypes.float16) * 2", x).dtype() == DType::Float16);
  CHECK(eval("x / 2", x).dtype() == DType::Float32);
  CHECK(values(eval("Tensor.arange(6).reshape(2, 3) @ Tensor.ones(3, dtype=dtypes.int32)")) ==
        std::vector<double>{3, 12});
  CHECK(values(eval("Tensor([[1, 2], [3, 4]]).T")) == std::vector<double>{1, 3, 2, 4});
  CHECK(values(eval("Tensor.ones_like(x)", x)) == std::vector<double>{1, 1, 1, 1, 1, 1});
  CHECK(values(eval("x.pad((1, 0), value=-1)[0]", x)) == std::vector<double>{-1, 1, 2, 3});
}

TEST_CASE("malformed expressions are refused with the column and the problem") {
  Tensor x = x23();
  auto bad = [&](const char* e, const char* msg) {
    CAPTURE(e);
    CHECK_THROWS_WITH_AS(ti::evaluate_expression(e, x, {}), msg, ti::Error);
  };
  bad("x.foo()", "expression: column 3: unknown method 'foo' of Tensor");
  bad("x.bar", "expression: column 3: unknown attribute 'bar' of Tensor");
  bad("y + 1", "expression: column 1: name 'y' is not defined");
  bad("x.sum(0, True, 3)", "expression: column 3: sum() takes at most 2 arguments (3 given)");
  bad("x.sum(axes=0)", "expression: column 3: sum() got an unexpected keyword argument 'axes'");
  bad("x.cast()", "expression: column 3: cast() missing required argument 'dtype'");
  bad("x.cast(dtypes.float17)", "expression: column 15: unknown dtype 'dtypes.float17'");
  bad("x.reshape(4, 2)", "expression: column 3: cannot reshape (2, 3) to (4, 2)");
  bad("x.reshape(-1, -1)", "expression: column 3: only one dimension can be inferred using -1, getting (-1, -1)");
  bad("x + Tensor([1, 2])", "expression: column 3: cannot broadcast (2, 3) with (2,)");
  bad("x.sum(", "expression: column 6: '(' was never closed");
  bad("(x + 1", "expression: column 1: '(' was never closed");
  bad("x[0", "expression: column 2: '[' was never closed");
  bad("x[::0]", "expression: column 2: slice step cannot be zero");
  bad("x[5]", "expression: column 2: index 5 is out of bounds for dimension 0 with size 2");
  bad("x[0, -4]", "expression: column 2: index -4 is out of bounds for dimension 1 with size 3");
  bad("x[0, 0, 0]", "expression: column 2: too many indices for tensor: tensor is 2-dimensional, but 3 were indexed");
  bad("x[..., ...]", "expression: column 2: an index can only have a single ellipsis ('...')");
  bad("x[1.5]", "expression: column 2: invalid index of type float");
  bad("x +", "expression: column 4: unexpected end of expression");
  bad("x + * 2", "expression: column 5: unexpected '*'");
  bad("x $ 2", "expression: column 3: unexpected character '$'");
  bad("x.permute(0, 0)", "expression: column 3: order is not a valid permutation, getting (0, 0)");
  bad("x.sum(axis=2)", "expression: column 3: dim=2 out of range [-2, 1]");
  bad("x.expand(2, 4)", "expression: column 3: cannot broadcast (2, 3) to new_shape=(2, 4)");
  bad("x.shrink(((0, 3), (0, 1)))", "expression: column 3: invalid shrink ((0, 3), (0, 1)) for (2, 3)");
  bad("x.bitcast(dtypes.int64)", "expression: column 3: unsupported size in bitcast: (2, 3) int32 to int64");
  bad("Tensor(5).bitcast(dtypes.int32)",
      "expression: column 11: bitcast requires concrete dtypes, got dtypes.weakint -> dtypes.int32");
  bad("x.reshape(2.5)", "expression: column 3: reshape() shape must be an int, got float");
  bad("1 / 0", "expression: column 3: division by zero");
  bad("x < 1 < 2", "expression: column 7: chained comparisons are not supported");
  bad("x and x", "expression: column 3: unexpected name 'and'");
  bad("", "expression: column 1: empty expression");
  bad("x.sum(axis=0, axis=1)", "expression: column 15: keyword argument repeated: axis");
  bad("x.sum(axis=0, 1)", "expression: column 15: positional argument follows keyword argument");
  bad("'abc", "expression: column 1: unterminated string literal");
  bad("1__0", "expression: column 3: invalid number literal");
  bad("0777", "expression: column 1: leading zeros in decimal integer literals are not permitted");
  bad("9999999999999999999999999999999999999999",
      "expression: column 1: integer literal 9999999999999999999999999999999999999999 is too large (beyond 2**120)");
  bad("x.shape", "expression: column 1: the expression gives a tuple, not a Tensor");
  bad("Tensor([[1, 2], [3]])", "expression: column 1: Tensor(): ragged nested sequence");
  bad("x.T.T.foo", "expression: column 7: unknown attribute 'foo' of Tensor");
  bad("Tensor.ones(2**41)",
      "expression: column 8: full: shape (2199023255552,) has more than 1099511627776 elements (limit "
      "expression_elements; raise it with --limit expression_elements=N)");
  bad("Tensor.arange(0, 10, 0)", "expression: column 8: arange: step cannot be 0");
}

TEST_CASE("using x without an INPUT names the problem") {
  CHECK_THROWS_WITH_AS(ti::evaluate_expression("x + 1", std::nullopt, {}),
                       "expression: column 1: name 'x' is not defined (no INPUT given)", ti::Error);
}

TEST_CASE("error codes: syntax and names are BadExpression, shapes are BadShape") {
  Tensor x = x23();
  auto code = [&](const char* e) {
    try {
      ti::evaluate_expression(e, x, {});
    } catch (const ti::Error& err) {
      return err.code();
    }
    return ti::ErrorCode::Internal;
  };
  CHECK(code("x.foo()") == ti::ErrorCode::BadExpression);
  CHECK(code("x +") == ti::ErrorCode::BadExpression);
  CHECK(code("x.reshape(5)") == ti::ErrorCode::BadShape);
  CHECK(code("x[7]") == ti::ErrorCode::BadShape);
  CHECK(code("x + Tensor([1, 2])") == ti::ErrorCode::BadShape);
}

TEST_CASE("deep nesting is refused, not a stack overflow") {
  std::string deep(5000, '(');
  deep += "1";
  deep += std::string(5000, ')');
  CHECK_THROWS_AS(ti::evaluate_expression(deep, std::nullopt, {}), ti::Error);
  std::string minus(5000, '-');
  CHECK_THROWS_AS(ti::evaluate_expression(minus + "1", std::nullopt, {}), ti::Error);
  std::string chain = "x";
  for (int i = 0; i < 5000; ++i) chain += ".T";
  CHECK_THROWS_AS(ti::evaluate_expression(chain, x23(), {}), ti::Error);
  std::string sum = "1";
  for (int i = 0; i < 5000; ++i) sum += "+1";
  CHECK_THROWS_AS(ti::evaluate_expression(sum, std::nullopt, {}), ti::Error);
  std::string ok = "x";
  for (int i = 0; i < 100; ++i) ok += ".T";
  CHECK(ti::evaluate_expression(ok, x23(), {}).shape() == ti::Shape{2, 3});
}

TEST_CASE("Tensor(None) is what the literal None gives: a 0-d float32 0.0 (conformance weak_infer/none_literal)") {
  const Tensor t = eval("Tensor(None)");
  CHECK(t.shape().empty());
  CHECK(t.dtype() == ti::DType::WeakFloat);  // "weak": true, shown as float32
  CHECK(values(t) == std::vector<double>{0.0});
  CHECK(eval("Tensor(None, dtype=dtypes.int8)").dtype() == ti::DType::Int8);
}
