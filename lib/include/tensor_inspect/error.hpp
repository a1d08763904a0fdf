// tensor_inspect/error.hpp — the one exception type of the library.
//
// Every failure the user can cause (a bad literal, a corrupt file, an unsupported
// operation) is thrown as `tensor_inspect::Error` with an `ErrorCode`; the CLI catches it
// once in main, prints `what()` as one line and exits with `exit_status(code)`.
//
//   try { auto t = ti::tensor_from_literal("[1, 2", std::nullopt); }
//   catch (const ti::Error& e) { std::cerr << e.what() << '\n'; return ti::exit_status(e.code()); }
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace tensor_inspect {

/// What kind of failure an Error reports. New values go at the end.
enum class ErrorCode {
  Usage,          ///< the command line is malformed (unknown option, missing value)
  BadLiteral,     ///< a tensor literal does not parse or is ragged
  BadDType,       ///< an unknown dtype name
  BadExpression,  ///< an expression does not parse, names an unknown method, or has bad arguments
  BadShape,       ///< shapes that do not fit (reshape, broadcast, ndim over 64)
  BadFile,        ///< a file is malformed: bad magic, lengths past the end, bad header
  Unsupported,    ///< well-formed input that this tool cannot show (structured npy dtypes, ...)
  NoFormat,       ///< --strict: Tensor.data() on a dtype with no struct format
  Io,             ///< a file cannot be opened, read or mapped
  NotFound,       ///< --name selects a tensor the file does not hold
  Internal,       ///< a bug of ours; never caused by input
};

/// Stable, lower-case name of an ErrorCode, used in JSON error output ("bad_file").
std::string_view error_code_name(ErrorCode code);

/// Process exit status for an error, per DESIGN.md (grep/diff/h5diff convention):
/// 2 for trouble (usage, unreadable or malformed input, unsupported operation).
int exit_status(ErrorCode code);

/// The library's only exception. `what()` is one line naming the input and the place.
class Error : public std::runtime_error {
 public:
  /// Throws nothing itself; `message` should already name the input and the place. A NUL
  /// byte in it (a name from a file) is kept as the four characters \x00, so what() is
  /// never cut short.
  Error(ErrorCode code, const std::string& message) : std::runtime_error(without_nul(message)), code_(code) {}
  /// The kind of failure.
  ErrorCode code() const noexcept { return code_; }

 private:
  static std::string without_nul(std::string s) {
    for (std::size_t at = s.find('\0'); at != std::string::npos; at = s.find('\0', at + 4)) s.replace(at, 1, "\\x00");
    return s;
  }
  ErrorCode code_;
};

}  // namespace tensor_inspect
