// loaders/npy_header.hpp — the Python literal of a .npy header (NEP 1): a strict reader
// of the subset numpy writes (str, int, True/False/None, tuple, list, dict; what
// ast.literal_eval accepts of it), never evaluated, and Python's repr of what it read.
//
//   PyValue dict = parse_npy_header(text, "x.npy", 10, 1);  // Error(BadFile) "x.npy: header: ... at byte N"
//   if (dict.kind == PyValue::Kind::Dict) std::string s = py_repr(dict);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace tensor_inspect {

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

/// Parses the one value of a header (followed only by whitespace, the padding). `base`
/// is the file offset of text[0]; `major` the format version (3.0 headers are UTF-8,
/// older ones latin-1). Throws Error(BadFile) "<name>: header: <what> at byte <N>",
/// also for values nested too deeply.
PyValue parse_npy_header(std::string_view text, const std::string& name, std::uint64_t base, int major);

/// Python's type name of a value: "str", "int", "tuple", ...
std::string py_type_name(const PyValue& v);
/// Python's repr of a str: quoted, control characters escaped.
std::string py_str_repr(const std::string& s);
/// Python's repr of a value: "'<f8'", "(2, 3)", "(2,)", "[('a', '<i4')]".
std::string py_repr(const PyValue& v);
/// A value as JSON for the metadata listing (tuples and lists become arrays).
nlohmann::ordered_json py_to_json(const PyValue& v);

}  // namespace tensor_inspect
