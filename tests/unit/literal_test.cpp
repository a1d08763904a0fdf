#include <doctest/doctest.h>

#include <cmath>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/literal.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "test_util.hpp"

namespace ti = tensor_inspect;
using ti::DType;

using test_util::mv;

TEST_CASE("literal dtype inference follows dtypes.from_py: bool < int < float, scalars weak") {
  CHECK(ti::tensor_from_literal("[[1, 2], [3, 4]]", std::nullopt).dtype() == DType::Int32);
  CHECK(ti::tensor_from_literal("[1, 2.0, True]", std::nullopt).dtype() == DType::Float32);
  CHECK(ti::tensor_from_literal("[True, False]", std::nullopt).dtype() == DType::Bool);
  CHECK(ti::tensor_from_literal("[]", std::nullopt).dtype() == DType::Float32);
  CHECK(ti::tensor_from_literal("5", std::nullopt).dtype() == DType::WeakInt);
  CHECK(ti::tensor_from_literal("2.5", std::nullopt).dtype() == DType::WeakFloat);
  CHECK(ti::tensor_from_literal("True", std::nullopt).dtype() == DType::Bool);
  CHECK(ti::tensor_from_literal("None", std::nullopt).dtype() == DType::WeakFloat);
  ti::Defaults d{DType::Int64, DType::Float64};
  CHECK(ti::tensor_from_literal("[1, 2]", std::nullopt, d).dtype() == DType::Int64);
  CHECK(ti::tensor_from_literal("[1.5]", std::nullopt, d).dtype() == DType::Float64);
}

TEST_CASE("literal shapes: nested lists and tuples, (5,) is 1-d, (5) is a scalar") {
  CHECK(ti::tensor_from_literal("((1, 2), (3, 4))", std::nullopt).shape() == ti::Shape{2, 2});
  CHECK(ti::tensor_from_literal("(5,)", std::nullopt).shape() == ti::Shape{1});
  CHECK(ti::tensor_from_literal("(5)", std::nullopt).shape() == ti::Shape{});
  CHECK(ti::tensor_from_literal("[[], [], []]", std::nullopt).shape() == ti::Shape{3, 0});
  CHECK(ti::tensor_from_literal("[1, 2,]", std::nullopt).shape() == ti::Shape{2});
}

TEST_CASE("literal numbers in every Python spelling") {
  auto m = mv("[1_000, 0x1f, 0o17, 0b101, -3]");
  CHECK(m.element(0).i == 1000);
  CHECK(m.element(1).i == 31);
  CHECK(m.element(2).i == 15);
  CHECK(m.element(3).i == 5);
  CHECK(m.element(4).i == -3);
  auto f = mv("[1., .5, 1e3, 1_000.5, -0.0, float('inf'), -float('inf'), 1e400]", DType::Float64);
  CHECK(f.element(0).f == 1.0);
  CHECK(f.element(1).f == 0.5);
  CHECK(f.element(2).f == 1000.0);
  CHECK(f.element(3).f == 1000.5);
  CHECK(std::signbit(f.element(4).f));
  CHECK(f.element(5).f == INFINITY);
  CHECK(f.element(6).f == -INFINITY);
  CHECK(f.element(7).f == INFINITY);
  CHECK(std::isnan(mv("[float('nan')]").element(0).f));
}

TEST_CASE("literal values convert as dtypes.as_const then truncate: wrap, truncate toward zero") {
  auto u8 = mv("[300, -1, 3.7, 255.9, True]", DType::UInt8);
  CHECK(u8.element(0).u == 44);
  CHECK(u8.element(1).u == 255);
  CHECK(u8.element(2).u == 3);
  CHECK(u8.element(3).u == 255);
  CHECK(u8.element(4).u == 1);
  CHECK(mv("[18446744073709551616, 18446744073709551617]", DType::UInt64).element(1).u == 1);
  CHECK(mv("[3000000000]").element(0).i == -1294967296);
  auto b = mv("[0, 2, -0.0, 0.5]", DType::Bool);
  CHECK_FALSE(b.element(0).b);
  CHECK(b.element(1).b);
  CHECK_FALSE(b.element(2).b);
  CHECK(b.element(3).b);
  CHECK(mv("[18446744073709551616]", DType::Bool).element(0).b);  // 2**64 is truthy
}

TEST_CASE("literal errors name the column and the problem") {
  using ti::Error;
  CHECK_THROWS_WITH_AS(ti::tensor_from_literal("[1, 2", std::nullopt), "literal: column 1: '[' was never closed",
                       Error);
  CHECK_THROWS_WITH_AS(ti::tensor_from_literal("[1,, 2]", std::nullopt),
                       "literal: column 4: invalid syntax (unexpected ',')", Error);
  CHECK_THROWS_WITH_AS(ti::tensor_from_literal("[1 2]", std::nullopt),
                       "literal: column 4: invalid syntax. Perhaps you forgot a comma?", Error);
  CHECK_THROWS_WITH_AS(ti::tensor_from_literal("[nan]", std::nullopt),
                       "literal: column 2: name 'nan' is not defined (write float('nan'))", Error);
  CHECK_THROWS_WITH_AS(ti::tensor_from_literal("'abc'", std::nullopt),
                       "literal: column 1: strings are not tensor values", Error);
  CHECK_THROWS_WITH_AS(ti::tensor_from_literal("[None]", std::nullopt),
                       "literal: column 2: Could not infer dtype of None", Error);
  CHECK_THROWS_WITH_AS(
      ti::tensor_from_literal("[[1, 2], [3]]", std::nullopt),
      "literal: column 10: inhomogeneous shape from [[1, 2], [3]]: element 1 has shape (1,), element 0 has (2,)",
      Error);
  CHECK_THROWS_WITH_AS(ti::tensor_from_literal("[1, 2)", std::nullopt),
                       "literal: column 6: closing ')' does not match opening '['", Error);
  CHECK_THROWS_WITH_AS(ti::tensor_from_literal("[float('nan')]", DType::Int32),
                       "literal: column 2: cannot convert float NaN to integer", Error);
  CHECK_THROWS_WITH_AS(ti::tensor_from_literal("", std::nullopt), "literal: column 1: empty literal", Error);
  CHECK_THROWS_WITH_AS(ti::tensor_from_literal("1j", std::nullopt),
                       "literal: column 1: complex numbers are not tensor values", Error);
  CHECK_THROWS_WITH_AS(ti::tensor_from_literal("[1] 2", std::nullopt),
                       "literal: column 5: unexpected '2' after the value (invalid syntax)", Error);
  CHECK_THROWS_WITH_AS(ti::tensor_from_literal("007", std::nullopt),
                       "literal: column 1: leading zeros in decimal integer literals are not permitted", Error);
  std::string deep(200, '[');
  CHECK_THROWS_WITH_AS(ti::tensor_from_literal(deep, std::nullopt), "literal: column 66: nesting deeper than 64 levels",
                       Error);
}

TEST_CASE("literal numbers take underscores only where Python does: one, between digits or after a base prefix") {
  // ast.literal_eval refuses each of these (CPython 3.11: SyntaxError with this message);
  // the column is the misplaced underscore's, or the number's when a part is missing.
  const std::pair<const char*, const char*> bad[] = {
      {"[1__0]", "literal: column 3: invalid decimal literal"},
      {"[1_]", "literal: column 3: invalid decimal literal"},
      {"[1._5]", "literal: column 4: invalid decimal literal"},
      {"[1_.5]", "literal: column 3: invalid decimal literal"},
      {"[0x1__2]", "literal: column 5: invalid hexadecimal literal"},
      {"[1e1__0]", "literal: column 5: invalid decimal literal"},
      {"[1e_5]", "literal: column 2: invalid decimal literal"},
      {"[1_e5]", "literal: column 3: invalid decimal literal"},
      {"[0x__1]", "literal: column 4: invalid hexadecimal literal"},
      {"[0x1_]", "literal: column 5: invalid hexadecimal literal"},
      {"[0b_]", "literal: column 4: invalid binary literal"},
      {"[0o]", "literal: column 2: invalid octal literal"},
      {"[0b12]", "literal: column 5: invalid digit '2' in binary literal"},
      {"[0o8]", "literal: column 4: invalid digit '8' in octal literal"},
      {"[0x1g]", "literal: column 5: invalid hexadecimal literal"},
      {"[0_x1]", "literal: column 3: invalid decimal literal"},
      {"[._5]", "literal: column 2: invalid syntax"},
      {"[0_1]", "literal: column 2: leading zeros in decimal integer literals are not permitted"},
  };
  for (const auto& [text, message] : bad)
    CHECK_THROWS_WITH_AS(ti::tensor_from_literal(text, std::nullopt), message, ti::Error);
  // ... and takes these as ast.literal_eval does.
  auto m = mv("[0x_1f, 0O_17, 0b_1_0, 1_0, 0_0, 00]");
  CHECK(m.element(0).i == 31);
  CHECK(m.element(1).i == 15);
  CHECK(m.element(2).i == 2);
  CHECK(m.element(3).i == 10);
  CHECK(m.element(4).i == 0);
  CHECK(m.element(5).i == 0);
  auto f = mv("[1_0.5_0, 1e1_0, 0_1.5, 1_0e-0_1, 1.e1]", DType::Float64);
  CHECK(f.element(0).f == 10.5);
  CHECK(f.element(1).f == 1e10);
  CHECK(f.element(2).f == 1.5);
  CHECK(f.element(3).f == 1.0);
  CHECK(f.element(4).f == 10.0);
}

TEST_CASE("a literal longer than Limits::literal_bytes is refused naming the cap") {
  const ti::Limits saved = ti::limits();
  ti::Limits l = saved;
  l.literal_bytes = 8;
  ti::set_limits(l);
  CHECK(test_util::tolist(ti::tensor_from_literal("[1, 2.5]", std::nullopt)) == "[1.0, 2.5]");  // 8 bytes: at the cap
  CHECK_THROWS_WITH_AS(
      ti::tensor_from_literal("[1, 2, 3]", std::nullopt),
      "literal: 9 bytes, more than the 8 of text a literal may hold (limit literal_bytes; raise it with "
      "--limit literal_bytes=N)",
      ti::Error);
  ti::set_limits(saved);
}

TEST_CASE("may_begin_literal: what a literal starts with, so junk on a pipe is refused at once") {
  for (const char* text :
       {"[1, 2]", "  (1,)", "\n-5", "+.5", "7", "True", "False ", "None", "float('nan')", "   ", "", "Tr", "fl"})
    CHECK_MESSAGE(ti::may_begin_literal(text), text);
  for (const char* text : {"junk", "{\"a\": 1}", "<html>", "Trap", "nan", "x = [1]", "\v[1]", "'abc'"})
    CHECK_MESSAGE(!ti::may_begin_literal(text), text);
}
