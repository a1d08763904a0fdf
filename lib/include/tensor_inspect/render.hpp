// tensor_inspect/render.hpp — printing a memoryview as Python would (text) or as strict
// JSON, streamed through a buffer so memory stays flat however large the tensor.
//
//   ti::OutBuffer out(stdout);
//   ti::render_text(mv, out);                     // "format: f\nshape: (2,)\n...tolist: [0.5, 1.0]\n"
//   ti::render_json(mv, {}, out);                 // {"format": "f", "shape": [2], ...}
//   char buf[32]; buf[ti::float_repr(0.1f, buf)] = 0;   // "0.10000000149011612"
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "tensor_inspect/memoryview.hpp"

namespace tensor_inspect {

/// A 64 KiB write buffer over a FILE*: the renderers write here, never per element
/// through iostreams.
class OutBuffer {
 public:
  explicit OutBuffer(std::FILE* f) : file_(f) {}
  OutBuffer(const OutBuffer&) = delete;
  OutBuffer& operator=(const OutBuffer&) = delete;
  ~OutBuffer() { flush(); }
  void write(std::string_view s) {
    if (s.size() > kSize - used_) flush();
    if (s.size() > kSize) {
      if (!failed_ && std::fwrite(s.data(), 1, s.size(), file_) != s.size()) failed_ = true;
      return;
    }
    s.copy(buf_ + used_, s.size());
    used_ += s.size();
  }
  void put(char c) {
    if (used_ == kSize) flush();
    buf_[used_++] = c;
  }
  void flush() {
    if (used_ && !failed_ && std::fwrite(buf_, 1, used_, file_) != used_) failed_ = true;
    used_ = 0;
  }
  /// True once a write failed (full disk, closed pipe): renderers stop early.
  bool failed() const { return failed_; }

 private:
  bool failed_ = false;
  static constexpr std::size_t kSize = 1 << 16;
  std::FILE* file_;
  std::size_t used_ = 0;
  char buf_[kSize];
};

/// CPython's float repr: the shortest digits that round-trip (std::to_chars), positional
/// when the decimal exponent is in [-4, 16), else `1e+16`/`1e-05`; always `.0` or an
/// exponent; `nan`, `inf`, `-inf`, `-0.0`. Writes at most 32 chars to `out`, returns the length.
std::size_t float_repr(double v, char* out);
/// The same as a string.
std::string float_repr(double v);

/// How JSON spells non-finite floats: the strings "nan"/"inf"/"-inf" (strict RFC 8259,
/// the default) or Python json.dumps' bare NaN/Infinity/-Infinity.
enum class NonFinite { String, Python };

/// Options for the JSON renderer.
struct JsonOptions {
  NonFinite nonfinite = NonFinite::String;
  /// JSON members written first, each followed by ", " (e.g. `"schema_version": 1, `):
  /// how the app adds the keys of its versioned shape without a second renderer.
  std::string head;
};

/// Text: one `key: value` line per field, values as Python prints them
/// (dtype, format, shape, strides, itemsize, nbytes, readonly, tolist).
void render_text(const MemoryView& mv, OutBuffer& out);
/// JSON: one object with options.head's members, then format, shape, itemsize, nbytes, ndim, strides, readonly,
/// tolist, dtype, tensor_shape, c_contiguous; then a newline.
void render_json(const MemoryView& mv, const JsonOptions& options, OutBuffer& out);

/// Python's repr of a memoryview's tolist() value, written to `out` (streamed).
void write_tolist(const MemoryView& mv, bool json, NonFinite nonfinite, OutBuffer& out);

/// Untrusted text (names, metadata, error lines) made safe for a terminal: \n \r \t,
/// other control characters and bytes that are not valid UTF-8 become escapes as in a
/// Python repr (\x1b); valid UTF-8 passes through. With `escape_backslash`, `\` becomes
/// `\\` so an escape in the input cannot pass for one we made.
std::string escape_untrusted(std::string_view s, bool escape_backslash);

/// A JSON string literal (quotes included) for any bytes: invalid UTF-8 becomes U+FFFD.
std::string json_string(std::string_view s);

}  // namespace tensor_inspect
