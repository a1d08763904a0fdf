// Tokenizer for the Python expression subset.
#include "expr/lexer.hpp"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "expr/ast.hpp"

namespace tensor_inspect::expr {

namespace {

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// An int literal's exact value (Python's ints are unbounded; the expression language holds
// them up to 2**120, beyond 64 bits as a wide Scalar). Throws at `col` past that.
Scalar int_literal(const std::string& digits, int base, int col) {
  __extension__ using U = unsigned __int128;
  constexpr U kMax = U{1} << 120;
  U v = 0;
  for (char ch : digits) {
    const int d = is_digit(ch) ? ch - '0' : std::tolower(static_cast<unsigned char>(ch)) - 'a' + 10;
    v = v * static_cast<U>(base) + static_cast<U>(d);
    if (v > kMax) fail(col, "integer literal " + digits + " is too large (beyond 2**120)");
  }
  return Scalar::from_wide(static_cast<Scalar::Wide>(v));
}

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    for (;;) {
      while (pos_ < src_.size() &&
             (src_[pos_] == ' ' || src_[pos_] == '\t' || src_[pos_] == '\n' || src_[pos_] == '\r'))
        ++pos_;
      if (pos_ >= src_.size()) break;
      out.push_back(next());
    }
    Token end;
    end.col = col(src_.size());
    out.push_back(end);
    return out;
  }

 private:
  int col(std::size_t p) const { return static_cast<int>(p) + 1; }

  Token next() {
    std::size_t start = pos_;
    char c = src_[pos_];
    Token t;
    t.col = col(start);
    if (is_digit(c) || (c == '.' && pos_ + 1 < src_.size() && is_digit(src_[pos_ + 1]))) return number();
    if (is_name_start(c)) {
      while (pos_ < src_.size() && is_name_char(src_[pos_])) ++pos_;
      t.kind = Token::Kind::Name;
      t.text = std::string(src_.substr(start, pos_ - start));
      return t;
    }
    if (c == '\'' || c == '"') {
      std::size_t end = src_.find(c, pos_ + 1);
      if (end == std::string_view::npos) fail(t.col, "unterminated string literal");
      t.kind = Token::Kind::String;
      t.text = std::string(src_.substr(pos_ + 1, end - pos_ - 1));
      pos_ = end + 1;
      return t;
    }
    static constexpr std::string_view kOps[] = {"...", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "(",
                                                ")",   "[",  "]",  ",",  ":",  ".",  "+",  "-",  "*",  "/",
                                                "%",   "@",  "~",  "<",  ">",  "=",  "&",  "|",  "^"};
    for (std::string_view op : kOps) {
      if (src_.substr(pos_, op.size()) == op) {
        pos_ += op.size();
        t.kind = Token::Kind::Op;
        t.text = std::string(op);
        return t;
      }
    }
    fail(t.col, std::string("unexpected character '") + c + "'");
  }

  Token number() {
    std::size_t start = pos_;
    Token t;
    t.kind = Token::Kind::Number;
    t.col = col(start);
    std::string digits;
    // Appends a run of digits (with single '_' separators between digits, and before the
    // first after a base prefix: 0x_1f) to `digits`.
    auto take_digits = [&](auto pred, bool after_prefix) {
      bool any = false, last_underscore = false;
      while (pos_ < src_.size() && (pred(src_[pos_]) || src_[pos_] == '_')) {
        if (src_[pos_] == '_') {
          if (last_underscore || (!any && !after_prefix)) fail(col(pos_), "invalid number literal");
          last_underscore = true;
        } else {
          digits += src_[pos_];
          any = true;
          last_underscore = false;
        }
        ++pos_;
      }
      if (last_underscore) fail(col(pos_ - 1), "invalid number literal");
    };
    if (src_[pos_] == '0' && pos_ + 1 < src_.size() && std::strchr("xXoObB", src_[pos_ + 1]) != nullptr &&
        src_[pos_ + 1] != '\0') {
      char base_char = static_cast<char>(std::tolower(static_cast<unsigned char>(src_[pos_ + 1])));
      int base = base_char == 'x' ? 16 : base_char == 'o' ? 8 : 2;
      pos_ += 2;
      take_digits(
          [base](char ch) {
            return base == 16 ? std::isxdigit(static_cast<unsigned char>(ch)) != 0
                              : (ch >= '0' && ch < static_cast<char>('0' + base));
          },
          true);
      if (digits.empty()) fail(t.col, "invalid number literal");
      t.value = int_literal(digits, base, t.col);
    } else {
      bool is_float = false;
      take_digits(is_digit, false);
      if (pos_ < src_.size() && src_[pos_] == '.' && src_.substr(pos_, 3) != "...") {
        is_float = true;
        digits += '.';
        ++pos_;
        take_digits(is_digit, false);
      }
      if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
        is_float = true;
        digits += 'e';
        ++pos_;
        if (pos_ < src_.size() && (src_[pos_] == '+' || src_[pos_] == '-')) digits += src_[pos_++];
        if (pos_ >= src_.size() || !is_digit(src_[pos_])) fail(t.col, "invalid float literal");
        take_digits(is_digit, false);
      }
      if (is_float) {
        t.value = Scalar::from_float(std::strtod(digits.c_str(), nullptr));
      } else {
        if (digits.size() > 1 && digits[0] == '0' && digits.find_first_not_of('0') != std::string::npos)
          fail(t.col, "leading zeros in decimal integer literals are not permitted");
        t.value = int_literal(digits, 10, t.col);
      }
    }
    if (pos_ < src_.size() && is_name_char(src_[pos_])) fail(t.col, "invalid number literal");
    return t;
  }

  std::string_view src_;
  std::size_t pos_ = 0;
};

}  // namespace

std::vector<Token> tokenize(std::string_view source) { return Lexer(source).run(); }

}  // namespace tensor_inspect::expr
