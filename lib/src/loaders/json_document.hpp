// loaders/json_document.hpp — a JSON value read by the in-place cursor (json_cursor.hpp) into
// a document, for the JSON shown or checked as it is: a sharded index's "metadata" when
// loading, a whole safetensors header or index when validating. Same grammar, words and
// byte offsets as every other JSON the loaders read; nlohmann::json is only the container
// (objects keyed in sorted order, as it keeps them). A key given twice in one object is
// refused when loading (serde refuses it; nlohmann and Python keep the last silently) and
// reported when collecting, the last value kept.
//
//   nlohmann::json meta = JsonDocument(text, "model.safetensors.index.json", 14).read(1, "metadata");
//   JsonFaults faults{on_duplicate};
//   std::optional<nlohmann::json> header = JsonDocument(text, "x.safetensors", 8).collect(faults);
#pragma once

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "loaders/json_cursor.hpp"
#include "loaders/json_faults.hpp"

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
    Builder b(*this, object);
    walk(depth, b);
    return std::move(b.root);
  }

  /// Validate's read of the whole text as one value: an optional UTF-8 byte order mark,
  /// the value, whitespace. Every duplicate key goes to `faults.duplicate` (objects named
  /// as read() names them, the top level ""); a syntax fault ends the read, kept in
  /// `faults.fault`, and nullopt is returned. No depth cap: validate bounds the nesting
  /// first (json_nesting).
  std::optional<nlohmann::json> collect(JsonFaults& faults) {
    collect_ = &faults;
    Builder b(*this, "");
    try {
      // A byte order mark, which RFC 8259 lets a parser ignore; one cut short stops the read.
      if (!t_.empty() && t_[0] == '\xef') {
        p_ = t_.size() > 1 && t_[1] == '\xbb' ? (t_.size() > 2 && t_[2] == '\xbf' ? 3 : 2) : 1;
        if (p_ < 3) {
          faults.fault = json_fault_at_byte(t_, p_, base_);
          return std::nullopt;
        }
      }
      walk(0, b);
      ws();
      if (p_ < t_.size()) syntax("trailing characters", p_);
    } catch (const JsonStop&) {
      return std::nullopt;
    }
    return std::move(b.root);
  }

 private:
  // Builds the document as walk() reads it.
  struct Builder {
    using KeyBytes = std::unordered_map<std::string, std::uint64_t>;  ///< keys at their opening quote's file byte
    struct Open {
      nlohmann::json* value;
      std::string name;
      std::size_t open_at;            ///< the text byte of its '{' or '['
      std::unique_ptr<KeyBytes> keys;  ///< an object's keys, kept once one was given twice
    };
    JsonDocument& d;
    std::string_view object;
    nlohmann::json root;
    std::vector<Open> stack;  // the containers entered, innermost last
    std::string key_;

    Builder(JsonDocument& doc, std::string_view top) : d(doc), object(top) {}
    // Where the value just read goes: the root, the end of the open array, or the open object's key.
    nlohmann::json* put(nlohmann::json v) {
      if (stack.empty()) return &(root = std::move(v));
      nlohmann::json& top = *stack.back().value;
      if (top.is_array()) {
        top.push_back(std::move(v));
        return &top.back();
      }
      return &(top[key_] = std::move(v));
    }
    void open(bool is_object) {
      std::string name = stack.empty()                       ? std::string(object)
                         : stack.back().value->is_object() ? key_
                                                          : stack.back().name;
      nlohmann::json* v = put(is_object ? nlohmann::json::object() : nlohmann::json::array());
      stack.push_back({v, std::move(name), d.p_, nullptr});
    }
    // A key is looked up in the object as built; only an object that holds a key twice
    // keeps where each of its keys first stood (read again from its '{' when that happens).
    void key(std::string_view k, std::size_t at) {
      key_ = std::string(k);
      Open& o = stack.back();
      if (!o.keys) {
        if (!o.value->contains(key_)) return;
        if (!d.collect_) d.fail("key '" + key_ + "' appears twice in header object '" + o.name + "'");
        o.keys = first_keys(o.open_at, at);
      }
      const auto [it, fresh] = o.keys->emplace(key_, d.base_ + at);
      if (!fresh && d.collect_->duplicate) d.collect_->duplicate(JsonDuplicate{key_, o.name, it->second, d.base_ + at});
    }
    // The keys of the object whose '{' is at text byte `from`, each at its first occurrence
    // before text byte `upto`, read again with no document built.
    std::unique_ptr<KeyBytes> first_keys(std::size_t from, std::size_t upto) const {
      auto keys = std::make_unique<KeyBytes>();
      JsonDocument scan(d.t_, d.file_, d.base_);
      scan.collect_ = d.collect_;  // no depth cap: these bytes were read once already
      scan.p_ = from;
      struct Reached {};
      struct Keys {
        KeyBytes& out;
        std::size_t upto;
        std::uint64_t base;
        int depth = 0;
        void open(bool) { ++depth; }
        void close() { --depth; }
        void key(std::string_view k, std::size_t at) {
          if (at >= upto) throw Reached{};
          if (depth == 1) out.emplace(std::string(k), base + at);
        }
        void string(std::string_view) {}
        void number(std::string_view, std::size_t) {}
        void literal(char) {}
      } visit{*keys, upto, d.base_};
      try {
        scan.walk(0, visit);
      } catch (const Reached&) {
      }
      return keys;
    }
    void string(std::string_view s) { put(std::string(s)); }
    void number(std::string_view n, std::size_t at) { put(d.number_value(n, at)); }
    void literal(char c) { put(c == 'n' ? nlohmann::json(nullptr) : nlohmann::json(c == 't')); }
    void close() { stack.pop_back(); }
  };
  friend struct Builder;

  /// A number as nlohmann keeps it: an integer spelling as uint64 (int64 when negative)
  /// while it fits, else a double; a double out of range is refused.
  nlohmann::json number_value(std::string_view n, std::size_t start) {
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
    if (std::isfinite(d)) return d;
    if (collect_) {
      collect_->fault = JsonFault{base_ + start, "the number " + std::string(n.substr(0, 40)) +
                                                    " is beyond the range of a double"};
      throw JsonStop{};
    }
    syntax("number overflow parsing '" + raw(start) + "'", start);
  }
};

}  // namespace tensor_inspect
