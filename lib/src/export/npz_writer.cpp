// export/npz_writer.cpp — an .npz written from tensors: a zip archive of stored NAME.npy
// members, as numpy.savez writes it, with zip64 records where the 4-byte fields end
// (export_writers.hpp). The layout is that of PKWARE's APPNOTE.TXT 6.3.10: local file header
// (4.3.7), data, data descriptor when streamed (4.3.9), central directory headers (4.3.12),
// zip64 end of central directory record and locator (4.3.14, 4.3.15), end of central
// directory record (4.3.16); zip64 extended information extra field 0x0001 (4.5.3).
#include <sys/types.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "tensor_inspect/export_writers.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {
namespace {

constexpr std::uint64_t kLocalHeaderSig = 0x04034b50, kDataDescriptorSig = 0x08074b50, kCentralHeaderSig = 0x02014b50,
                        kZip64EndSig = 0x06064b50, kZip64LocatorSig = 0x07064b50, kEndSig = 0x06054b50;
constexpr std::uint64_t kMax16 = 0xFFFF, kMax32 = 0xFFFFFFFF;
// "Version needed to extract" (4.4.3.2): 2.0 for a stored file, 4.5 for zip64 extensions.
constexpr std::uint64_t kVersionPlain = 20, kVersionZip64 = 45;
constexpr std::uint64_t kFlagDataDescriptor = 0x0008;  // general purpose bit 3 (4.4.4)

void npz_le(std::string& s, std::uint64_t v, int bytes) {
  for (int b = 0; b < bytes; ++b) s += static_cast<char>((v >> (8 * b)) & 0xff);
}

struct NpzMember {
  std::string name;
  std::uint32_t crc = 0;
  std::uint64_t size = 0, offset = 0;  // data bytes (stored: compressed = uncompressed); local header's offset
  bool zip64 = false;
};

// The fields a local header and a central directory header share, from "version needed" to
// the name length (4.3.7, 4.3.12). `blank`: a streamed member's local header, whose CRC and
// sizes follow the data in its descriptor and are zero here (4.4.4); a zip64 member's sizes
// are 0xFFFFFFFF, the real ones in its extra field.
std::string npz_common_fields(const NpzMember& m, bool streamed, bool blank) {
  std::string s;
  npz_le(s, m.zip64 ? kVersionZip64 : kVersionPlain, 2);
  npz_le(s, streamed ? kFlagDataDescriptor : 0, 2);
  npz_le(s, 0, 2);     // method: stored
  npz_le(s, 0, 2);     // time
  npz_le(s, 0x21, 2);  // date: 1980-01-01, as Python's zipfile writes without one
  npz_le(s, blank ? 0 : m.crc, 4);
  const std::uint64_t size = m.zip64 ? kMax32 : blank ? 0 : m.size;
  npz_le(s, size, 4);  // compressed size
  npz_le(s, size, 4);  // uncompressed size
  npz_le(s, m.name.size(), 2);
  return s;
}

std::string npz_local_header(const NpzMember& m, bool streamed) {
  std::string s;
  npz_le(s, kLocalHeaderSig, 4);
  s += npz_common_fields(m, streamed, streamed);
  npz_le(s, m.zip64 ? 20 : 0, 2);  // extra field length
  s += m.name;
  if (m.zip64) {  // a local header's zip64 field holds both sizes (4.5.3)
    npz_le(s, 0x0001, 2);
    npz_le(s, 16, 2);
    npz_le(s, streamed ? 0 : m.size, 8);  // original size
    npz_le(s, streamed ? 0 : m.size, 8);  // compressed size
  }
  return s;
}

// After a streamed member's data: its CRC and sizes, 8-byte sizes when it is zip64 (4.3.9.1).
std::string npz_data_descriptor(const NpzMember& m) {
  std::string s;
  npz_le(s, kDataDescriptorSig, 4);
  npz_le(s, m.crc, 4);
  npz_le(s, m.size, m.zip64 ? 8 : 4);
  npz_le(s, m.size, m.zip64 ? 8 : 4);
  return s;
}

std::string npz_central_header(const NpzMember& m, bool streamed) {
  std::string s;
  npz_le(s, kCentralHeaderSig, 4);
  npz_le(s, m.zip64 ? kVersionZip64 : kVersionPlain, 2);  // version made by: MS-DOS, as the version needed
  s += npz_common_fields(m, streamed, false);
  npz_le(s, m.zip64 ? 28 : 0, 2);  // extra field length
  npz_le(s, 0, 2);                 // comment length
  npz_le(s, 0, 2);                 // disk number start
  npz_le(s, 0, 2);                 // internal attributes
  npz_le(s, 0, 4);                 // external attributes
  npz_le(s, m.zip64 ? kMax32 : m.offset, 4);
  s += m.name;
  if (m.zip64) {  // the fields that are 0xFFFFFFFF above, in the order of 4.5.3
    npz_le(s, 0x0001, 2);
    npz_le(s, 24, 2);
    npz_le(s, m.size, 8);    // original size
    npz_le(s, m.size, 8);    // compressed size
    npz_le(s, m.offset, 8);  // relative header offset
  }
  return s;
}

// The records after the central directory (`count` headers of `size` bytes from `offset`).
// The zip64 pair precedes the classic record, whose fields that do not fit hold 0xFFFF or
// 0xFFFFFFFF (4.4.1.4), as do, under zip64, its size and offset from `zip64_from` on.
std::string npz_end_records(std::uint64_t count, std::uint64_t size, std::uint64_t offset, bool zip64,
                            std::uint64_t zip64_from) {
  std::string s;
  if (zip64) {
    npz_le(s, kZip64EndSig, 4);
    npz_le(s, 44, 8);  // size of the record after this field: 56 - 12
    npz_le(s, kVersionZip64, 2);
    npz_le(s, kVersionZip64, 2);
    npz_le(s, 0, 4);  // number of this disk
    npz_le(s, 0, 4);  // disk where the central directory starts
    npz_le(s, count, 8);
    npz_le(s, count, 8);
    npz_le(s, size, 8);
    npz_le(s, offset, 8);
    npz_le(s, kZip64LocatorSig, 4);
    npz_le(s, 0, 4);  // disk of the zip64 end record
    npz_le(s, offset + size, 8);
    npz_le(s, 1, 4);  // total number of disks
  }
  const auto field32 = [&](std::uint64_t v) { return v >= kMax32 || (zip64 && v >= zip64_from) ? kMax32 : v; };
  npz_le(s, kEndSig, 4);
  npz_le(s, 0, 4);  // disk numbers
  npz_le(s, std::min(count, kMax16), 2);
  npz_le(s, std::min(count, kMax16), 2);
  npz_le(s, field32(size), 4);
  npz_le(s, field32(offset), 4);
  npz_le(s, 0, 2);  // comment length
  return s;
}

}  // namespace

void write_npz(const std::vector<std::pair<std::string, Tensor>>& tensors, const std::string& path,
               std::uint64_t zip64_from) {
  std::vector<NpzMember> members;
  ExportFile f = open_export_file(path);
  const bool streamed = !export_file_seekable(f.get());
  // Where the archive starts in the file: a standard output opened past a prefix starts there, and
  // each CRC is patched at its header's place after it (it went to the file's byte 14 + offset).
  const off_t start = streamed ? 0 : ::ftello(f.get());
  if (start < 0) throw Error(ErrorCode::Io, path + ": cannot seek: " + std::strerror(errno));
  std::uint64_t at = 0;
  for (const auto& [key, t] : tensors) {
    NpzMember m;
    m.name = key + ".npy";
    if (m.name.size() > kMax16)
      throw Error(ErrorCode::Unsupported,
                  path + ": a zip member's name holds at most 65535 bytes: '" + key.substr(0, 64) + "...' is longer");
    const std::string head = npy_preamble(t, path);
    m.size = head.size() + static_cast<std::uint64_t>(t.numel()) * dtype_info(t.dtype()).itemsize;
    m.offset = at;
    m.zip64 = m.size >= zip64_from || m.offset >= zip64_from || m.size >= kMax32 || m.offset >= kMax32;
    const std::string local = npz_local_header(m, streamed);
    put_bytes(f.get(), local.data(), local.size(), path);
    m.crc = crc32_update(0, reinterpret_cast<const std::byte*>(head.data()), head.size());
    put_bytes(f.get(), head.data(), head.size(), path);
    write_elements(t, f.get(), path, &m.crc);
    at += local.size() + m.size;
    if (streamed) {
      const std::string d = npz_data_descriptor(m);
      put_bytes(f.get(), d.data(), d.size(), path);
      at += d.size();
    } else {  // the CRC is known once the data is written: patched into the local header (offset 14)
      std::string crc;
      npz_le(crc, m.crc, 4);
      const bool back = ::fseeko(f.get(), start + static_cast<off_t>(m.offset + 14), SEEK_SET) == 0;
      if (back) put_bytes(f.get(), crc.data(), 4, path);
      if (!back || ::fseeko(f.get(), 0, SEEK_END) != 0)
        throw Error(ErrorCode::Io, path + ": cannot seek: " + std::strerror(errno));
    }
    members.push_back(std::move(m));
  }
  std::string central;
  bool zip64 = members.size() >= kMax16;
  for (const NpzMember& m : members) {
    central += npz_central_header(m, streamed);
    zip64 = zip64 || m.zip64;
  }
  const std::uint64_t central_size = central.size();
  zip64 = zip64 || central_size >= kMax32 || at >= kMax32 || (!members.empty() && at >= zip64_from);
  central += npz_end_records(members.size(), central_size, at, zip64, zip64_from);
  put_bytes(f.get(), central.data(), central.size(), path);
  finish_export_file(std::move(f), path);
}

}  // namespace tensor_inspect
