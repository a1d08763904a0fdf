// loaders/json_scan.hpp — validate's one pass over the JSON text of a safetensors header or
// an index: nesting depth, every duplicate key with its bytes, and the first syntax fault in
// validate's words, before any document is built.
//
// NOTE: the one JSON reader of the loaders is the in-place cursor (json_cursor.hpp,
// json_document.hpp). This pass stays on nlohmann's SAX parser for reasons that hold today:
// validate's words for a syntax fault ("the text ends before the JSON value is complete",
// "a malformed string (...)") are classified from nlohmann's parse errors, users and tests
// know them, and the pass reports every duplicate key where the cursor stops at the first.
// TODO: a collecting policy for JsonCursor that words faults as validate does, to retire
// this pass (issue 21, part 2), together with validate/safetensors.cpp's DOM walk.
//
//   if (auto bad = json_scan(text, [](const JsonDuplicate& d) { ... })) bad->offset, bad->what;
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace tensor_inspect {

/// The deepest nesting of [ and { outside strings in JSON text, found without building
/// anything (so a hostile header cannot make the DOM exhaust memory or the stack).
int json_nesting(std::string_view text);

/// A syntax fault of JSON text: the byte it was found at (0 is the text's first byte)
/// and what it is, in the project's words.
struct JsonFault {
  std::uint64_t offset;
  std::string what;
};

/// A key that appears again in one JSON object.
struct JsonDuplicate {
  std::string key;
  std::string object;   ///< the key the object stands under in its parent ("" for the top-level value)
  std::uint64_t first;  ///< byte of the first occurrence's opening quote (0 is the text's first byte)
  std::uint64_t again;  ///< ... and of this one's
};

/// Reads `text` once as strict JSON (RFC 8259, through nlohmann's SAX parser; no document
/// is built), calling `duplicate` for each key that appears again in one object (serde
/// refuses such a header; nlohmann's DOM and Python's json keep the last, silently).
/// Returns the first syntax fault, or nullopt when the text is one JSON value. Linear in
/// the text's size; bound the nesting first (json_nesting), as the per-object key sets
/// follow it.
std::optional<JsonFault> json_scan(std::string_view text, const std::function<void(const JsonDuplicate&)>& duplicate);

}  // namespace tensor_inspect
