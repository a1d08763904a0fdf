// literal/literal_parser.hpp — the grammar of the Python literals users write as tensors:
// a recursive-descent parser that reads scalars into one flat list in element order and
// keeps only a list's shape while reading it. Typing the scalars and building the tensor is
// literal.cpp's; only literal.cpp includes this.
#pragma once

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/literal.hpp"

namespace tensor_inspect::literal_syntax {

struct LitValue {
  enum Kind : std::uint8_t { Bool, Int, Float, None } kind = Int;
  bool b = false;
  bool nonzero = false;    // Int: exact truthiness (2**64 is nonzero though bits == 0)
  std::uint32_t column = 0;  // as a Leaf: where the scalar starts (tensor_from_literal keeps texts below 4 GiB)
  std::uint64_t bits = 0;  // Int: the value modulo 2^64
  double f = 0.0;          // Float, and Int correctly rounded to a double
};

/// One scalar of the literal, in element order (24 bytes), with the column messages name.
using Leaf = LitValue;

/// What value() read: a scalar (then the parser's last leaf) or a list and its shape.
struct Item {
  bool is_list = false;
  std::size_t column = 0;
  Shape shape;  // a list's: its length, then its first element's shape
};

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  /// Reads the whole literal into leaves(); the root's kind and shape. Throws the first
  /// syntax error, else the first inhomogeneous shape.
  Item parse() {
    skip_ws();
    if (pos_ == s_.size()) fail(pos_, "empty literal");
    Item n = value(0);
    skip_ws();
    if (pos_ != s_.size()) fail(pos_, "unexpected '" + char_at(pos_) + "' after the value (invalid syntax)");
    if (!shape_error_.empty()) fail(shape_error_column_, shape_error_);
    return n;
  }

  const std::vector<Leaf>& leaves() const { return leaves_; }

  [[noreturn]] void fail(std::size_t at, const std::string& what) const {
    throw Error(ErrorCode::BadLiteral, "literal: column " + std::to_string(at + 1) + ": " + what);
  }

 private:
  // The whole UTF-8 character at `at` (one byte when the bytes there are not valid UTF-8).
  std::string char_at(std::size_t at) const {
    auto c = static_cast<unsigned char>(s_[at]);
    std::size_t len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 1;
    if (at + len > s_.size()) len = 1;
    for (std::size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s_[at + k]) & 0xc0) != 0x80) len = 1;
    return std::string(s_.substr(at, len));
  }

  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  bool peek(char c) {
    skip_ws();
    return pos_ < s_.size() && s_[pos_] == c;
  }

  Item value(std::size_t depth) {
    skip_ws();
    if (depth > kMaxLiteralDepth) fail(pos_, "nesting deeper than " + std::to_string(kMaxLiteralDepth) + " levels");
    if (pos_ == s_.size()) fail(pos_, "unexpected end of literal (a value is missing)");
    const std::size_t start = pos_;
    char c = s_[pos_];
    if (c == '[' || c == '(') return sequence(depth);
    if (c == '-' || c == '+') {
      ++pos_;
      Item n = value(depth + 1);
      if (n.is_list || leaves_.back().kind == LitValue::None)
        fail(start, std::string("bad operand type for unary ") + c);
      LitValue& v = leaves_.back();
      if (c == '-') negate(v);
      else if (v.kind == LitValue::Bool) v = int_of_bool(v.b);
      leaves_.back().column = static_cast<std::uint32_t>(start);
      n.column = start;
      return n;
    }
    if (c == '\'' || c == '"') fail(start, "strings are not tensor values");
    if ((c >= '0' && c <= '9') || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return name(depth);
    fail(start, "unexpected '" + char_at(start) + "' (invalid syntax)");
  }

  static LitValue int_of_bool(bool b) {
    LitValue v;
    v.kind = LitValue::Int;
    v.bits = b ? 1 : 0;
    v.nonzero = b;
    v.f = b ? 1.0 : 0.0;
    return v;
  }

  static void negate(LitValue& v) {
    if (v.kind == LitValue::Bool) v = int_of_bool(v.b);
    if (v.kind == LitValue::Int) {
      v.bits = ~v.bits + 1;
      v.f = -v.f;
    } else {
      v.f = -v.f;
    }
  }

  Item sequence(std::size_t depth) {
    const std::size_t start = pos_;
    const char open = s_[pos_++];
    const char close = open == '[' ? ']' : ')';
    Item n, only;  // `only`: the first element, which `(5)` is
    n.is_list = true;
    n.column = start;
    std::int64_t count = 0;
    bool saw_comma = false;
    while (true) {
      skip_ws();
      if (pos_ == s_.size()) fail(start, std::string("'") + open + "' was never closed");
      if (s_[pos_] == close) {
        ++pos_;
        break;
      }
      if (count > 0 && !saw_comma) fail(pos_, "invalid syntax. Perhaps you forgot a comma?");
      if (s_[pos_] == ',') fail(pos_, "invalid syntax (unexpected ',')");
      Item item = value(depth + 1);
      // tinygrad's get_shape: every element must have the first one's shape.
      if (count == 0) {
        n.shape.assign(1, 0);
        n.shape.insert(n.shape.end(), item.shape.begin(), item.shape.end());
        only = std::move(item);
      } else if (shape_error_.empty() &&
                 !std::equal(item.shape.begin(), item.shape.end(), n.shape.begin() + 1, n.shape.end())) {
        shape_error_column_ = item.column;
        shape_error_ = "inhomogeneous shape from " + std::string(s_) + ": element " + std::to_string(count) +
                       " has shape " + shape_repr(item.shape) + ", element 0 has " +
                       shape_repr(Shape(n.shape.begin() + 1, n.shape.end()));
      }
      ++count;
      saw_comma = false;
      if (peek(',')) {
        ++pos_;
        saw_comma = true;
      } else if (pos_ < s_.size() && s_[pos_] != close) {
        if (s_[pos_] == ']' || s_[pos_] == ')')
          fail(pos_, std::string("closing '") + s_[pos_] + "' does not match opening '" + open + "'");
        fail(pos_, "invalid syntax. Perhaps you forgot a comma?");
      }
    }
    // `(5)` is just 5; `(5,)` and `()` are tuples.
    if (open == '(' && count == 1 && !saw_comma) return only;
    if (count == 0) n.shape.assign(1, 0);
    n.shape[0] = count;
    return n;
  }

  Item name(std::size_t depth) {
    const std::size_t start = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    std::string id(s_.substr(start, pos_ - start));
    Item n;
    n.column = start;
    if (id == "True" || id == "False") {
      LitValue v;
      v.kind = LitValue::Bool;
      v.b = id == "True";
      return scalar(v, start);
    }
    if (id == "None") {
      LitValue v;
      v.kind = LitValue::None;
      return scalar(v, start);
    }
    if (id == "float" && peek('(')) {
      ++pos_;
      skip_ws();
      LitValue arg;
      if (pos_ < s_.size() && (s_[pos_] == '\'' || s_[pos_] == '"')) {
        const char q = s_[pos_++];
        const std::size_t b = pos_;
        while (pos_ < s_.size() && s_[pos_] != q) ++pos_;
        if (pos_ == s_.size()) fail(b - 1, "unterminated string literal");
        std::string word(s_.substr(b, pos_ - b));
        ++pos_;
        std::string w;
        for (char ch : word)
          if (ch != ' ') w += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        arg.kind = LitValue::Float;
        if (w == "nan" || w == "+nan" || w == "-nan") arg.f = std::numeric_limits<double>::quiet_NaN();
        else if (w == "inf" || w == "+inf" || w == "infinity" || w == "+infinity") arg.f = INFINITY;
        else if (w == "-inf" || w == "-infinity") arg.f = -INFINITY;
        else {
          char* end = nullptr;
          arg.f = std::strtod(w.c_str(), &end);
          if (w.empty() || *end) fail(b, "could not convert string to float: '" + word + "'");
        }
      } else {
        const Item inner = value(depth + 1);
        if (inner.is_list || leaves_.back().kind == LitValue::None)
          fail(start, "float() argument must be a string or a real number");
        arg = leaves_.back();
        leaves_.pop_back();
        if (arg.kind == LitValue::Bool) arg.f = arg.b ? 1.0 : 0.0;
        arg.kind = LitValue::Float;
      }
      if (!peek(')')) fail(pos_, "'(' was never closed");
      ++pos_;
      return scalar(arg, start);
    }
    fail(start, "name '" + id + "' is not defined" +
                    (id == "nan" || id == "inf" ? " (write float('" + id + "'))" : std::string()));
  }

  /// Python's number tokens: one underscore between digits or after a base prefix (0x_1f);
  /// "1__0", "1_", "1_.5", "1._5" are CPython's "invalid decimal literal", at the underscore.
  Item number() {
    const std::size_t start = pos_;
    auto is_digit = [](char ch) { return ch >= '0' && ch <= '9'; };
    if (s_[pos_] == '0' && pos_ + 1 < s_.size() && std::strchr("xXoObB", s_[pos_ + 1])) return prefixed_int(start);
    std::string digits;
    auto digitpart = [&] {  // digit (["_"] digit)*
      while (pos_ < s_.size() && is_digit(s_[pos_])) {
        digits += s_[pos_++];
        if (pos_ < s_.size() && s_[pos_] == '_') {
          if (pos_ + 1 >= s_.size() || !is_digit(s_[pos_ + 1])) fail(pos_, "invalid decimal literal");
          ++pos_;
        }
      }
    };
    bool is_float = false;
    digitpart();
    if (pos_ < s_.size() && s_[pos_] == '.') {
      is_float = true;
      digits += s_[pos_++];
      if (pos_ < s_.size() && s_[pos_] == '_')
        fail(digits.size() > 1 ? pos_ : start, digits.size() > 1 ? "invalid decimal literal" : "invalid syntax");
      digitpart();
    }
    if (digits == "." || digits.empty()) fail(start, "invalid syntax");
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      is_float = true;
      digits += 'e';
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) digits += s_[pos_++];
      if (pos_ >= s_.size() || !is_digit(s_[pos_])) fail(start, "invalid decimal literal");
      digitpart();
    }
    if (pos_ < s_.size() && (s_[pos_] == 'j' || s_[pos_] == 'J')) fail(start, "complex numbers are not tensor values");
    if (pos_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
      fail(pos_, "invalid decimal literal");
    LitValue v;
    v.f = std::strtod(digits.c_str(), nullptr);  // correctly rounded; overflow gives inf like Python
    if (is_float) {
      v.kind = LitValue::Float;
    } else {
      if (digits.size() > 1 && digits[0] == '0' && digits.find_first_not_of('0') != std::string::npos)
        fail(start, "leading zeros in decimal integer literals are not permitted");
      v.kind = LitValue::Int;
      for (char ch : digits) {
        v.bits = v.bits * 10 + static_cast<std::uint64_t>(ch - '0');
        v.nonzero |= ch != '0';
      }
    }
    return scalar(v, start);
  }

  /// "0x" (["_"] hexdigit)+, 0o, 0b, in CPython's words ("invalid digit '2' in binary literal").
  Item prefixed_int(std::size_t start) {
    const char base_ch = static_cast<char>(std::tolower(static_cast<unsigned char>(s_[pos_ + 1])));
    const unsigned base = base_ch == 'x' ? 16 : base_ch == 'o' ? 8 : 2;
    const std::string kind = base == 16 ? "hexadecimal" : base == 8 ? "octal" : "binary";
    auto digit_of = [](char ch) {
      const auto u = static_cast<unsigned char>(ch);
      return std::isdigit(u) ? unsigned(ch - '0') : std::isalpha(u) ? unsigned(std::tolower(u) - 'a' + 10) : 99u;
    };
    pos_ += 2;
    LitValue v;  // an Int
    std::size_t ndig = 0;
    for (;;) {
      if (pos_ < s_.size() && s_[pos_] == '_') {
        if (pos_ + 1 >= s_.size() || digit_of(s_[pos_ + 1]) >= base) fail(pos_, "invalid " + kind + " literal");
        ++pos_;
      }
      if (pos_ >= s_.size() || digit_of(s_[pos_]) >= base) break;
      const unsigned d = digit_of(s_[pos_++]);
      v.bits = v.bits * base + d;
      v.f = v.f * base + d;
      v.nonzero |= d != 0;
      ++ndig;
    }
    if (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_])))
      fail(pos_, "invalid digit '" + std::string(1, s_[pos_]) + "' in " + kind + " literal");
    if (!ndig || (pos_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')))
      fail(ndig ? pos_ : start, "invalid " + kind + " literal");
    return scalar(v, start);
  }

  /// Appends a scalar to the leaves and returns its Item.
  Item scalar(const LitValue& v, std::size_t column) {
    leaves_.push_back(v);
    leaves_.back().column = static_cast<std::uint32_t>(column);
    Item n;
    n.column = column;
    return n;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  std::vector<Leaf> leaves_;
  std::string shape_error_;  // the first inhomogeneous shape, raised once the text has parsed
  std::size_t shape_error_column_ = 0;
};

}  // namespace tensor_inspect::literal_syntax
