// loaders/zip_crc.cpp — zip's CRC-32 of a member's bytes (zlib's crc32, as libzip uses),
// for the reads libzip does not make: a STORED member read in place, and the message of
// a deflated member whose inflated bytes do not match (libzip says only "CRC error").
#include <zlib.h>

#include <cstdio>
#include <vector>

#include "loaders/zip_archive.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

std::uint32_t zip_crc32(std::span<const std::byte> bytes, const std::function<void(std::size_t, std::size_t)>& done) {
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  const auto chunks = static_cast<std::int64_t>((bytes.size() + kChunk - 1) / kChunk);
  std::vector<uLong> parts(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(static)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::size_t at = static_cast<std::size_t>(c) * kChunk, n = std::min(kChunk, bytes.size() - at);
    parts[static_cast<std::size_t>(c)] =
        crc32(0L, reinterpret_cast<const Bytef*>(bytes.data() + at), static_cast<uInt>(n));
    if (done) done(at, n);
  }
  uLong crc = crc32(0L, Z_NULL, 0);
  for (std::size_t c = 0; c < parts.size(); ++c)
    crc = crc32_combine(crc, parts[c], static_cast<z_off_t>(std::min(kChunk, bytes.size() - c * kChunk)));
  return static_cast<std::uint32_t>(crc);
}

void check_member_crc(const std::string& file, const ZipMember& member, std::uint32_t actual) {
  if (actual == member.crc) return;
  char text[96];
  std::snprintf(text, sizeof text, "CRC-32 of the data is 0x%08x, the archive declares 0x%08x", actual, member.crc);
  throw Error(ErrorCode::BadFile, file + ": member '" + member.name + "' (data at byte " +
                                      std::to_string(member.data_offset) + "): " + text);
}

}  // namespace tensor_inspect
