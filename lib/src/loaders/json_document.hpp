// loaders/json_document.hpp — a JSON value read by the in-place cursor (json_cursor.hpp) into
// a document, for the JSON a loader shows as it is: a sharded index's "metadata". Same
// grammar, words and byte offsets as every other JSON the loaders read; nlohmann::json is
// only the container (objects keyed in sorted order, as it keeps them). A key given twice
// in one object is refused (serde refuses it; nlohmann and Python keep the last silently).
//
//   nlohmann::json meta = JsonDocument(text, "model.safetensors.index.json", 14).read(1, "metadata");
#pragma once

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "loaders/json_cursor.hpp"

namespace tensor_inspect {

class JsonDocument : JsonCursor {
 public:
  /// `text` is read in place; `file` names it and text[0] is its byte `base`, in messages.
  JsonDocument(std::string_view text, const std::string& file, std::uint64_t base) : JsonCursor(text, file, base) {}

  /// The one value of the text, at nesting level `depth` of its file (capped at
  /// Limits::json_depth, as skip_value caps it). `object` names the top-level object in
  /// "<file>: key 'k' appears twice in header object '<object>'"; a nested object is named
  /// by the key it stands under (in an array, by the array's). Iterative, as skip_value.
  nlohmann::json read(std::uint64_t depth, std::string_view object) {
    nlohmann::json root;
    struct Open {
      nlohmann::json* value;
      std::string name;
    };
    std::vector<Open> open;  // the containers entered, innermost last
    std::string scratch, key;
    // Where the value just read goes: the root, the end of the open array, or the open object's `key`.
    const auto put = [&](nlohmann::json v) -> nlohmann::json* {
      if (open.empty()) return &(root = std::move(v));
      nlohmann::json& top = *open.back().value;
      if (top.is_array()) {
        top.push_back(std::move(v));
        return &top.back();
      }
      return &(top[key] = std::move(v));
    };
    const auto read_key = [&] {
      key = std::string(string(scratch));
      if (open.back().value->contains(key))
        fail("key '" + key + "' appears twice in header object '" + open.back().name + "'");
      expect(':');
    };
    for (;;) {
      ws();
      const char c = peek();
      if (p_ >= t_.size()) syntax("expected a value, found the end of the header", p_);
      if (c == '{' || c == '[') {
        if (depth + open.size() + 1 > limits().json_depth)
          fail_at("values nest deeper than " + std::to_string(limits().json_depth) + " levels" +
                      limit_hint("json_depth"),
                  p_, false);
        std::string name = open.empty()                       ? std::string(object)
                           : open.back().value->is_object() ? key
                                                            : open.back().name;
        open.push_back({put(c == '{' ? nlohmann::json::object() : nlohmann::json::array()), std::move(name)});
        ++p_;
        ws();
        if (peek() == (c == '{' ? '}' : ']') && p_ < t_.size()) {
          ++p_;
          open.pop_back();
        } else {
          if (c == '{') read_key();
          continue;
        }
      } else if (c == '"') {
        put(std::string(string(scratch)));
      } else if (c == '-' || (c >= '0' && c <= '9')) {
        put(number_value());
      } else if (c == 't' || c == 'f' || c == 'n') {
        literal(c == 't' ? "true" : c == 'f' ? "false" : "null");
        put(c == 'n' ? nlohmann::json(nullptr) : nlohmann::json(c == 't'));
      } else {
        syntax("expected a value, found " + found(p_), p_);
      }
      // After a value: close containers or move to the next item.
      for (;;) {
        if (open.empty()) return root;
        ws();
        const bool object_open = open.back().value->is_object();
        const char close = object_open ? '}' : ']';
        if (peek() == ',' && p_ < t_.size()) {
          ++p_;
          ws();
          if (object_open) read_key();
          break;
        }
        if (peek() != close || p_ >= t_.size())
          syntax(std::string("expected ',' or '") + close + "', found " + found(p_), p_);
        ++p_;
        open.pop_back();
      }
    }
  }

 private:
  /// A number as nlohmann keeps it: an integer spelling as uint64 (int64 when negative)
  /// while it fits, else a double; a double out of range is refused.
  nlohmann::json number_value() {
    const std::size_t start = p_;
    const std::string_view n = number();
    const char* end = n.data() + n.size();
    if (n.find_first_of(".eE") == std::string_view::npos) {
      if (n[0] != '-') {
        std::uint64_t u = 0;
        if (const auto r = std::from_chars(n.data(), end, u); r.ec == std::errc() && r.ptr == end) return u;
      } else {
        std::int64_t i = 0;
        if (const auto r = std::from_chars(n.data(), end, i); r.ec == std::errc() && r.ptr == end) return i;
      }
    }
    const double d = std::strtod(std::string(n).c_str(), nullptr);
    if (!std::isfinite(d)) syntax("number overflow parsing '" + raw(start) + "'", start);
    return d;
  }
};

}  // namespace tensor_inspect
