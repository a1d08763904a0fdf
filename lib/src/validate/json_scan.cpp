// validate/json_scan.cpp — the JSON text of a header or index read once before its
// document is built: nesting depth, duplicate keys, and the first syntax fault said in the
// project's words (never nlohmann's exception text), through nlohmann's SAX interface.
//
// One pass, linear in the text: a set of keys per open object, nothing else kept. (The
// DOM parse with a callback, used before, scans the parent container for a discarded
// value at every object_end and array_end: quadratic in the tensor count of a header.)
#include <cctype>
#include <string>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "loaders/json_sax.hpp"
#include "validate/findings.hpp"

namespace tensor_inspect::validate {

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

class KeyScan : public StructureSax {
 public:
  KeyScan(std::string_view text, const std::function<void(const std::string&)>& duplicate) : text_(text), duplicate_(duplicate) {}
  bool start_object(std::size_t) override {
    keys_.emplace_back();
    return true;
  }
  bool key(string_t& k) override {
    if (!keys_.empty() && !keys_.back().insert(k).second) duplicate_(k);
    return true;
  }
  bool end_object() override {
    if (!keys_.empty()) keys_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
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
  std::string_view text_;
  const std::function<void(const std::string&)>& duplicate_;
  std::vector<std::unordered_set<std::string>> keys_;
};

}  // namespace

std::optional<JsonFault> json_scan(std::string_view text, const std::function<void(const std::string&)>& duplicate) {
  KeyScan scan(text, duplicate);
  (void)nlohmann::json::sax_parse(text.begin(), text.end(), &scan);
  return scan.fault_;
}

}  // namespace tensor_inspect::validate
