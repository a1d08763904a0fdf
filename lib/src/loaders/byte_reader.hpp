// loaders/byte_reader.hpp — the one bounded reader every format parser reads through.
//
// Each read checks the bytes left and throws Error(BadFile) naming the input, the field
// and the byte offset; nothing reads past the span. Integers are little-endian unless
// asked otherwise.
//
//   ByteReader r(file->bytes(), file->name());
//   auto magic = r.bytes(4, "magic");            // span of 4 bytes, or Error at offset 0
//   auto n = r.u64le("tensor count");
//   auto s = r.string(r.u64le("key length"), "key", 65536);   // capped length
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"

namespace tensor_inspect {

bool remote_files_open();  // buffer/byte_source.hpp

class ByteReader {
 public:
  ByteReader(std::span<const std::byte> data, std::string name, std::uint64_t base_offset = 0)
      : data_(data), name_(std::move(name)), base_(base_offset), remote_(remote_files_open()) {}

  /// Bytes consumed so far (relative to the span).
  std::uint64_t pos() const { return pos_; }
  /// Absolute offset in the file (base_offset + pos), for messages.
  std::uint64_t offset() const { return base_ + pos_; }
  std::uint64_t remaining() const { return data_.size() - pos_; }
  const std::string& name() const { return name_; }

  /// Throws Error(BadFile): "<name>: <what> at byte <offset>", with the file and offset as
  /// fields; Error(LimitExceeded) when `limit` names the cap that was hit (limits.hpp).
  [[noreturn]] void fail(const std::string& what, std::string_view limit = {}) const { fail_at(what, offset(), limit); }
  [[noreturn]] void fail_at(const std::string& what, std::uint64_t at, std::string_view limit = {}) const {
    throw Error(limit.empty() ? ErrorCode::BadFile : ErrorCode::LimitExceeded,
                name_ + ": " + what + " at byte " + std::to_string(at), {name_, "", at, std::string(limit)});
  }

  /// The next n bytes; Error(BadFile) naming `field` when fewer remain.
  std::span<const std::byte> bytes(std::uint64_t n, std::string_view field) {
    if (n > remaining()) [[unlikely]]
      fail_truncated(n, field);
    auto s = data_.subspan(static_cast<std::size_t>(pos_), static_cast<std::size_t>(n));
    // A remote file's bytes arrive as the reader reaches them. Asked once: a span of a
    // remote file is registered before a reader of it is made; a local one never is.
    if (remote_) fetch_bytes(s);
    pos_ += n;
    return s;
  }
  void skip(std::uint64_t n, std::string_view field) { (void)bytes(n, field); }
  /// The bytes not read yet, not fetched: a walker that reads them in place must
  /// fetch_bytes() each part first (a remote file's bytes arrive on fetch), then skip().
  std::span<const std::byte> unread() const { return data_.subspan(static_cast<std::size_t>(pos_)); }
  void seek(std::uint64_t pos, std::string_view field) {
    if (pos > data_.size()) fail("seek past end for " + std::string(field));
    pos_ = pos;
  }

  /// A string of n bytes, refusing lengths over `cap` before reading anything; `limit`
  /// names the Limits field the cap comes from, for the message (limits.hpp).
  std::string string(std::uint64_t n, std::string_view field, std::uint64_t cap, std::string_view limit = {}) {
    if (n > cap)
      fail(std::string(field) + " length " + std::to_string(n) + " exceeds the limit of " + std::to_string(cap) +
               (limit.empty() ? std::string() : limit_hint(limit)),
           limit);
    auto s = bytes(n, field);
    return std::string(reinterpret_cast<const char*>(s.data()), s.size());
  }

  template <typename T>
  T read_le(std::string_view field) {
    auto s = bytes(sizeof(T), field);
    unsigned char b[sizeof(T)];
    std::memcpy(b, s.data(), sizeof(T));
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) v |= static_cast<std::uint64_t>(b[i]) << (8 * i);
    T out;
    if constexpr (sizeof(T) == 8) {
      std::memcpy(&out, &v, 8);
    } else {
      auto narrow = static_cast<std::uint32_t>(v);
      if constexpr (sizeof(T) == 4) std::memcpy(&out, &narrow, 4);
      else if constexpr (sizeof(T) == 2) { auto n16 = static_cast<std::uint16_t>(v); std::memcpy(&out, &n16, 2); }
      else { auto n8 = static_cast<std::uint8_t>(v); std::memcpy(&out, &n8, 1); }
    }
    return out;
  }
  std::uint8_t u8(std::string_view f) { return read_le<std::uint8_t>(f); }
  std::uint16_t u16le(std::string_view f) { return read_le<std::uint16_t>(f); }
  std::uint32_t u32le(std::string_view f) { return read_le<std::uint32_t>(f); }
  std::uint64_t u64le(std::string_view f) { return read_le<std::uint64_t>(f); }

 private:
  std::span<const std::byte> data_;
  std::string name_;
  std::uint64_t base_ = 0;
  std::uint64_t pos_ = 0;
  bool remote_ = false;

  // Out of line: bytes() stays small enough to inline into every integer read.
  [[noreturn, gnu::cold, gnu::noinline]] void fail_truncated(std::uint64_t n, std::string_view field) const {
    fail("truncated " + std::string(field) + ": needs " + std::to_string(n) + " bytes, " +
         std::to_string(remaining()) + " left");
  }  // remote files were open when the reader was made: fetch before reading
};

/// a * b, or nullopt when it exceeds 2^63 - 1: the checked product for a caller that
/// records the fault and reads on (validate).
inline std::optional<std::uint64_t> mul_in_range(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > static_cast<std::uint64_t>(INT64_MAX) / a) return std::nullopt;
  return a * b;
}

/// a * b, or Error(BadFile) "<name>: <what> overflows" when it exceeds 2^63 - 1.
inline std::uint64_t checked_mul(std::uint64_t a, std::uint64_t b, const std::string& name, std::string_view what) {
  const std::optional<std::uint64_t> p = mul_in_range(a, b);
  if (!p) throw Error(ErrorCode::BadFile, name + ": " + std::string(what) + " overflows");
  return *p;
}

}  // namespace tensor_inspect
