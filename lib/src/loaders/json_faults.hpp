// loaders/json_faults.hpp — the collecting policy of the JSON cursor (json_cursor.hpp), for
// validate: every key given twice in one object with the bytes of both occurrences, and the
// first syntax fault in validate's own words at the byte a one-token-at-a-time reader stops.
//
// Loading stops at the first fault with the cursor's message ("header is not valid JSON
// (expected ',' or '}', found 'x') at byte N"); validate words the same fault as its users
// know it ("the header is not valid JSON: unexpected 'x'"), found at the same token.
//
//   JsonFaults collect{[&](const JsonDuplicate& d) { ... }};
//   std::optional<nlohmann::json> doc = JsonDocument(text, "x.safetensors", 8).collect(collect);
//   if (!doc) collect.fault->offset, collect.fault->what;
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace tensor_inspect {

/// A syntax fault of JSON text: the file byte it was found at and what it is, in validate's words.
struct JsonFault {
  std::uint64_t offset;
  std::string what;
};

/// A key that appears again in one JSON object.
struct JsonDuplicate {
  std::string key;
  std::string object;   ///< the key the object stands under in its parent ("" for the top-level value)
  std::uint64_t first;  ///< file byte of the first occurrence's opening quote
  std::uint64_t again;  ///< ... and of this one's
};

/// The collecting policy: duplicates go to `duplicate` and the walk reads on; a syntax
/// fault, after which nothing can be read, ends the walk and is kept in `fault`.
struct JsonFaults {
  std::function<void(const JsonDuplicate&)> duplicate;
  std::optional<JsonFault> fault = std::nullopt;
};

/// The syntax fault the cursor met at the token that starts at `token` (for a fault inside
/// a string, the string's opening quote), worded for validate: the token is read as
/// RFC 8259 lexes it, and the fault placed at the byte where that read stops (the first
/// byte that does not fit, the end of the text, or the token's last byte when the token is
/// well formed but not allowed there). `base` is the file offset of text[0].
JsonFault json_fault_at(std::string_view text, std::size_t token, std::uint64_t base);
/// The byte where reading the token at `token` by RFC 8259 stops: its first byte that does
/// not fit (in a string: a control character, the escape letter or hex digit at fault, the
/// first byte of UTF-8 out of its range), text.size() when the text ends first, else the
/// token's last byte. Loading and validate both place a fault inside a string there.
std::size_t json_token_stop(std::string_view text, std::size_t token);
/// The same words for a read that stopped at byte `stop` itself (a broken byte order mark).
JsonFault json_fault_at_byte(std::string_view text, std::size_t stop, std::uint64_t base);

/// The deepest nesting of [ and { outside strings in JSON text, found without reading
/// its grammar: validate's bound on a header's depth, checked before the walk.
int json_nesting(std::string_view text);

}  // namespace tensor_inspect
