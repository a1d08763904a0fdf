// loaders/utf8.hpp — UTF-8 (RFC 3629) for the header parsers: appends one code point (JSON's
// \u in safetensors headers, Python's \x \u \U and latin-1 bytes in .npy headers) and
// measures one well-formed sequence (GGUF strings, which the spec says are UTF-8).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

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

/// The length (1 to 4 bytes) of the well-formed UTF-8 sequence at s[i], or 0 when the bytes
/// there are not one (a stray continuation byte, a cut or overlong sequence, a surrogate,
/// a code point past 0x10FFFF). `i` must be below s.size().
inline std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t len = 0;
  std::uint32_t cp = 0, min = 0;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) len = 2, cp = c & 0x1Fu, min = 0x80;
  else if ((c & 0xF0) == 0xE0) len = 3, cp = c & 0x0Fu, min = 0x800;
  else if ((c & 0xF8) == 0xF0) len = 4, cp = c & 0x07u, min = 0x10000;
  else return 0;
  if (s.size() - i < len) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3Fu);
  }
  return cp >= min && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF) ? len : 0;
}

/// The index of the first byte of `s` that starts no well-formed UTF-8 sequence, or
/// std::string_view::npos when all of `s` is UTF-8.
inline std::size_t utf8_invalid_at(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_sequence_length(s, i);
    if (len == 0) return i;
    i += len;
  }
  return std::string_view::npos;
}

}  // namespace tensor_inspect
