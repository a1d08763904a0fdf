// loaders/utf8.hpp — appends one Unicode code point as UTF-8 (RFC 3629), for the header
// parsers that decode escapes (JSON's \u in safetensors headers, Python's \x \u \U and
// latin-1 bytes in .npy headers).
#pragma once

#include <cstdint>
#include <string>

namespace tensor_inspect {

/// Appends code point `cp` (at most 0x10FFFF; callers check) to `out` in 1 to 4 bytes.
inline void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

}  // namespace tensor_inspect
