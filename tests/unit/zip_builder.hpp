// tests/unit/zip_builder.hpp — builds small zip archives byte by byte for the .npz and
// PyTorch loader tests, so every field a hostile file could lie in can be set by hand.
//
// Layout written (PKWARE APPNOTE 4.3): per member a 30-byte local header, name, extra,
// data; then one 46-byte central entry per member; then the 22-byte end record.
// DEFLATED members are written as deflate "stored" blocks (RFC 1951 3.2.4: a byte 0x01 or
// 0x00, LEN, ~LEN, then LEN raw bytes), which is valid deflate data needing no zlib.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "tensor_inspect/buffer.hpp"

namespace zip_test {

/// CRC-32 (IEEE 802.3, reflected, as zip uses it), bit by bit.
inline std::uint32_t crc32(const std::string& data) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (char c : data) {
    crc ^= static_cast<unsigned char>(c);
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

/// `data` as one or more deflate stored blocks.
inline std::string deflate_stored(const std::string& data) {
  std::string out;
  std::size_t at = 0;
  do {
    const std::size_t n = std::min<std::size_t>(data.size() - at, 65535);
    const bool last = at + n == data.size();
    out += static_cast<char>(last ? 1 : 0);
    out += static_cast<char>(n & 0xff);
    out += static_cast<char>(n >> 8);
    out += static_cast<char>(~n & 0xff);
    out += static_cast<char>((~n >> 8) & 0xff);
    out += data.substr(at, n);
    at += n;
  } while (at < data.size());
  return out;
}

struct Member {
  std::string name;
  std::string data;                          ///< uncompressed bytes
  bool deflate = false;                      ///< method 8 with stored blocks, else method 0
  std::string local_extra;                   ///< extra field in the local header only
  std::optional<std::uint32_t> size;         ///< overrides the declared uncompressed size
  std::optional<std::uint32_t> comp_size;    ///< overrides the declared compressed size
  std::optional<std::uint32_t> crc;          ///< overrides the CRC
  std::optional<std::string> raw;            ///< overrides the bytes written as data
  bool zip64 = false;                        ///< sizes as 0xFFFFFFFF plus zip64 extra fields (id 0x0001)
};

/// A STORED member.
inline Member stored(std::string name, std::string data) {
  Member m;
  m.name = std::move(name);
  m.data = std::move(data);
  return m;
}
/// A DEFLATED member (deflate stored blocks).
inline Member deflated(std::string name, std::string data) {
  Member m = stored(std::move(name), std::move(data));
  m.deflate = true;
  return m;
}

inline void put16(std::string& s, std::uint32_t v) {
  s += static_cast<char>(v & 0xff);
  s += static_cast<char>((v >> 8) & 0xff);
}
inline void put32(std::string& s, std::uint32_t v) {
  put16(s, v & 0xffff);
  put16(s, v >> 16);
}
inline void put64(std::string& s, std::uint64_t v) {
  put32(s, static_cast<std::uint32_t>(v & 0xffffffffu));
  put32(s, static_cast<std::uint32_t>(v >> 32));
}
/// A zip64 extended information extra field holding both sizes (APPNOTE 4.5.3).
inline std::string zip64_extra(std::uint64_t size, std::uint64_t comp) {
  std::string e;
  put16(e, 0x0001), put16(e, 16), put64(e, size), put64(e, comp);
  return e;
}

/// The archive's bytes.
inline std::string build(const std::vector<Member>& members) {
  std::string out, central;
  for (const Member& m : members) {
    const std::string payload = m.raw ? *m.raw : (m.deflate ? deflate_stored(m.data) : m.data);
    const std::uint32_t crc = m.crc ? *m.crc : crc32(m.data);
    const auto size = m.size ? *m.size : static_cast<std::uint32_t>(m.data.size());
    const auto comp = m.comp_size ? *m.comp_size : static_cast<std::uint32_t>(payload.size());
    const auto local_at = static_cast<std::uint32_t>(out.size());
    const std::uint32_t method = m.deflate ? 8 : 0;
    const std::string local_extra = m.zip64 ? zip64_extra(size, comp) + m.local_extra : m.local_extra;
    const std::string central_extra = m.zip64 ? zip64_extra(size, comp) : std::string();
    const std::uint32_t size32 = m.zip64 ? 0xFFFFFFFFu : size;
    const std::uint32_t comp32 = m.zip64 ? 0xFFFFFFFFu : comp;
    put32(out, 0x04034b50);
    put16(out, m.zip64 ? 45 : 20), put16(out, 0), put16(out, method), put16(out, 0), put16(out, 0x21);
    put32(out, crc), put32(out, comp32), put32(out, size32);
    put16(out, static_cast<std::uint32_t>(m.name.size())), put16(out, static_cast<std::uint32_t>(local_extra.size()));
    out += m.name + local_extra + payload;

    put32(central, 0x02014b50);
    put16(central, m.zip64 ? 45 : 20), put16(central, m.zip64 ? 45 : 20), put16(central, 0), put16(central, method),
        put16(central, 0), put16(central, 0x21);
    put32(central, crc), put32(central, comp32), put32(central, size32);
    put16(central, static_cast<std::uint32_t>(m.name.size())),
        put16(central, static_cast<std::uint32_t>(central_extra.size()));
    put16(central, 0), put16(central, 0), put16(central, 0), put32(central, 0), put32(central, local_at);
    central += m.name + central_extra;
  }
  const auto cd_at = static_cast<std::uint32_t>(out.size());
  out += central;
  put32(out, 0x06054b50);
  put16(out, 0), put16(out, 0);
  put16(out, static_cast<std::uint32_t>(members.size())), put16(out, static_cast<std::uint32_t>(members.size()));
  put32(out, static_cast<std::uint32_t>(central.size())), put32(out, cd_at);
  put16(out, 0);
  return out;
}

inline std::shared_ptr<tensor_inspect::MappedFile> file_of(const std::string& bytes, const std::string& name) {
  std::vector<std::byte> v(bytes.size());
  if (!bytes.empty()) std::memcpy(v.data(), bytes.data(), bytes.size());
  return tensor_inspect::MappedFile::from_bytes(std::move(v), name);
}

}  // namespace zip_test
