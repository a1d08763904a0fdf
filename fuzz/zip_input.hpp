// fuzz/zip_input.hpp — the structure-aware input form of the zip-based formats (.npz,
// PyTorch): a member list that the harness packs into an archive with correct CRCs and
// sizes, so mutations reach the members' own bytes (a .npy header, a pickle) instead of
// dying at the CRC check. fuzz/make_seeds.py writes real archives in this form.
//
// Layout, all integers little-endian:
//   1. byte 0: mode. Bit 0 set: the rest is the archive's bytes as they are (raw mode,
//      to fuzz the zip structure itself). Clear: a member list follows.
//   2. per member, until the input ends:
//        flags u8  bit 0 DEFLATED (deflate stored blocks), bit 1 zip64 sizes,
//                  bit 2 a wrong CRC, bit 3 a declared size follows the data (a lie)
//        name_len u8, name bytes
//        data_len u16, data bytes
//        [declared_size u32]            if flags bit 3
//      A member cut short by the end of the input is dropped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../tests/unit/zip_builder.hpp"

namespace fuzz {

/// The archive bytes for a zip_input.hpp input.
inline std::string zip_from_input(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return {};
  if (data[0] & 1) return std::string(data + 1, data + size);
  std::vector<zip_test::Member> members;
  const std::uint8_t* const stop = data + size;
  const std::uint8_t* p = data + 1;
  auto left = [&] { return static_cast<std::size_t>(stop - p); };
  while (left() >= 2) {
    const unsigned flags = p[0], name_len = p[1];
    p += 2;
    if (left() < std::size_t{name_len} + 2) break;
    std::string name(p, p + name_len);
    p += name_len;
    const std::size_t n = p[0] | std::size_t{p[1]} << 8;
    p += 2;
    if (left() < n) break;
    std::string body(p, p + n);
    p += n;
    zip_test::Member m = (flags & 1) ? zip_test::deflated(name, body) : zip_test::stored(name, body);
    m.zip64 = (flags & 2) != 0;
    if (flags & 4) m.crc = zip_test::crc32(body) ^ 0x1u;
    if (flags & 8) {
      if (left() < 4) break;
      m.size = std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[3]} << 24;
      p += 4;
    }
    members.push_back(std::move(m));
  }
  return zip_test::build(members);
}

}  // namespace fuzz
