// loaders/py_literal.cpp — the strict reader of Python literals in .npy headers (see py_literal.hpp).
#include "loaders/py_literal.hpp"

#include <cctype>
#include <cstring>

#include "loaders/utf8.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

namespace {

std::string type_name_of(const PyValue& v) {
  switch (v.kind) {
    case PyValue::Kind::Str: return "str";
    case PyValue::Kind::Int: return "int";
    case PyValue::Kind::Bool: return "bool";
    case PyValue::Kind::None: return "NoneType";
    case PyValue::Kind::Tuple: return "tuple";
    case PyValue::Kind::List: return "list";
    case PyValue::Kind::Dict: return "dict";
  }
  return "?";
}

std::string str_repr(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '\\' || c == '\'') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u < 0x20 || u == 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  return out + "'";
}

/// Python's repr of a header value: "'<f8'", "(2, 3)", "(2,)", "[('a', '<i4')]".
std::string repr(const PyValue& v) {
  auto join = [](const std::vector<PyValue>& items, std::size_t step) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); i += step) {
      if (i) out += ", ";
      out += repr(items[i]);
      if (step == 2) out += ": " + repr(items[i + 1]);
    }
    return out;
  };
  switch (v.kind) {
    case PyValue::Kind::Str: return str_repr(v.str);
    case PyValue::Kind::Int: return std::to_string(v.integer);
    case PyValue::Kind::Bool: return v.boolean ? "True" : "False";
    case PyValue::Kind::None: return "None";
    case PyValue::Kind::Tuple: return "(" + join(v.items, 1) + (v.items.size() == 1 ? ",)" : ")");
    case PyValue::Kind::List: return "[" + join(v.items, 1) + "]";
    case PyValue::Kind::Dict: return "{" + join(v.items, 2) + "}";
  }
  return "?";
}

/// A header value as JSON for the metadata listing (tuples and lists become arrays).
nlohmann::ordered_json to_json(const PyValue& v) {
  switch (v.kind) {
    case PyValue::Kind::Str: return v.str;
    case PyValue::Kind::Int: return v.integer;
    case PyValue::Kind::Bool: return v.boolean;
    case PyValue::Kind::None: return nullptr;
    case PyValue::Kind::Tuple:
    case PyValue::Kind::List: {
      auto arr = nlohmann::ordered_json::array();
      for (const PyValue& item : v.items) arr.push_back(to_json(item));
      return arr;
    }
    case PyValue::Kind::Dict: {
      auto obj = nlohmann::ordered_json::object();
      for (std::size_t i = 0; i + 1 < v.items.size(); i += 2)
        obj[v.items[i].kind == PyValue::Kind::Str ? v.items[i].str : repr(v.items[i])] = to_json(v.items[i + 1]);
      return obj;
    }
  }
  return nullptr;
}

/// A strict reader of the Python literals numpy writes in headers (ast.literal_eval's
/// subset: str, int, True/False/None, tuple, list, dict). Every error names the file and
/// the absolute byte offset.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string name, std::uint64_t base, int major, const PyLiteralSink& sink)
      : text_(text), name_(std::move(name)), base_(base), major_(major), sink_(sink) {}

  /// The one value of the header, followed only by whitespace (the padding).
  PyValue parse() {
    PyValue v = value(0);
    skip_ws();
    if (pos_ < text_.size()) fail("unexpected " + describe(pos_) + " after the header dict");
    return v;
  }

 private:
  // `limit`: the cap that was hit (limits.hpp), which makes the Error LimitExceeded.
  [[noreturn]] void fail(const std::string& what, std::string_view limit = {}) const { fail_at(what, pos_, limit); }
  [[noreturn]] void fail_at(const std::string& what, std::size_t pos, std::string_view limit = {}) const {
    if (sink_) sink_(PyLiteralFault{PyLiteralFault::Kind::Syntax, base_ + pos, what, {}});
    throw Error(limit.empty() ? ErrorCode::BadFile : ErrorCode::LimitExceeded,
                name_ + ": header: " + what + " at byte " + std::to_string(base_ + pos),
                {name_, "", base_ + pos, std::string(limit)});
  }
  /// A fault the reader can read past: thrown when loading, reported when collecting.
  void recoverable(PyLiteralFault::Kind kind, const std::string& what, std::size_t pos, std::string key = {}) const {
    if (!sink_) fail_at(what, pos);
    sink_(PyLiteralFault{kind, base_ + pos, what, std::move(key)});
  }
  std::string describe(std::size_t pos) const {
    if (pos >= text_.size()) return "end of header";
    auto u = static_cast<unsigned char>(text_[pos]);
    if (u == '\'') return "\"'\"";
    if (u >= 0x21 && u < 0x7f) return std::string("'") + text_[pos] + "'";
    static const char* hex = "0123456789abcdef";
    return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
  }
  void skip_ws() {
    while (pos_ < text_.size() && text_[pos_] != '\0' && std::strchr(" \t\n\r\f\v", text_[pos_]) != nullptr) ++pos_;
  }
  PyValue make(PyValue::Kind kind, std::size_t at) const {
    PyValue v;
    v.kind = kind;
    v.at = base_ + at;
    return v;
  }

  PyValue value(int depth) {
    if (static_cast<std::uint64_t>(depth) > limits().npy_header_depth)
      fail("values nest deeper than " + std::to_string(limits().npy_header_depth) + " levels" +
               limit_hint("npy_header_depth"),
           "npy_header_depth");
    skip_ws();
    if (pos_ >= text_.size()) fail("expected a value, found end of header");
    char c = text_[pos_];
    if (c == '\'' || c == '"') return string();
    if (c == '-' || c == '+' || (c >= '0' && c <= '9')) return integer();
    if (c == '(') return sequence(PyValue::Kind::Tuple, ')', depth);
    if (c == '[') return sequence(PyValue::Kind::List, ']', depth);
    if (c == '{') return dict(depth);
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return word();
    fail("expected a value, found " + describe(pos_));
  }

  PyValue word() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    std::string_view w = text_.substr(start, pos_ - start);
    PyValue v = make(PyValue::Kind::None, start);
    if (w == "True" || w == "False") {
      v.kind = PyValue::Kind::Bool;
      v.boolean = w == "True";
    } else if (w != "None") {
      fail_at("unexpected name '" + std::string(w.substr(0, 40)) + "'", start);
    }
    return v;
  }

  PyValue integer() {
    const std::size_t start = pos_;
    bool negative = false;
    if (text_[pos_] == '-' || text_[pos_] == '+') {
      negative = text_[pos_] == '-';
      ++pos_;
      skip_ws();  // Python allows "- 1"
    }
    if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9')
      fail("expected digits, found " + describe(pos_));
    const std::size_t digits = pos_;
    std::uint64_t magnitude = 0;
    bool overflow = false;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      auto d = static_cast<std::uint64_t>(text_[pos_] - '0');
      if (magnitude > (std::uint64_t{1} << 63) / 10 || magnitude * 10 > (std::uint64_t{1} << 63) - d) overflow = true;
      else magnitude = magnitude * 10 + d;
      ++pos_;
    }
    const std::string text(text_.substr(digits, pos_ - digits));
    // NOTE: Python 2 wrote longs as "3L"; numpy still reads such 1.0/2.0 headers.
    if (major_ < 3 && pos_ < text_.size() && (text_[pos_] == 'L' || text_[pos_] == 'l')) ++pos_;
    if (pos_ < text_.size() &&
        (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' || text_[pos_] == '_'))
      fail_at("malformed number", start);
    if (overflow || (!negative && magnitude == (std::uint64_t{1} << 63)))
      fail_at("integer " + std::string(negative ? "-" : "") + text.substr(0, 40) + (text.size() > 40 ? "..." : "") +
                  " is out of range",
              start);
    PyValue v = make(PyValue::Kind::Int, start);
    v.integer = negative ? static_cast<std::int64_t>(~magnitude + 1) : static_cast<std::int64_t>(magnitude);
    return v;
  }

  PyValue string() {
    const std::size_t start = pos_;
    const char quote = text_[pos_++];
    PyValue v = make(PyValue::Kind::Str, start);
    for (;;) {
      if (pos_ >= text_.size() || text_[pos_] == '\n') fail_at("unterminated string", start);
      const char c = text_[pos_];
      const auto u = static_cast<unsigned char>(c);
      if (c == quote) {
        ++pos_;
        return v;
      }
      if (c == '\\') {
        escape(v.str);
      } else if (u < 0x80) {
        v.str += c;
        ++pos_;
      } else if (major_ < 3) {
        append_utf8(v.str, u);  // latin-1: each byte is its code point
        ++pos_;
      } else {
        utf8_char(v.str);
      }
    }
  }

  // One backslash escape of a Python string literal.
  void escape(std::string& out) {
    const std::size_t at = pos_;
    ++pos_;
    if (pos_ >= text_.size()) fail_at("unterminated string", at);
    const char c = text_[pos_++];
    switch (c) {
      case '\\': out += '\\'; return;
      case '\'': out += '\''; return;
      case '"': out += '"'; return;
      case 'n': out += '\n'; return;
      case 't': out += '\t'; return;
      case 'r': out += '\r'; return;
      case '0': out += '\0'; return;
      case 'x': append_utf8(out, hex_digits(2, at)); return;
      case 'u': append_utf8(out, hex_digits(4, at)); return;
      case 'U': append_utf8(out, hex_digits(8, at)); return;
      default: fail_at("unsupported escape '\\" + std::string(1, c) + "' in a string", at);
    }
  }
  std::uint32_t hex_digits(int n, std::size_t at) {
    std::uint32_t cp = 0;
    for (int i = 0; i < n; ++i, ++pos_) {
      if (pos_ >= text_.size() || !std::isxdigit(static_cast<unsigned char>(text_[pos_])))
        fail_at("malformed escape in a string", at);
      const char h = text_[pos_];
      const auto digit = static_cast<std::uint32_t>(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
      cp = cp * 16 + digit;
    }
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) fail_at("escape names no character", at);
    return cp;
  }
  // One UTF-8 encoded character (version 3.0 headers), validated.
  void utf8_char(std::string& out) {
    const std::size_t at = pos_;
    const auto lead = static_cast<unsigned char>(text_[pos_]);
    std::size_t len = lead >= 0xf0 && lead <= 0xf4 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 && lead <= 0xdf ? 2 : 0;
    if (lead >= 0xf5) len = 0;
    bool valid = len != 0 && text_.size() - pos_ >= len;
    std::uint32_t cp = lead & (0xff >> (len + 1));
    for (std::size_t i = 1; valid && i < len; ++i) {
      const auto b = static_cast<unsigned char>(text_[pos_ + i]);
      valid = (b & 0xc0) == 0x80;
      cp = (cp << 6) | (b & 0x3fu);
    }
    const std::uint32_t min = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
    valid = valid && cp >= min && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff);
    if (!valid) {  // collecting: the byte is kept as it is and the string read on
      recoverable(PyLiteralFault::Kind::InvalidUtf8, "invalid UTF-8 in a string", at);
      len = 1;
    }
    out.append(text_.substr(pos_, len));
    pos_ += len;
  }

  // A tuple or list; "(x)" without a comma is just x, as in Python.
  PyValue sequence(PyValue::Kind kind, char close, int depth) {
    const std::size_t start = pos_++;
    PyValue v = make(kind, start);
    bool comma = false;
    for (;;) {
      skip_ws();
      if (pos_ >= text_.size()) fail_at(std::string("unclosed '") + text_[start] + "'", start);
      if (text_[pos_] == close) {
        ++pos_;
        break;
      }
      v.items.push_back(value(depth + 1));
      skip_ws();
      comma = false;
      if (pos_ < text_.size() && text_[pos_] == ',') {
        comma = true;
        ++pos_;
      } else if (pos_ >= text_.size() || text_[pos_] != close) {
        fail("expected ',' or '" + std::string(1, close) + "', found " + describe(pos_));
      }
    }
    if (kind == PyValue::Kind::Tuple && v.items.size() == 1 && !comma) return std::move(v.items[0]);
    return v;
  }

  PyValue dict(int depth) {
    const std::size_t start = pos_++;
    PyValue v = make(PyValue::Kind::Dict, start);
    for (;;) {
      skip_ws();
      if (pos_ >= text_.size()) fail_at("unclosed '{'", start);
      if (text_[pos_] == '}') {
        ++pos_;
        return v;
      }
      PyValue key = value(depth + 1);
      if (key.kind != PyValue::Kind::Str)
        recoverable(PyLiteralFault::Kind::KeyNotString, "dict key " + repr(key) + " is not a string", key.at - base_);
      bool again = false;
      for (std::size_t i = 0; i < v.items.size() && key.kind == PyValue::Kind::Str && !again; i += 2)
        again = v.items[i].kind == PyValue::Kind::Str && v.items[i].str == key.str;
      if (again) recoverable(PyLiteralFault::Kind::DuplicateKey, "duplicate key " + repr(key), key.at - base_, key.str);
      skip_ws();
      if (pos_ >= text_.size() || text_[pos_] != ':')
        fail("expected ':' after key " + repr(key) + ", found " + describe(pos_));
      ++pos_;
      v.items.push_back(std::move(key));
      v.items.push_back(value(depth + 1));
      skip_ws();
      if (pos_ < text_.size() && text_[pos_] == ',') ++pos_;
      else if (pos_ >= text_.size() || text_[pos_] != '}') fail("expected ',' or '}', found " + describe(pos_));
    }
  }

  std::string_view text_;
  std::string name_;
  std::uint64_t base_;
  int major_;
  const PyLiteralSink& sink_;
  std::size_t pos_ = 0;
};

}  // namespace

PyValue parse_py_literal(std::string_view text, const std::string& name, std::uint64_t base, int major,
                         const PyLiteralSink& sink) {
  return HeaderParser(text, name, base, major, sink).parse();
}

std::string py_type_name(const PyValue& v) { return type_name_of(v); }
std::string py_str_repr(const std::string& s) { return str_repr(s); }
std::string py_repr(const PyValue& v) { return repr(v); }
nlohmann::ordered_json py_to_json(const PyValue& v) { return to_json(v); }

}  // namespace tensor_inspect
