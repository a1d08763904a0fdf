// tensor_inspect/render.hpp — printing a memoryview as Python would (text) or as strict
// JSON, streamed through a buffer so memory stays flat however large the tensor.
//
//   ti::OutBuffer out(stdout);
//   ti::render_text(mv, out);                     // "dtype: float32\nformat: f\n...tolist: [0.5, 1.0]\n"
//   ti::render_json(mv, {}, out);                 // {"format": "f", "shape": [2], ...}
//   char buf[32]; buf[ti::float_repr(0.1f, buf)] = 0;   // "0.10000000149011612"
//   ti::render_text_header(ti::data_header(t), out);      // the fields without tolist, nothing read
//   ti::render_text_summary(mv, edges, summary, out);    // NumPy-style "[0, 1, 2, ..., 7, 8, 9]"
//   ti::write_element(mv, 3, false, ti::NonFinite::String, out);   // one value, as tolist() shows it
#pragma once

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <string_view>

#include "tensor_inspect/memoryview.hpp"
#include "tensor_inspect/summary.hpp"

namespace tensor_inspect {

/// A 64 KiB write buffer over a FILE*: the renderers write here, never per element
/// through iostreams. Writes larger than the buffer go straight to the FILE (glibc passes
/// them to one write(2)). A failed write (full disk, EIO) is remembered: failed() turns
/// true, later writes are dropped, and the FILE's error flag tells main. A closed pipe
/// ends the process through SIGPIPE before that, as it does for cat. What is still
/// buffered when an exception leaves the buffer's scope is dropped, not written: a run
/// that fails prints no half of its output (unless it already passed 64 KiB or flushed).
class OutBuffer {
 public:
  /// Capacity in bytes: reserve() hands out at most this much at once.
  static constexpr std::size_t kSize = 1 << 16;
  explicit OutBuffer(std::FILE* f) : file_(f), exceptions_(std::uncaught_exceptions()) {}
  OutBuffer(const OutBuffer&) = delete;
  OutBuffer& operator=(const OutBuffer&) = delete;
  ~OutBuffer() {
    if (std::uncaught_exceptions() == exceptions_) flush();
  }
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
  /// Room for `n` <= kSize bytes written in place: fill [p, p + k) for some k <= n, then
  /// commit(p + k). Lets a formatter write a value without a temporary.
  char* reserve(std::size_t n) {
    if (n > kSize - used_) flush();
    return buf_ + used_;
  }
  /// Ends a reserve(): `end` is one past the last byte written.
  void commit(char* end) { used_ = static_cast<std::size_t>(end - buf_); }
  void flush() {
    if (used_ && !failed_ && std::fwrite(buf_, 1, used_, file_) != used_) failed_ = true;
    used_ = 0;
  }
  /// Bytes held, not yet written.
  std::size_t buffered() const { return used_; }
  /// True once a write failed (full disk, I/O error): renderers stop early.
  bool failed() const { return failed_; }

 private:
  bool failed_ = false;
  std::FILE* file_;
  int exceptions_;  // uncaught exceptions when made: more at destruction means unwinding
  std::size_t used_ = 0;
  char buf_[kSize];
};

/// CPython's float repr: the shortest digits that round-trip (Dragonbox, from {fmt}),
/// positional when the decimal exponent is in [-4, 16), else `1e+16`/`1e-05`; always `.0`
/// or an exponent; `nan`, `inf`, `-inf`, `-0.0` (Python/pystrtod.c, mode 'r'). Writes at
/// most kMaxValueRepr (24) chars to `out`, no terminator; returns the length.
std::size_t float_repr(double v, char* out);
/// The same as a string.
std::string float_repr(double v);

/// The most chars one value's repr takes (float_repr's "-2.2250738585072014e-308";
/// integers take at most 20, bytes objects and JSON spellings of nan/inf fewer).
inline constexpr std::size_t kMaxValueRepr = 24;

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

/// Python's repr of a memoryview's tolist() value (JSON: the same nesting with JSON
/// spellings), written to `out`. One typed loop per dtype over the C-contiguous buffer;
/// past about 256 KiB of output the elements are formatted in fixed blocks by all OpenMP
/// threads and written in order, so the bytes never depend on the thread count and memory
/// stays within a few MiB per thread. Stops early once `out` failed().
void write_tolist(const MemoryView& mv, bool json, NonFinite nonfinite, OutBuffer& out);

/// Text without tolist: the lines render_text writes before `tolist:` (as data_header()
/// gives them, so nothing of the data is read).
void render_text_header(const MemoryView& mv, OutBuffer& out);
/// JSON without tolist: render_json's object (options.head's members first) minus the
/// "tolist" key, keys in its order.
void render_json_header(const MemoryView& mv, OutBuffer& out, const JsonOptions& options = {});

/// A summarized tolist, as numpy.array2string lays it out: `edges` holds the shown
/// elements (edge_elements() of the tensor, shape summary.shown_shape()), and "..."
/// stands for the middle of each elided axis: `[[0, 1, 2, ..., 7, 8, 9], ..., [...]]`.
/// JSON writes the elision as the string "...", so the list stays strict JSON.
void write_tolist_summary(const MemoryView& edges, const Summary& summary, bool json, NonFinite nonfinite,
                          OutBuffer& out);
/// Text of a summarized view: render_text's lines with mv's fields (the whole tensor's,
/// from data_header()), the summarized tolist, and a last line
/// `summary: 36 of 20000 elements shown (--full prints all)`.
void render_text_summary(const MemoryView& mv, const MemoryView& edges, const Summary& summary, OutBuffer& out);
/// JSON when summaries were asked for: render_json's keys (options.head's first), tolist summarized when
/// `summary` is set (`shown` holds the edges) or complete (`shown` is mv), and a last key
/// "summary": {"summarized": bool, "shown": elements shown, "size": elements in all}.
void render_json_summary(const MemoryView& mv, const MemoryView& shown, const std::optional<Summary>& summary,
                         const JsonOptions& options, OutBuffer& out);

/// One value as tolist() prints it: True/False (JSON true/false), integers, float_repr
/// (JSON: non-finite as `nonfinite` says). For summaries and other per-value printing.
void write_scalar(const Scalar& s, bool json, NonFinite nonfinite, OutBuffer& out);
/// Element i (0 <= i < numel, C order) of `mv` as tolist() prints it: write_scalar of
/// mv.element(i), or a bytes object (b'a', b'\\x00') for format 'c' (JSON: a 1-char string).
void write_element(const MemoryView& mv, std::int64_t i, bool json, NonFinite nonfinite, OutBuffer& out);

/// Untrusted text (names, metadata, error lines) made safe for a terminal: \n \r \t,
/// other control characters and bytes that are not valid UTF-8 become escapes as in a
/// Python repr (\x1b); valid UTF-8 passes through. With `escape_backslash`, `\` becomes
/// `\\` so an escape in the input cannot pass for one we made.
std::string escape_untrusted(std::string_view s, bool escape_backslash);

/// A JSON string literal (quotes included) for any bytes: invalid UTF-8 becomes U+FFFD.
std::string json_string(std::string_view s);

/// True when every byte of `s` is printable ASCII other than '"' and '\\' (0x20-0x7e):
/// then escape_untrusted(s, true) is `s` and json_string(s) is `s` in quotes, so a caller
/// may write `s` as it is, and its display width is s.size(). Tests eight bytes per step.
bool plain_text(std::string_view s);

}  // namespace tensor_inspect
