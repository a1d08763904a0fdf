// tensor_inspect/error.hpp — the one exception type of the library.
//
// Every failure the user can cause (a bad literal, a corrupt file, an unsupported
// operation) is thrown as `tensor_inspect::Error` with an `ErrorCode`; the CLI catches it
// once in main, prints `what()` as one line and exits with `exit_status(code)`. The place
// is data too: the file, the tensor, the byte offset and the cap hit are fields, so a
// caller adds context without parsing the message (nlohmann/json's `parse_error::byte`).
//
//   try { auto t = ti::tensor_from_literal("[1, 2", std::nullopt); }
//   catch (const ti::Error& e) { std::cerr << e.what() << '\n'; return ti::exit_status(e.code()); }
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

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
  LimitExceeded,  ///< an input needs more than a Limits cap allows (--limit raises it); Error::limit() names it
  Count,          ///< not a code: the number of codes, which the name table is checked against
};

/// Stable, lower-case name of an ErrorCode, used in JSON error output ("bad_file").
std::string_view error_code_name(ErrorCode code);

/// Process exit status for an error, per DESIGN.md (grep/diff/h5diff convention):
/// 2 for trouble (usage, unreadable or malformed input, unsupported operation, a cap hit);
/// a value outside the enum is trouble too.
int exit_status(ErrorCode code);

/// Where an Error happened, as data; a field is empty (nullopt) when the thrower did not
/// know it. The message says the same in words: these fields never change what().
struct ErrorPlace {
  std::string file;                     ///< the input as messages name it ("model.gguf", "<stdin>", a URL shown safely)
  std::string tensor;                   ///< the tensor's name in that file ("blk.0.attn_q.weight")
  std::optional<std::uint64_t> offset;  ///< byte offset in the file where the fault is
  std::string limit;                    ///< the Limits field of a hit cap ("stream_bytes"): code LimitExceeded
};

/// The library's only exception. `what()` is one line naming the input and the place.
class Error : public std::runtime_error {
 public:
  /// Throws nothing itself; `message` should already name the input and the place. A NUL
  /// byte in it (a name from a file) is kept as the four characters \x00, so what() is
  /// never cut short.
  Error(ErrorCode code, const std::string& message) : std::runtime_error(without_nul(message)), code_(code) {}
  /// The same with the place as fields (`place.file` etc.); `message` still says it in words.
  Error(ErrorCode code, const std::string& message, ErrorPlace place)
      : std::runtime_error(without_nul(message)), code_(code), place_(std::move(place)) {}
  /// The kind of failure.
  ErrorCode code() const noexcept { return code_; }
  /// The input the error is about, as messages name it; "" when not known.
  const std::string& file() const noexcept { return place_.file; }
  /// The tensor the error is about; "" when none or not known.
  const std::string& tensor() const noexcept { return place_.tensor; }
  /// The byte offset in file() of the fault; nullopt when not known.
  std::optional<std::uint64_t> byte_offset() const noexcept { return place_.offset; }
  /// The cap that was hit (a Limits field name) when code() is LimitExceeded; "" otherwise.
  const std::string& limit() const noexcept { return place_.limit; }
  /// All of the place at once.
  const ErrorPlace& place() const noexcept { return place_; }

 private:
  static std::string without_nul(std::string s) {
    for (std::size_t at = s.find('\0'); at != std::string::npos; at = s.find('\0', at + 4)) s.replace(at, 1, "\\x00");
    return s;
  }
  ErrorCode code_;
  ErrorPlace place_;
};

/// True for an Error that says a tensor's values cannot be shown here rather than that the
/// input is malformed: Unsupported (a dtype or quant type this tool lacks) or LimitExceeded
/// (a cap hit: raising the cap shows them). A run over many tensors (--stats over a file,
/// --all, diff, validate) lists such a tensor as skipped, or notes it, and goes on.
inline bool cannot_show(const Error& e) noexcept {
  return e.code() == ErrorCode::Unsupported || e.code() == ErrorCode::LimitExceeded;
}

}  // namespace tensor_inspect
