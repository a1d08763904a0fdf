// loaders/npy.cpp — NumPy's .npy format (NEP 1; numpy/lib/format.py).
//
// Byte layout:
//   1. magic, 6 bytes: "\x93NUMPY"
//   2. version, 2 bytes: major, minor; 1.0, 2.0 or 3.0
//   3. header length, little-endian: u16 in 1.0, u32 in 2.0 and 3.0
//   4. header, that many bytes: a Python dict literal with exactly the keys 'descr',
//      'fortran_order' and 'shape', e.g. {'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }
//      latin-1 in 1.0 and 2.0, UTF-8 in 3.0; padded with spaces and ended by '\n' so the
//      data starts aligned (64 bytes since numpy 1.16, 16 in older writers)
//   5. data: prod(shape) * itemsize bytes in the descr's byte order, row-major, or
//      column-major when fortran_order is True. Bytes after them are ignored, as numpy does.
//
// The header is parsed here by a strict reader of Python literals (str, int, bool, None,
// tuple, list, dict), never evaluated. Structured descrs (a list of fields) parse and are
// then refused, as are dtypes tinygrad has no counterpart for (complex, strings, ...).
#include <algorithm>
#include <bit>
#include <cctype>
#include <cstring>

#include "loaders/byte_reader.hpp"
#include "loaders/formats.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

namespace {

constexpr unsigned char kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::uint64_t kMaxHeaderBytes = std::uint64_t{1} << 20;  // numpy refuses > 10000 by default
constexpr int kMaxDepth = 32;
constexpr std::size_t kMaxDims = 64;  // NPY_MAXDIMS in numpy 2

/// One Python literal of the header.
struct PyValue {
  enum class Kind { Str, Int, Bool, None, Tuple, List, Dict };
  Kind kind = Kind::None;
  std::string str;              ///< Str: UTF-8 text
  std::int64_t integer = 0;     ///< Int
  bool boolean = false;         ///< Bool
  std::vector<PyValue> items;   ///< Tuple, List; Dict: key, value, key, value, ...
  std::uint64_t at = 0;         ///< absolute byte offset in the file, for messages
};

std::string type_name(const PyValue& v) {
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

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

/// A strict reader of the Python literals numpy writes in headers (ast.literal_eval's
/// subset: str, int, True/False/None, tuple, list, dict). Every error names the file and
/// the absolute byte offset.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string name, std::uint64_t base, int major)
      : text_(text), name_(std::move(name)), base_(base), major_(major) {}

  /// The one value of the header, followed only by whitespace (the padding).
  PyValue parse() {
    PyValue v = value(0);
    skip_ws();
    if (pos_ < text_.size()) fail("unexpected " + describe(pos_) + " after the header dict");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const { fail_at(what, pos_); }
  [[noreturn]] void fail_at(const std::string& what, std::size_t pos) const {
    throw Error(ErrorCode::BadFile, name_ + ": header: " + what + " at byte " + std::to_string(base_ + pos));
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
    if (depth > kMaxDepth) fail("values nest deeper than " + std::to_string(kMaxDepth) + " levels");
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
    if (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' || text_[pos_] == '_'))
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
    if (len == 0 || text_.size() - pos_ < len) fail_at("invalid UTF-8 in a string", at);
    std::uint32_t cp = lead & (0xff >> (len + 1));
    for (std::size_t i = 1; i < len; ++i) {
      const auto b = static_cast<unsigned char>(text_[pos_ + i]);
      if ((b & 0xc0) != 0x80) fail_at("invalid UTF-8 in a string", at);
      cp = (cp << 6) | (b & 0x3fu);
    }
    const std::uint32_t min = len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) fail_at("invalid UTF-8 in a string", at);
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
      if (key.kind != PyValue::Kind::Str) fail_at("dict key " + repr(key) + " is not a string", key.at - base_);
      for (std::size_t i = 0; i < v.items.size(); i += 2)
        if (v.items[i].str == key.str) fail_at("duplicate key " + repr(key), key.at - base_);
      skip_ws();
      if (pos_ >= text_.size() || text_[pos_] != ':') fail("expected ':' after key " + repr(key) + ", found " + describe(pos_));
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
  std::size_t pos_ = 0;
};

/// A numpy descr string split into byte order and dtype.
struct Descr {
  DType dtype;
  bool big_endian;
};

// Kinds numpy writes that tinygrad has no dtype for, by the descr's type character.
std::string unsupported_kind(char c, std::string_view size) {
  switch (c) {
    case 'c': return "complex";
    case 'O': return "object";
    case 'S': case 'a': return "bytes string";
    case 'U': return "unicode string";
    case 'V': return "void";
    case 'M': return "datetime64";
    case 'm': return "timedelta64";
    case 'f': return size == "16" || size == "12" ? "long double" : "";
    default: return "";
  }
}

/// Parses a descr like "<f8", "|b1", ">i2" (kind + itemsize, as dtype.str writes them) or a
/// one-character code ("<f", "?"), after numpy's dtype(). Throws Error(Unsupported) for
/// complex, object, string, void and datetime dtypes, Error(BadFile) for unknown ones.
Descr parse_descr(const PyValue& v, const std::string& name) {
  std::string_view s = v.str;
  const auto at = " at byte " + std::to_string(v.at);
  bool big = std::endian::native == std::endian::big;
  if (!s.empty() && std::strchr("<>=|!", s[0]) != nullptr) {
    if (s[0] == '<') big = false;
    if (s[0] == '>' || s[0] == '!') big = true;
    s.remove_prefix(1);
  }
  if (!s.empty()) {
    std::string_view size = s.substr(1);
    const std::size_t bracket = size.find('[');  // datetime units: "M8[ns]"
    std::string kind = unsupported_kind(s[0], size.substr(0, bracket));
    if (!kind.empty())
      throw Error(ErrorCode::Unsupported, name + ": " + kind + " dtype " + str_repr(v.str) + " is not supported" + at);
  }
  for (std::size_t i = 0; i < kDTypeCount; ++i) {
    const DTypeInfo& info = dtype_info(static_cast<DType>(i));
    if (is_weak(info.dtype)) continue;
    const bool by_kind = !info.numpy_kind.empty() && s == info.numpy_kind;
    const bool by_char = s.size() == 1 && info.fmt != 0 && s[0] == info.fmt && !info.numpy_kind.empty();
    if (by_kind || by_char) return {info.dtype, big && info.itemsize > 1};
  }
  throw Error(ErrorCode::BadFile, name + ": header: 'descr' " + str_repr(v.str) + " is not a numpy dtype" + at);
}

const PyValue* find_key(const PyValue& dict, std::string_view key) {
  for (std::size_t i = 0; i + 1 < dict.items.size(); i += 2)
    if (dict.items[i].str == key) return &dict.items[i + 1];
  return nullptr;
}

}  // namespace

bool sniff_npy(std::span<const std::byte> head) {
  return head.size() >= sizeof kMagic && std::memcmp(head.data(), kMagic, sizeof kMagic) == 0;
}

LoadedFile open_npy(std::shared_ptr<const MappedFile> file) {
  const std::string& name = file->name();
  ByteReader r(file->bytes(), name);

  // 1-3: magic, version, header length.
  auto magic = r.bytes(sizeof kMagic, "magic");
  if (std::memcmp(magic.data(), kMagic, sizeof kMagic) != 0) r.fail_at("bad magic: not a .npy file", 0);
  const std::uint8_t major = r.u8("major version");
  const std::uint8_t minor = r.u8("minor version");
  if (major < 1 || major > 3 || minor != 0)
    r.fail_at("unknown version " + std::to_string(major) + "." + std::to_string(minor) + " (known: 1.0, 2.0, 3.0)", 6);
  const std::uint64_t header_len = major == 1 ? r.u16le("header length") : r.u32le("header length");

  // 4: the header dict.
  const std::uint64_t header_at = r.offset();
  const std::string header = r.string(header_len, "header", kMaxHeaderBytes);
  const std::uint64_t data_at = r.offset();
  const PyValue dict = HeaderParser(header, name, header_at, major).parse();
  auto bad = [&](const std::string& what, std::uint64_t at) -> Error {
    return Error(ErrorCode::BadFile, name + ": header: " + what + " at byte " + std::to_string(at));
  };
  if (dict.kind != PyValue::Kind::Dict) throw bad("expected a dict, found a " + type_name(dict), dict.at);
  for (std::size_t i = 0; i < dict.items.size(); i += 2) {
    const std::string& key = dict.items[i].str;
    if (key != "descr" && key != "fortran_order" && key != "shape")
      throw bad("unexpected key " + str_repr(key) + " (allowed: 'descr', 'fortran_order', 'shape')", dict.items[i].at);
  }
  for (const char* key : {"descr", "fortran_order", "shape"})
    if (!find_key(dict, key)) throw bad("missing key '" + std::string(key) + "'", dict.at);
  const PyValue& descr = *find_key(dict, "descr");
  const PyValue& fortran = *find_key(dict, "fortran_order");
  const PyValue& shape_value = *find_key(dict, "shape");

  if (fortran.kind != PyValue::Kind::Bool)
    throw bad("'fortran_order' must be True or False, not " + repr(fortran), fortran.at);
  if (shape_value.kind != PyValue::Kind::Tuple)
    throw bad("'shape' must be a tuple of ints, not " + repr(shape_value), shape_value.at);
  if (shape_value.items.size() > kMaxDims)
    throw bad("'shape' has " + std::to_string(shape_value.items.size()) + " dimensions, more than " +
                  std::to_string(kMaxDims),
              shape_value.at);
  Shape shape;
  for (const PyValue& dim : shape_value.items) {
    if (dim.kind != PyValue::Kind::Int) throw bad("'shape' must be a tuple of ints, not " + repr(shape_value), dim.at);
    if (dim.integer < 0) throw bad("'shape' " + repr(shape_value) + " has a negative dimension", dim.at);
    shape.push_back(dim.integer);
  }
  if (descr.kind == PyValue::Kind::List)
    throw Error(ErrorCode::Unsupported, name + ": structured dtype " + repr(descr) + " is not supported at byte " +
                                            std::to_string(descr.at));
  if (descr.kind != PyValue::Kind::Str)
    throw Error(ErrorCode::Unsupported, name + ": dtype " + repr(descr) + " is not supported at byte " +
                                            std::to_string(descr.at));
  const Descr d = parse_descr(descr, name);
  const std::uint64_t itemsize = dtype_info(d.dtype).itemsize;

  // 5: the data. Zero dimensions do not excuse the others from the overflow check: the
  // strides of (0, 2**62, 2**62) overflow all the same.
  std::uint64_t numel = 1, span = itemsize;
  for (std::int64_t dim : shape) {
    const auto u = static_cast<std::uint64_t>(dim);
    numel *= u;  // cannot overflow: bounded by span below
    if (u > 1 && span > static_cast<std::uint64_t>(INT64_MAX) / u)
      throw bad("shape " + repr(shape_value) + " of " + descr.str + " is too large: its byte size overflows",
                shape_value.at);
    if (u > 1) span *= u;
  }
  const std::uint64_t nbytes = numel * itemsize;
  const std::uint64_t data_len = file->size() - data_at;
  if (data_len < nbytes)
    throw Error(ErrorCode::BadFile, name + ": data at byte " + std::to_string(data_at) + " is " + std::to_string(data_len) +
                                        " bytes, shape " + repr(shape_value) + " of " + descr.str + " needs " +
                                        std::to_string(nbytes));

  const bool swap = d.big_endian != (std::endian::native == std::endian::big);
  const bool column_major = fortran.boolean && shape.size() > 1;
  Shape stored_shape(shape.rbegin(), shape.rend());
  if (!column_major) stored_shape = shape;

  TensorEntry entry;
  entry.name = "";
  entry.stored_type = descr.str;
  entry.dtype = d.dtype;
  entry.shape = shape;
  entry.stored_shape = stored_shape;
  entry.offset = data_at;
  entry.nbytes = nbytes;
  if (swap) entry.note = d.big_endian ? "big-endian, converted to native order" : "little-endian, converted to native order";
  if (column_major) entry.note += (entry.note.empty() ? "" : "; ") + std::string("Fortran order, converted to C order");
  const DType dtype = d.dtype;
  entry.load = [file, data_at, nbytes, dtype, stored_shape, swap, column_major]() {
    Tensor t = tensor_from_stored(Buffer::disk(file, data_at, nbytes), dtype, stored_shape, swap);
    if (column_major) {
      std::vector<std::int64_t> order(stored_shape.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int64_t>(order.size() - 1 - i);
      t = t.permute(order);
    }
    return t;
  };

  LoadedFile loaded;
  loaded.path = name;
  loaded.format = "npy";
  loaded.file = file;
  for (std::size_t i = 0; i < dict.items.size(); i += 2)
    loaded.metadata.push_back({dict.items[i].str, type_name(dict.items[i + 1]), to_json(dict.items[i + 1])});
  loaded.tensors.push_back(std::move(entry));
  return loaded;
}

}  // namespace tensor_inspect
