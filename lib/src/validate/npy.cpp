// validate/npy.cpp — the rules of .npy (NEP 1, numpy.lib.format):
//   1. magic "\x93NUMPY", version 1.0, 2.0 or 3.0;
//   2. header length (u16 for 1.0, u32 after), the header inside the file; the whole
//      prefix a multiple of 64 bytes (warning: numpy writes it so, readers cope) and
//      ended by '\n' (warning); version 3.0 headers UTF-8;
//   3. the header a dict literal with exactly 'descr', 'fortran_order' (True/False) and
//      'shape' (a tuple of sizes >= 0);
//   4. the data: prod(shape) * itemsize bytes; more is a warning, less an error.
#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <set>
#include <string>
#include <vector>

#include "loaders/byte_reader.hpp"
#include "loaders/formats.hpp"
#include "validate/findings.hpp"

namespace tensor_inspect::validate {
namespace {

// A Python literal just deep enough for a .npy header.
struct Lit {
  enum class Kind { Str, Name, Int, Tuple, List, Dict, Other } kind = Kind::Other;
  std::string text;                // Str: the string; Name: True/False/...; Int: digits
  std::vector<Lit> items;          // Tuple, List; Dict: key, value, key, value...
};

class LitParser {
 public:
  explicit LitParser(std::string_view s) : s_(s) {}
  Lit value(int depth = 0) {
    if (depth > 32) throw std::runtime_error("nested too deeply");
    ws();
    if (i_ >= s_.size()) throw std::runtime_error("ends early");
    const char c = s_[i_];
    Lit v;
    if (c == '\'' || c == '"') {
      v.kind = Lit::Kind::Str;
      ++i_;
      while (i_ < s_.size() && s_[i_] != c) {
        if (s_[i_] == '\\') ++i_;
        if (i_ < s_.size()) v.text += s_[i_++];
      }
      if (i_++ >= s_.size()) throw std::runtime_error("unclosed string");
    } else if (c == '(' || c == '[' || c == '{') {
      const char close = c == '(' ? ')' : c == '[' ? ']' : '}';
      v.kind = c == '(' ? Lit::Kind::Tuple : c == '[' ? Lit::Kind::List : Lit::Kind::Dict;
      ++i_;
      for (;;) {
        ws();
        if (i_ < s_.size() && s_[i_] == close) { ++i_; break; }
        v.items.push_back(value(depth + 1));
        ws();
        if (v.kind == Lit::Kind::Dict) {
          if (i_ >= s_.size() || s_[i_] != ':') throw std::runtime_error("':' expected");
          ++i_;
          v.items.push_back(value(depth + 1));
          ws();
        }
        if (i_ < s_.size() && s_[i_] == ',') { ++i_; continue; }
        if (i_ < s_.size() && s_[i_] == close) { ++i_; break; }
        throw std::runtime_error("',' or '" + std::string(1, close) + "' expected");
      }
    } else if (std::isdigit(static_cast<unsigned char>(c)) || c == '-') {
      v.kind = Lit::Kind::Int;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '-' || s_[i_] == '_' || s_[i_] == '.'))
        v.text += s_[i_++];
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      v.kind = Lit::Kind::Name;
      while (i_ < s_.size() && std::isalnum(static_cast<unsigned char>(s_[i_]))) v.text += s_[i_++];
    } else {
      throw std::runtime_error(std::string("unexpected '") + c + "'");
    }
    return v;
  }
  std::size_t pos() const { return i_; }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool done() { ws(); return i_ == s_.size(); }

 private:
  std::string_view s_;
  std::size_t i_ = 0;
};

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
    i += n;
  }
  return true;
}

// Bytes per element of a simple descr ("<f4", "|b1", "<U3"); nullopt when unknown here or
// no numpy dtype.
std::optional<std::uint64_t> itemsize_of(const std::string& d) {
  std::size_t i = (!d.empty() && std::string("<>|=").find(d[0]) != std::string::npos) ? 1 : 0;
  if (d.substr(i) == "?") return 1;
  if (i >= d.size() || !std::isalpha(static_cast<unsigned char>(d[i])) || i + 1 >= d.size()) return std::nullopt;
  const char kind = d[i];
  std::uint64_t n = 0;
  for (std::size_t k = i + 1; k < d.size(); ++k) {
    if (!std::isdigit(static_cast<unsigned char>(d[k])) || n > 1'000'000'000) return std::nullopt;
    n = n * 10 + static_cast<std::uint64_t>(d[k] - '0');
  }
  // The sizes numpy.dtype accepts (NumPy 1.24 on x86-64); any other ("<f3") is no dtype,
  // which the loader names, so the data's length says nothing.
  auto one_of = [n](std::initializer_list<std::uint64_t> sizes) { return std::find(sizes.begin(), sizes.end(), n) != sizes.end(); };
  if (kind == 'b') return one_of({1}) ? std::optional(n) : std::nullopt;
  if (kind == 'i' || kind == 'u') return one_of({1, 2, 4, 8}) ? std::optional(n) : std::nullopt;
  if (kind == 'f') return one_of({2, 4, 8, 16}) ? std::optional(n) : std::nullopt;
  if (kind == 'c') return one_of({8, 16, 32}) ? std::optional(n) : std::nullopt;
  if (kind == 'm' || kind == 'M') return one_of({8}) ? std::optional(n) : std::nullopt;
  if (kind == 'S' || kind == 'V' || kind == 'a') return n;
  if (kind == 'U') return 4 * n;
  return std::nullopt;
}

}  // namespace

void check_npy(std::span<const std::byte> bytes, std::uint64_t base, Findings& f) {
  ByteReader r(bytes, "npy", base);
  const auto magic = r.bytes(6, "magic");
  if (std::memcmp(magic.data(), "\x93NUMPY", 6) != 0) {
    f.error("magic", "header", base, "the data does not start with the .npy magic (byte 0x93, then NUMPY)");
    return;
  }
  const std::uint8_t major = r.u8("major version"), minor = r.u8("minor version");
  if (minor != 0 || major < 1 || major > 3) {
    f.error("version", "header", base + 6, "version " + std::to_string(major) + "." + std::to_string(minor) +
                                               " (NEP 1 defines 1.0, 2.0 and 3.0)");
    return;
  }
  const std::uint64_t len = major == 1 ? r.u16le("header length") : r.u32le("header length");
  const std::uint64_t prefix = r.pos();
  if (len > r.remaining()) {
    f.error("header_length", "header", base + prefix - (major == 1 ? 2 : 4),
            "header length " + std::to_string(len) + " runs past the end (" + std::to_string(r.remaining()) + " bytes left)");
    return;
  }
  const std::string header(reinterpret_cast<const char*>(bytes.data()) + prefix, len);
  const std::uint64_t data_at = prefix + len;
  if (data_at % 64 != 0)
    f.warning("alignment", "header", base, "the header ends at byte " + std::to_string(data_at) +
                                               ", not a multiple of 64 (numpy pads it so the data is aligned)");
  if (header.empty() || header.back() != '\n')
    f.warning("newline", "header", base + data_at - 1, "the header does not end with a newline");
  if (major == 3 && !valid_utf8(header)) f.error("utf8", "header", base + prefix, "a version 3.0 header must be UTF-8");
  Lit dict;
  try {
    LitParser p(header);
    dict = p.value();
    if (!p.done()) throw std::runtime_error("text after the dict");
  } catch (const std::exception& e) {
    f.error("header", "header", base + prefix, std::string("the header is not a Python dict literal: ") + e.what());
    return;
  }
  if (dict.kind != Lit::Kind::Dict) {
    f.error("header", "header", base + prefix, "the header is not a dict");
    return;
  }
  std::set<std::string> seen;
  const Lit* descr = nullptr;
  const Lit* shape = nullptr;
  for (std::size_t i = 0; i + 1 < dict.items.size(); i += 2) {
    const Lit& k = dict.items[i];
    const Lit& v = dict.items[i + 1];
    const std::string key = k.kind == Lit::Kind::Str ? k.text : "<not a string>";
    if (!seen.insert(key).second) f.error("keys", "key '" + key + "'", base + prefix, "key '" + key + "' appears twice");
    if (key == "descr") descr = &v;
    else if (key == "shape") shape = &v;
    else if (key == "fortran_order") {
      if (v.kind != Lit::Kind::Name || (v.text != "True" && v.text != "False"))
        f.error("fortran_order", "key 'fortran_order'", base + prefix, "fortran_order is not True or False");
    } else {
      f.error("keys", "key '" + key + "'", base + prefix, "unexpected key '" + key + "' (allowed: descr, fortran_order, shape)");
    }
  }
  for (const char* k : {"descr", "fortran_order", "shape"})
    if (!seen.count(k)) f.error("keys", "header", base + prefix, std::string("the header has no '") + k + "'");
  std::uint64_t count = 1;
  bool numel = true;
  if (shape) {
    if (shape->kind != Lit::Kind::Tuple) {
      f.error("shape", "key 'shape'", base + prefix, "shape is not a tuple");
      numel = false;
    } else {
      for (const Lit& d : shape->items) {
        const bool digits = d.kind == Lit::Kind::Int && !d.text.empty() && d.text.size() < 19 &&
                            d.text.find_first_not_of("0123456789") == std::string::npos;
        if (!digits) {
          f.error("shape", "key 'shape'", base + prefix, "shape holds '" + d.text + "', not a size >= 0");
          numel = false;
          break;
        }
        const std::uint64_t n = std::stoull(d.text);
        if (n != 0 && count > (std::uint64_t{1} << 62) / n) { numel = false; break; }
        count *= n;
      }
    }
  } else {
    numel = false;
  }
  std::optional<std::uint64_t> itemsize;
  // A valid descr this tool cannot open (the loader refuses it as unsupported) is a
  // warning: the file keeps NEP 1's rules, but "clean" means the tool reads it.
  if (descr && descr->kind == Lit::Kind::Str) {
    itemsize = itemsize_of(descr->text);
    if (const std::optional<std::string> kind = npy_unsupported_descr(descr->text))
      f.note("unsupported", "key 'descr'", base + prefix,
                "descr '" + descr->text + "' " + (*kind == "dtype" ? "" : "(" + *kind + ") ") +
                    "has no tinygrad dtype: the tool cannot open this array");
  } else if (descr && descr->kind == Lit::Kind::List) {
    f.note("unsupported", "key 'descr'", base + prefix,
              "descr is a structured dtype (a list of fields), which has no tinygrad dtype: the tool cannot open this array");
  } else if (descr) {
    f.error("descr", "key 'descr'", base + prefix, "descr is neither a string nor a list");
  }
  if (numel && itemsize && *itemsize != 0 && count <= (std::uint64_t{1} << 62) / *itemsize) {
    const std::uint64_t need = count * *itemsize, have = bytes.size() - data_at;
    if (have < need)
      f.error("data_short", "data", base + data_at, "the data holds " + std::to_string(have) + " bytes; shape and descr need " +
                                                        std::to_string(need));
    else if (have > need)
      f.warning("trailing", "data", base + data_at + need, std::to_string(have - need) + " bytes after the array's data");
  }
}

}  // namespace tensor_inspect::validate
