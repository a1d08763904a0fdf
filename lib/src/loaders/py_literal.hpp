// loaders/py_literal.hpp — the one reader of Python literals in file headers (a .npy
// header, NEP 1): a strict reader of the subset numpy writes (str, int, True/False/None,
// tuple, list, dict; what ast.literal_eval accepts of it), never evaluated, and Python's
// repr of what it read. loaders/npy_header.cpp reads a .npy header through it, for loading
// and for validate.
//
// NOTE: the tensor literals a user types (`tensor-inspect '[[1, 2.5], [True, 3]]'`) are read
// by literal/literal.cpp instead, for reasons that hold: that grammar has floats and
// nested lists only, its errors are Error(BadLiteral) naming a column of the command line,
// not a file byte, and it reads millions of scalars into one flat list with no node per
// value; a header is a dict of a few strings and ints, kept as a tree with each value's
// file byte. One reader for both would make each pay for the other.
//
//   PyValue dict = parse_py_literal(text, "x.npy", 10, 1);  // Error(BadFile) "x.npy: header: ... at byte N"
//   if (dict.kind == PyValue::Kind::Dict) std::string s = py_repr(dict);
#pragma once

#include <cstdint>
#include <functional>
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

/// A fault of a literal, reported to a collecting reader (validate) before it is acted on.
struct PyLiteralFault {
  /// Syntax ends the read; the others are read past: the byte kept as it is, the key kept.
  enum class Kind { Syntax, InvalidUtf8, KeyNotString, DuplicateKey };
  Kind kind;
  std::uint64_t at;  ///< file byte
  std::string what;  ///< loading's words: "unclosed '{'", "duplicate key 'descr'"
  std::string key;   ///< DuplicateKey: the key
};
/// Where a collecting reader sends faults; empty when loading (the first fault throws).
using PyLiteralSink = std::function<void(const PyLiteralFault&)>;

/// Parses the one value of a header (followed only by whitespace, the padding). `base`
/// is the file offset of text[0]; `major` the format version (3.0 headers are UTF-8,
/// older ones latin-1). Throws Error(BadFile) "<name>: header: <what> at byte <N>",
/// also for values nested too deeply. With a `sink`, every fault goes to it first and the
/// ones it can read past (invalid UTF-8 in a string, a key not a string or seen before) do
/// not throw.
PyValue parse_py_literal(std::string_view text, const std::string& name, std::uint64_t base, int major,
                         const PyLiteralSink& sink = {});

/// Python's type name of a value: "str", "int", "tuple", ...
std::string py_type_name(const PyValue& v);
/// Python's repr of a str: quoted, control characters escaped.
std::string py_str_repr(const std::string& s);
/// Python's repr of a value: "'<f8'", "(2, 3)", "(2,)", "[('a', '<i4')]".
std::string py_repr(const PyValue& v);
/// A value as JSON for the metadata listing (tuples and lists become arrays).
nlohmann::ordered_json py_to_json(const PyValue& v);

}  // namespace tensor_inspect
