// loaders/json_scan.cpp — validate's JSON pass (see json_scan.hpp): nesting depth, duplicate
// keys (with their bytes), and the first syntax fault said in the project's words (never
// nlohmann's exception text), through nlohmann's SAX interface.
//
// One pass, linear in the text: a set of keys per open object, nothing else kept. (The
// DOM parse with a callback, used before, scans the parent container for a discarded
// value at every object_end and array_end: quadratic in the tensor count of a header.)
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>
#include <iterator>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "loaders/json_scan.hpp"

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

// What stands at byte `at` of `text`, for a message: a printable character quoted, else
// its hex value.
std::string json_char_shown(std::string_view text, std::size_t at) {
  const auto u = static_cast<unsigned char>(text[at]);
  if (u >= 0x21 && u < 0x7f) return std::string("'") + text[at] + "'";
  static const char* hex = "0123456789abcdef";
  return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
}

// A pointer into the text that records where the lexer last read: nlohmann's SAX events
// carry no position, and a duplicate key is found by the byte it stands at.
class TrackingIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;
  TrackingIterator(const char* p, const char* base, std::size_t* read_at) : p_(p), base_(base), read_at_(read_at) {}
  reference operator*() const {
    *read_at_ = static_cast<std::size_t>(p_ - base_);
    return *p_;
  }
  TrackingIterator& operator++() {
    ++p_;
    return *this;
  }
  TrackingIterator operator++(int) {
    TrackingIterator before = *this;
    ++p_;
    return before;
  }
  bool operator==(const TrackingIterator& o) const { return p_ == o.p_; }
  bool operator!=(const TrackingIterator& o) const { return p_ != o.p_; }

 private:
  const char* p_;
  const char* base_;
  std::size_t* read_at_;
};

// The base of a SAX pass that looks only at a document's structure (its objects, arrays
// and keys): every value is accepted as read.
class StructureSax : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
};

class KeyScan : public StructureSax {
 public:
  KeyScan(std::string_view text, const std::function<void(const JsonDuplicate&)>& duplicate, const std::size_t& read_at)
      : text_(text), duplicate_(duplicate), read_at_(read_at) {}
  bool start_object(std::size_t) override { return open(true); }
  bool start_array(std::size_t) override { return open(false); }
  bool key(string_t& k) override {
    if (frames_.empty()) return true;
    // The lexer has just read the key's closing quote; its opening one is the first quote
    // before it that no backslash escapes.
    std::size_t at = read_at_;
    while (at > 0) {
      --at;
      std::size_t slashes = 0;
      while (at > slashes && text_[at - slashes - 1] == '\\') ++slashes;
      if (text_[at] == '"' && slashes % 2 == 0) break;
    }
    Frame& f = frames_.back();
    if (auto [it, fresh] = f.keys.emplace(k, at); !fresh) duplicate_(JsonDuplicate{k, f.name, it->second, at});
    last_key_ = k;
    return true;
  }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t position, const std::string& last_token, const nlohmann::detail::exception& ex) override {
    // `position` counts the bytes read, the offending one included.
    const std::size_t at = std::min<std::size_t>(position > 0 ? position - 1 : 0, text_.size());
    JsonFault f{at, {}};
    const bool blank = text_.find_first_not_of(" \t\n\r") == std::string_view::npos;
    if (ex.id == 406) {  // out_of_range: a number beyond a double (1e999999)
      f.what = "the number " + last_token.substr(0, 40) + " is beyond the range of a double";
      const std::size_t tok = text_.find(last_token);
      if (tok != std::string_view::npos) f.offset = tok;
    } else if (blank) {
      f.what = text_.empty() ? "the text is empty" : "the text is only whitespace";
    } else if (at >= text_.size()) {
      f.what = "the text ends before the JSON value is complete";
    } else if (inside_string(at)) {
      f.what = "a malformed string (a control character, a bad escape or invalid UTF-8 at " + json_char_shown(text_, at) + ")";
    } else if (std::size_t from = at; from > 0 && is_word(text_[from - 1])) {
      // The lexer stops after a bad number or literal ("1.", "tru"): name the word.
      while (from > 0 && is_word(text_[from - 1])) --from;
      f.offset = from;
      f.what = "a malformed number or literal '" + std::string(text_.substr(from, std::min<std::size_t>(at - from, 40))) + "'";
    } else {
      f.what = "unexpected " + json_char_shown(text_, at);
    }
    fault_ = std::move(f);
    return false;
  }
  std::optional<JsonFault> fault_;

 private:
  static bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-'; }
  // Whether byte `at` lies in a string (after an opening quote not yet closed).
  bool inside_string(std::size_t at) const {
    bool in = false;
    for (std::size_t i = 0; i < at; ++i) {
      if (in && text_[i] == '\\') ++i;
      else if (text_[i] == '"') in = !in;
    }
    return in;
  }
  // A container opens under the key it stands at in an object, or under its array's name.
  bool open(bool object) {
    std::string name = frames_.empty() ? std::string() : frames_.back().object ? last_key_ : frames_.back().name;
    frames_.push_back(Frame{object, std::move(name), {}});
    return true;
  }
  bool close() {
    if (!frames_.empty()) frames_.pop_back();
    return true;
  }
  struct Frame {
    bool object;
    std::string name;
    std::unordered_map<std::string, std::uint64_t> keys;  ///< an object's keys, at their first byte
  };
  std::string_view text_;
  const std::function<void(const JsonDuplicate&)>& duplicate_;
  const std::size_t& read_at_;
  std::vector<Frame> frames_;
  std::string last_key_;
};

}  // namespace

std::optional<JsonFault> json_scan(std::string_view text, const std::function<void(const JsonDuplicate&)>& duplicate) {
  std::size_t read_at = 0;
  KeyScan scan(text, duplicate, read_at);
  const char* base = text.data();
  (void)nlohmann::json::sax_parse(TrackingIterator(base, base, &read_at), TrackingIterator(base + text.size(), base, &read_at),
                                  &scan);
  return scan.fault_;
}

}  // namespace tensor_inspect
