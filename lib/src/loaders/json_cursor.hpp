// loaders/json_cursor.hpp — a strict JSON reader that walks the mapped bytes in place.
//
// RFC 8259 and nothing more: no comments, no trailing commas, UTF-8 strings without raw
// control characters, surrogate pairs in \u escapes. A parser derives from it and reads
// the structure it expects directly into its own types (loaders/safetensors_header.cpp),
// so no JSON document is built; strings without escapes are views of the input. Values it
// does not want are skipped iteratively, nesting capped at Limits::json_depth. Every error
// is Error(BadFile) "<file>: header is not valid JSON (<what>) at byte N", N counted from
// `base`, the file offset of the text's first byte. With a collecting policy (json_faults.hpp,
// set by a derived reader) a syntax fault is kept in validate's words and ends the walk.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "loaders/json_faults.hpp"
#include "loaders/utf8.hpp"
#include "text/byte_classes.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

class JsonCursor {
 protected:
  /// `text` is read in place and must outlive the cursor; `file` names it in messages.
  JsonCursor(std::string_view text, const std::string& file, std::uint64_t base)
      : t_(text), file_(file), base_(base) {}

  // ---- errors
  [[noreturn]] void fail(const std::string& what) const { throw Error(ErrorCode::BadFile, file_ + ": " + what); }
  /// `limit`: the cap that was hit (limits.hpp), which makes the Error LimitExceeded.
  [[noreturn]] void fail_at(const std::string& what, std::size_t pos, bool json, std::string_view limit = {}) const {
    throw Error(limit.empty() ? ErrorCode::BadFile : ErrorCode::LimitExceeded,
                file_ + ": " + (json ? "header is not valid JSON (" + what + ")" : what) + " at byte " +
                    std::to_string(base_ + pos),
                {file_, "", base_ + pos, std::string(limit)});
  }
  [[noreturn]] void syntax(const std::string& what, std::size_t pos) const {
    if (collect_) stop_collecting(in_string_ ? string_start_ : pos);
    fail_at(what, pos, true);
  }
  /// A fault inside the string being read, placed where validate places it: at the first
  /// byte that does not fit (json_token_stop), the same for both policies.
  [[noreturn]] void string_fault(const std::string& what, bool json = true) const {
    if (collect_) stop_collecting(string_start_);
    fail_at(what, json_token_stop(t_, string_start_), json);
  }
  /// Collecting: the syntax fault at the token that starts at `token`, in validate's words
  /// (json_faults.hpp), kept; the walk ends (JsonStop, caught where the walk began).
  struct JsonStop {};
  [[noreturn]] void stop_collecting(std::size_t token) const {
    collect_->fault = json_fault_at(t_, token, base_);
    throw JsonStop{};
  }
  std::string found(std::size_t pos) const {
    if (pos >= t_.size()) return "the end of the header";
    const auto u = static_cast<unsigned char>(t_[pos]);
    if (u >= 0x21 && u < 0x7f) return std::string("'") + t_[pos] + "'";
    static const char* hex = "0123456789abcdef";
    return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
  }
  /// The source text of the value at [from, p_), shortened, for messages.
  std::string raw(std::size_t from) const {
    const std::string_view v = t_.substr(from, p_ - from);
    return v.size() > 40 ? std::string(v.substr(0, 40)) + "..." : std::string(v);
  }

  // ---- lexing
  char peek() const { return p_ < t_.size() ? t_[p_] : '\0'; }
  void ws() {
    // Every byte above ' ' ends the run at once: the common case of no whitespace, tested first.
    while (p_ < t_.size() && static_cast<unsigned char>(t_[p_]) <= ' ' &&
           (t_[p_] == ' ' || t_[p_] == '\t' || t_[p_] == '\n' || t_[p_] == '\r'))
      ++p_;
  }
  void expect(char c) {
    ws();
    if (peek() != c || p_ >= t_.size()) syntax(std::string("expected '") + c + "', found " + found(p_), p_);
    ++p_;
    ws();
  }

  /// Checks one UTF-8 sequence at p_ (lead byte >= 0x80) and steps over it.
  void utf8_char() {
    const auto lead = static_cast<unsigned char>(t_[p_]);
    const std::size_t len = lead >= 0xc2 && lead <= 0xdf   ? 2
                            : lead >= 0xe0 && lead <= 0xef ? 3
                            : lead >= 0xf0 && lead <= 0xf4 ? 4
                                                           : 0;
    if (len == 0 || t_.size() - p_ < len) string_fault("header is not valid UTF-8", false);
    std::uint32_t cp = lead & (0xffu >> (len + 1));
    for (std::size_t i = 1; i < len; ++i) {
      const auto b = static_cast<unsigned char>(t_[p_ + i]);
      if ((b & 0xc0) != 0x80) string_fault("header is not valid UTF-8", false);
      cp = (cp << 6) | (b & 0x3fu);
    }
    const std::uint32_t min = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) string_fault("header is not valid UTF-8", false);
    p_ += len;
  }
  std::uint32_t hex4() {
    if (t_.size() - p_ < 4) string_fault("malformed \\u escape");
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i, ++p_) {
      const char h = t_[p_];
      const int d = h >= '0' && h <= '9'   ? h - '0'
                    : h >= 'a' && h <= 'f' ? h - 'a' + 10
                    : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                           : -1;
      if (d < 0) string_fault("malformed \\u escape");
      v = v * 16 + static_cast<std::uint32_t>(d);
    }
    return v;
  }
  /// A string at p_ (which must be '"'): a view of the mapped bytes when it holds no
  /// escape, else of `scratch`, which receives the decoded text. Plain ASCII is stepped
  /// over eight bytes at a time; quotes, escapes, control characters and UTF-8 sequences
  /// are looked at one by one.
  std::string_view string(std::string& scratch) {
    if (peek() != '"' || p_ >= t_.size()) syntax("expected a string, found " + found(p_), p_);
    string_start_ = p_;
    in_string_ = true;
    const std::size_t start = ++p_;
    bool escaped = false;
    std::size_t run = start;  // with escapes: where the text not yet copied to scratch begins
    for (;;) {
      p_ = byte_classes::find_json_string_special(t_, p_);
      if (p_ >= t_.size()) syntax("unterminated string", start - 1);
      const auto c = static_cast<unsigned char>(t_[p_]);
      if (c == '"') break;
      if (c < 0x20) string_fault("control character " + found(p_) + " in a string");
      if (c == '\\') {
        if (!escaped) scratch.clear();
        escaped = true;
        scratch.append(t_.substr(run, p_ - run));
        escape(scratch);
        run = p_;
        continue;
      }
      utf8_char();
    }
    const std::string_view plain = t_.substr(start, p_ - start);
    if (escaped) scratch.append(t_.substr(run, p_ - run));
    ++p_;
    in_string_ = false;
    return escaped ? std::string_view(scratch) : plain;
  }
  void escape(std::string& out) {
    const std::size_t at = p_++;
    if (p_ >= t_.size()) syntax("unterminated string", at);
    const char c = t_[p_++];
    switch (c) {
      case '"': out += '"'; return;
      case '\\': out += '\\'; return;
      case '/': out += '/'; return;
      case 'b': out += '\b'; return;
      case 'f': out += '\f'; return;
      case 'n': out += '\n'; return;
      case 'r': out += '\r'; return;
      case 't': out += '\t'; return;
      case 'u': {
        std::uint32_t cp = hex4();
        if (cp >= 0xdc00 && cp <= 0xdfff) string_fault("lone trailing surrogate in a \\u escape");
        if (cp >= 0xd800 && cp <= 0xdbff) {
          if (t_.substr(p_, 2) != "\\u") string_fault("lone leading surrogate in a \\u escape");
          p_ += 2;
          const std::uint32_t lo = hex4();
          if (lo < 0xdc00 || lo > 0xdfff) string_fault("lone leading surrogate in a \\u escape");
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        }
        append_utf8(out, cp);
        return;
      }
      default: string_fault("invalid escape '\\" + std::string(1, c) + "' in a string");
    }
  }
  /// A JSON number at p_ (grammar checked); returns its text.
  std::string_view number() {
    const std::size_t start = p_;
    auto digits = [&] {
      const std::size_t from = p_;
      while (p_ < t_.size() && t_[p_] >= '0' && t_[p_] <= '9') ++p_;
      return p_ > from;
    };
    if (peek() == '-') ++p_;
    if (peek() == '0') ++p_;
    else if (!digits()) syntax("malformed number", start);
    if (peek() == '.') {
      ++p_;
      if (!digits()) syntax("malformed number", start);
    }
    if (peek() == 'e' || peek() == 'E') {
      ++p_;
      if (peek() == '+' || peek() == '-') ++p_;
      if (!digits()) syntax("malformed number", start);
    }
    return t_.substr(start, p_ - start);
  }
  /// After an object member: steps over the ',' or '}' that must follow (and the
  /// whitespace after it); true when it was '}', the object's end.
  bool end_of_member() {
    ws();
    const char c = peek();
    if (p_ >= t_.size() || (c != ',' && c != '}')) syntax("expected ',' or '}', found " + found(p_), p_);
    ++p_;
    ws();
    return c == '}';
  }
  void literal(std::string_view word) {
    if (t_.substr(p_, word.size()) != word) syntax("expected a value, found " + found(p_), p_);
    p_ += word.size();
  }

  /// Reads one value of any kind at nesting level `depth`, without recursion, telling `v`
  /// what it meets: open(object?), key(text, byte), string(text), number(text, byte),
  /// literal('t'|'f'|'n'), close(). Nesting is capped at Limits::json_depth when loading.
  template <typename Visit>
  void walk(std::uint64_t depth, Visit& v) {
    std::vector<char> open;  // the containers entered, innermost last
    std::string scratch;
    const auto key = [&] {
      const std::size_t at = p_;
      v.key(string(scratch), at);
      expect(':');
    };
    for (;;) {
      ws();
      const char c = peek();
      if (p_ >= t_.size()) syntax("expected a value, found the end of the header", p_);
      if (c == '{' || c == '[') {
        if (!collect_ && depth + open.size() + 1 > limits().json_depth)
          fail_at("values nest deeper than " + std::to_string(limits().json_depth) + " levels" +
                      limit_hint("json_depth"),
                  p_, false, "json_depth");
        v.open(c == '{');
        open.push_back(c == '{' ? '}' : ']');
        ++p_;
        ws();
        if (peek() == open.back()) {
          ++p_;
          open.pop_back();
          v.close();
        } else {
          if (c == '{') key();
          continue;
        }
      } else if (c == '"') {
        v.string(string(scratch));
      } else if (c == '-' || (c >= '0' && c <= '9')) {
        const std::size_t at = p_;
        v.number(number(), at);
      } else if (c == 't' || c == 'f' || c == 'n') {
        literal(c == 't' ? "true" : c == 'f' ? "false" : "null");
        v.literal(c);
      } else {
        syntax("expected a value, found " + found(p_), p_);
      }
      // After a value: close containers or move to the next item.
      for (;;) {
        if (open.empty()) return;
        ws();
        const char n = peek();
        if (n == ',' && p_ < t_.size()) {
          ++p_;
          ws();
          if (open.back() == '}') key();
          break;
        }
        if (n != open.back() || p_ >= t_.size())
          syntax(std::string("expected ',' or '") + open.back() + "', found " + found(p_), p_);
        ++p_;
        open.pop_back();
        v.close();
      }
    }
  }
  /// Skips one value of any kind, at nesting level `depth` (walk() telling no one).
  void skip_value(std::uint64_t depth) {
    struct Nothing {
      void open(bool) {}
      void key(std::string_view, std::size_t) {}
      void string(std::string_view) {}
      void number(std::string_view, std::size_t) {}
      void literal(char) {}
      void close() {}
    } nothing;
    walk(depth, nothing);
  }

  /// A non-negative integer at p_; `where()` (the field, for the message) is only called
  /// when it is not one, so a header of many entries builds no message strings.
  template <typename Where>
  std::uint64_t uint_value(const Where& where) {
    ws();
    const std::size_t start = p_;
    const char c = peek();
    // The common spelling first: digits without a leading zero, fraction or exponent,
    // read in one step; anything else goes through number()'s grammar below.
    if (c >= '1' && c <= '9') {
      std::uint64_t v = 0;
      std::size_t q = p_;
      const std::size_t most = p_ + std::min<std::size_t>(19, t_.size() - p_);  // 19 digits cannot overflow
      for (unsigned d; q < most && (d = static_cast<unsigned char>(t_[q]) - unsigned{'0'}) < 10; ++q) v = v * 10 + d;
      const char next = q < t_.size() ? t_[q] : '\0';
      if (!(next >= '0' && next <= '9') && next != '.' && next != 'e' && next != 'E') {
        p_ = q;
        return v;
      }
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      const std::string_view n = number();
      // number() checked the grammar: anything but a digit ('-', '.', 'e') is not a uint.
      std::uint64_t v = 0;
      bool ok = true;
      for (char d : n) {
        if (d < '0' || d > '9') ok = false;
        if (!ok) break;
        const auto digit = static_cast<std::uint64_t>(d - '0');
        if (v > (UINT64_MAX - digit) / 10) ok = false;
        else v = v * 10 + digit;
      }
      if (ok) return v;
    } else {
      skip_value(3);
    }
    fail(where() + " must be a non-negative integer, not " + raw(start));
  }

  /// A list of unsigned integers at p_ into `out`, or nullopt-like false when the value is
  /// not a list (skipped, so the caller can say what it expected).
  template <typename F>
  bool uint_list(F&& each) {
    ws();
    if (peek() != '[') {
      skip_value(2);
      return false;
    }
    ++p_;
    ws();
    if (peek() == ']') {
      ++p_;
      return true;
    }
    for (std::size_t i = 0;; ++i) {
      each(i);
      ws();
      const char c = peek();
      if (p_ >= t_.size() || (c != ',' && c != ']')) syntax("expected ',' or ']', found " + found(p_), p_);
      ++p_;
      if (c == ']') return true;
    }
  }

  std::string_view t_;
  const std::string& file_;
  std::uint64_t base_;
  std::size_t p_ = 0;
  JsonFaults* collect_ = nullptr;  ///< validate's policy (json_faults.hpp); null when loading
  std::size_t string_start_ = 0;   ///< the opening quote of the string being read
  bool in_string_ = false;
};

}  // namespace tensor_inspect
