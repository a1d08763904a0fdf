// loaders/json_faults.cpp — validate's words for a JSON syntax fault (see json_faults.hpp).
//
// The words and bytes are those validate has always used: they were first classified
// from the byte at which nlohmann's lexer stops (tests/unit and tests/validate pin them),
// and the token reader below stops at the same byte, by the grammar of RFC 8259 alone.
#include "loaders/json_faults.hpp"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>

namespace tensor_inspect {

int json_nesting(std::string_view text) {
  int depth = 0, most = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      most = std::max(most, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return most;
}

namespace {

bool json_fault_hex(char h) { return (h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F'); }
bool json_fault_digit(std::string_view t, std::size_t q) { return q < t.size() && t[q] >= '0' && t[q] <= '9'; }

// Four hex digits of a \u escape from `q`: their value, or the byte that stops the read.
struct Hex4 {
  std::uint32_t value;
  std::optional<std::size_t> stop;
};
Hex4 json_fault_hex4(std::string_view t, std::size_t q) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    if (q + i >= t.size()) return {0, t.size()};
    const char h = t[q + i];
    if (!json_fault_hex(h)) return {0, q + i};
    v = v * 16 + static_cast<std::uint32_t>(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
  }
  return {v, std::nullopt};
}

// A string from its opening quote at `p`: the byte of its first fault, or its closing quote.
std::size_t json_fault_string_stop(std::string_view t, std::size_t p) {
  const std::size_t n = t.size();
  for (std::size_t q = p + 1;;) {
    if (q >= n) return n;
    const auto b = static_cast<unsigned char>(t[q]);
    if (b == '"') return q;
    if (b < 0x20) return q;
    if (b == '\\') {
      if (q + 1 >= n) return n;
      const char e = t[q + 1];
      if (std::string_view("\"\\/bfnrt").find(e) != std::string_view::npos) {
        q += 2;
        continue;
      }
      if (e != 'u') return q + 1;
      const Hex4 hi = json_fault_hex4(t, q + 2);
      if (hi.stop) return *hi.stop;
      if (hi.value >= 0xdc00 && hi.value <= 0xdfff) return q + 5;  // a lone trailing surrogate, after its digits
      q += 6;
      if (hi.value < 0xd800 || hi.value > 0xdbff) continue;
      if (q >= n) return n;
      if (t[q] != '\\') return q;
      if (q + 1 >= n) return n;
      if (t[q + 1] != 'u') return q + 1;
      const Hex4 lo = json_fault_hex4(t, q + 2);
      if (lo.stop) return *lo.stop;
      if (lo.value < 0xdc00 || lo.value > 0xdfff) return q + 5;
      q += 6;
      continue;
    }
    if (b < 0x80) {
      ++q;
      continue;
    }
    // UTF-8, as Unicode's table of well-formed sequences bounds each byte (3.9, table 3-7).
    unsigned char lo2 = 0x80, hi2 = 0xbf;
    std::size_t len = 0;
    if (b >= 0xc2 && b <= 0xdf) len = 2;
    else if (b >= 0xe0 && b <= 0xef) len = 3, lo2 = b == 0xe0 ? 0xa0 : 0x80, hi2 = b == 0xed ? 0x9f : 0xbf;
    else if (b >= 0xf0 && b <= 0xf4) len = 4, lo2 = b == 0xf0 ? 0x90 : 0x80, hi2 = b == 0xf4 ? 0x8f : 0xbf;
    else return q;
    for (std::size_t i = 1; i < len; ++i) {
      if (q + i >= n) return n;
      const auto c = static_cast<unsigned char>(t[q + i]);
      if (c < (i == 1 ? lo2 : 0x80) || c > (i == 1 ? hi2 : 0xbf)) return q + i;
    }
    q += len;
  }
}

}  // namespace

std::size_t json_token_stop(std::string_view t, std::size_t p) {
  const std::size_t n = t.size();
  if (p >= n) return n;
  const char c = t[p];
  if (c == '"') return json_fault_string_stop(t, p);
  if (c == 't' || c == 'f' || c == 'n') {
    const std::string_view word = c == 't' ? "true" : c == 'f' ? "false" : "null";
    for (std::size_t i = 0; i < word.size(); ++i) {
      if (p + i >= n) return n;
      if (t[p + i] != word[i]) return p + i;
    }
    return p + word.size() - 1;
  }
  if (c == '-' || (c >= '0' && c <= '9')) {
    std::size_t q = p + (c == '-');
    if (q >= n) return n;
    if (!json_fault_digit(t, q)) return q;
    if (t[q] == '0') ++q;
    else while (json_fault_digit(t, q)) ++q;
    if (q < n && t[q] == '.') {
      if (++q >= n) return n;
      if (!json_fault_digit(t, q)) return q;
      while (json_fault_digit(t, q)) ++q;
    }
    if (q < n && (t[q] == 'e' || t[q] == 'E')) {
      ++q;
      if (q < n && (t[q] == '+' || t[q] == '-')) ++q;
      if (q >= n) return n;
      if (!json_fault_digit(t, q)) return q;
      while (json_fault_digit(t, q)) ++q;
    }
    return q - 1;
  }
  return p;  // a structural character, or a byte no token starts with
}

namespace {

// What stands at byte `at` of `text`, for a message: a printable character quoted, else its hex value.
std::string json_fault_shown(std::string_view text, std::size_t at) {
  const auto u = static_cast<unsigned char>(text[at]);
  if (u >= 0x21 && u < 0x7f) return std::string("'") + text[at] + "'";
  static const char* hex = "0123456789abcdef";
  return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
}

bool json_fault_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-'; }

// Whether byte `at` lies in a string (after an opening quote not yet closed).
bool json_fault_in_string(std::string_view text, std::size_t at) {
  bool in = false;
  for (std::size_t i = 0; i < at; ++i) {
    if (in && text[i] == '\\') ++i;
    else if (text[i] == '"') in = !in;
  }
  return in;
}

}  // namespace

JsonFault json_fault_at(std::string_view text, std::size_t token, std::uint64_t base) {
  return json_fault_at_byte(text, json_token_stop(text, token), base);
}

JsonFault json_fault_at_byte(std::string_view text, std::size_t stop, std::uint64_t base) {
  const std::size_t at = std::min(stop, text.size());
  JsonFault f{base + at, {}};
  if (text.find_first_not_of(" \t\n\r") == std::string_view::npos) {
    f.what = text.empty() ? "the text is empty" : "the text is only whitespace";
  } else if (at >= text.size()) {
    f.what = "the text ends before the JSON value is complete";
  } else if (json_fault_in_string(text, at)) {
    f.what = "a malformed string (a control character, a bad escape or invalid UTF-8 at " +
             json_fault_shown(text, at) + ")";
  } else if (std::size_t from = at; from > 0 && json_fault_word(text[from - 1])) {
    // A bad number or literal ("1.", "tru") stops the read after it: name the word.
    while (from > 0 && json_fault_word(text[from - 1])) --from;
    f.offset = base + from;
    f.what =
        "a malformed number or literal '" + std::string(text.substr(from, std::min<std::size_t>(at - from, 40))) + "'";
  } else {
    f.what = "unexpected " + json_fault_shown(text, at);
  }
  return f;
}

}  // namespace tensor_inspect
