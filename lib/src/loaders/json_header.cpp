// loaders/json_header.cpp — a JSON header parsed into nlohmann's document with its keys
// checked in the same pass (formats.hpp: parse_json_header), for the JSON that is read as a
// document: a sharded index's "metadata". Safetensors headers and the index's weight map
// are read in place instead (safetensors_header.cpp, safetensors_index.cpp).
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "loaders/formats.hpp"
#include "loaders/json_sax.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

namespace {

/// A SAX pass that refuses duplicate keys, nesting deeper than Limits::json_depth, and
/// records the first syntax error, before any DOM is built. nlohmann keeps the last of
/// duplicate keys; serde refuses them. Work is linear in the text: the key an object was
/// opened under is kept once per open object, and only for messages.
/// NOTE: a SAX pass, not a parser callback: the callback parser rescans the parent object
/// after every child object, which is quadratic in the number of tensors.
class DuplicateKeyCheck : public StructureSax {
 public:
  DuplicateKeyCheck(const std::string& file, std::string_view object) : file_(file), object_(object) {}
  bool start_object(std::size_t) override { return open(true); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    last_key_ = k;
    if (!seen_.back().insert(k).second) {
      const std::string object = seen_.size() == 1 ? std::string(object_) : path_.back();
      throw Error(ErrorCode::BadFile, file_ + ": key '" + k + "' appears twice in header object '" + object + "'");
    }
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
    error_position = position;
    error = ex.what();
    return false;
  }

  std::size_t error_position = 0;
  std::string error;
  bool too_deep = false;

 private:
  bool open(bool object) {
    if (seen_.size() >= limits().json_depth) {
      too_deep = true;
      return false;
    }
    seen_.emplace_back();
    path_.push_back(object ? std::move(last_key_) : std::string());
    last_key_.clear();
    return true;
  }
  bool close() {
    seen_.pop_back();
    path_.pop_back();
    return true;
  }
  const std::string& file_;
  std::string_view object_;  // what the text is, named where its own keys repeat
  std::vector<std::unordered_set<std::string>> seen_;  // keys of each open object or array
  std::vector<std::string> path_;                      // the key each was opened under
  std::string last_key_;
};

/// DuplicateKeyCheck and nlohmann's own DOM builder in one SAX pass: the document is
/// built while its keys are checked (a checking pass and then a parse read it twice).
class CheckedDom {
 public:
  using json = nlohmann::json;
  CheckedDom(const std::string& file, std::string_view object, json& out) : check(file, object), dom_(out, false) {}
  bool null() { return check.null() && dom_.null(); }
  bool boolean(bool v) { return check.boolean(v) && dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return check.number_integer(v) && dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return check.number_unsigned(v) && dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) { return check.number_float(v, s) && dom_.number_float(v, s); }
  bool string(json::string_t& v) { return check.string(v) && dom_.string(v); }
  bool binary(json::binary_t& v) { return check.binary(v) && dom_.binary(v); }
  bool start_object(std::size_t n) { return check.start_object(n) && dom_.start_object(n); }
  bool start_array(std::size_t n) { return check.start_array(n) && dom_.start_array(n); }
  bool end_object() { return check.end_object() && dom_.end_object(); }
  bool end_array() { return check.end_array() && dom_.end_array(); }
  bool key(json::string_t& k) { return check.key(k) && dom_.key(k); }
  bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& ex) {
    return check.parse_error(position, token, ex);
  }
  DuplicateKeyCheck check;

 private:
  nlohmann::detail::json_sax_dom_parser<json> dom_;
};

}  // namespace

nlohmann::json parse_json_header(std::string_view text, const std::string& file, std::uint64_t base, std::string_view object) {
  // NOTE: nlohmann::json (a std::map), not ordered_json: ordered_json looks keys up
  // linearly, so a hostile header with a million tensors would take minutes to parse.
  using json = nlohmann::json;
  json out;
  CheckedDom builder(file, object, out);
  const DuplicateKeyCheck& check = builder.check;
  if (!json::sax_parse(text.begin(), text.end(), &builder)) {
    if (check.too_deep)
      throw Error(ErrorCode::BadFile, file + ": JSON nests deeper than " + std::to_string(limits().json_depth) +
                                          " levels" + limit_hint("json_depth"));
    std::string what = check.error;
    const std::size_t colon = what.find(": ", what.find("parse error"));
    if (colon != std::string::npos) what = what.substr(colon + 2);
    const std::uint64_t at = base + (check.error_position > 0 ? check.error_position - 1 : 0);
    throw Error(ErrorCode::BadFile, file + ": header is not valid JSON (" + what + ") at byte " + std::to_string(at));
  }
  return out;
}

}  // namespace tensor_inspect
