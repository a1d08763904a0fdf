// loaders/zip_archive.hpp — a read-only zip archive over a mapped file, for the .npz and
// PyTorch loaders.
//
// libzip checks the archive and decompresses members; it reads the mapping through a
// buffer source and never writes. Where a member is STORED its bytes are used in place
// (zero copy), so the data offset is taken from the member's LOCAL header: writers may
// put an extra field there that the central directory does not repeat (NumPy's zip64
// extra field in np.savez files), so 30 + name length + central extra length is wrong.
//
//   ZipArchive zip(file);                                // Error(BadFile) if corrupt
//   for (const ZipMember& m : zip.members()) ...         // central directory order
//   std::vector<std::byte> head = zip.read_prefix(m, 128);
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tensor_inspect/buffer.hpp"

struct zip_source;  // libzip's types, for fetching_zip_source
struct zip_error;

namespace tensor_inspect {

/// One member as the central directory and its local header describe it.
struct ZipMember {
  std::string name;              ///< the member's path inside the archive
  std::uint64_t index = 0;       ///< libzip's index (central directory order)
  bool stored = false;           ///< method 0: the bytes lie uncompressed in the file
  std::uint16_t method = 0;      ///< the compression method (0 STORED, 8 DEFLATED, 12 BZIP2, 14 LZMA, ...)
  std::uint64_t size = 0;        ///< uncompressed bytes, as declared
  std::uint64_t comp_size = 0;   ///< bytes in the file, as declared
  std::uint64_t data_offset = 0; ///< absolute file offset of the member's (compressed) data
  std::uint32_t crc = 0;         ///< CRC-32 of the uncompressed data, as the central directory declares
};

/// zip's CRC-32 (zlib's crc32) of `bytes`, on all cores: fixed 1 MiB chunks combined in
/// order (crc32_combine), so the result never depends on the thread count. `done`, when
/// set, is called from the scanning thread with each chunk's (offset, length) once it is
/// read (a mapped member drops those pages: memory stays flat).
std::uint32_t zip_crc32(std::span<const std::byte> bytes,
                        const std::function<void(std::size_t, std::size_t)>& done = {});
/// Throws Error(BadFile) "<file>: member 'a.npy' (data at byte N): CRC-32 of the data is
/// 0x..., the archive declares 0x..." when `actual` is not the member's declared CRC.
void check_member_crc(const std::string& file, const ZipMember& member, std::uint32_t actual);

/// An open archive. Copying is disabled; share it with std::shared_ptr when producers
/// must read members at realize time.
class ZipArchive {
 public:
  /// Opens `file` read-only. Throws Error(BadFile) "<file>: not a valid zip archive (<libzip
  /// reason>)" or naming the member and byte offset of a bad central/local header, more
  /// members than Limits::zip_members, or a DEFLATED member declaring more than
  /// Limits::zip_ratio times its compressed size (no allocation trusts a declared size
  /// that the compressed bytes cannot hold). Readers of a member whose method the loaded
  /// libzip cannot decompress throw check_member_method's Error(Unsupported).
  explicit ZipArchive(std::shared_ptr<const MappedFile> file);
  ~ZipArchive();
  ZipArchive(const ZipArchive&) = delete;
  ZipArchive& operator=(const ZipArchive&) = delete;

  /// Members in central directory order.
  const std::vector<ZipMember>& members() const { return members_; }
  /// The member named exactly `name`, or nullptr.
  const ZipMember* find(std::string_view name) const;
  const std::shared_ptr<const MappedFile>& file() const { return file_; }
  /// libzip's zip_t* of the archive (opaque here), for ZipMemberStream.
  void* libzip_handle() const { return zip_; }

  /// The first min(n, size) uncompressed bytes of `member` (decompresses only those).
  /// Throws Error(BadFile) naming the file and member when the data is corrupt.
  std::vector<std::byte> read_prefix(const ZipMember& member, std::size_t n) const;
  /// The whole of `member`, inflated into a buffer that grows as bytes arrive (never to
  /// more than the member holds), CRC checked. Throws Error(BadFile) naming the file and
  /// member when the data is short, longer than declared, or corrupt.
  std::vector<std::byte> read_all(const ZipMember& member) const;
  /// Decompresses bytes [skip, skip + out.size()) of `member` into `out`; when
  /// `to_end` is true these must be exactly the member's last bytes, and the CRC is
  /// checked. Throws Error(BadFile) naming the file and member when the data is short,
  /// longer than declared, or corrupt. Allocates nothing beyond libzip's buffers.
  void read_into(const ZipMember& member, std::uint64_t skip, std::span<std::byte> out, bool to_end) const;

 private:
  std::shared_ptr<const MappedFile> file_;
  void* zip_ = nullptr;  ///< zip_t*, kept opaque so libzip stays private to the library
  std::vector<ZipMember> members_;
};

/// A compression method's APPNOTE name: "STORED", "DEFLATED", "BZIP2", "LZMA", "ZSTD", "XZ",
/// or "unknown" (zip_method.cpp).
std::string zip_method_name(std::uint16_t method);
/// True when the libzip loaded can decompress `method` (STORED always; DEFLATED, BZIP2,
/// LZMA, ZSTD, XZ as it was built: zip_compression_method_supported).
bool zip_method_readable(std::uint16_t method);
/// The libzip this tool loads ("libzip.so.4"), for messages (dynload/libzip.cpp).
std::string zip_library_name();
/// How a listing notes a compressed member: "deflated, inflated at realize", or for another
/// method "BZIP2-compressed, decompressed at realize".
std::string zip_compressed_note(const ZipMember& member);
/// Throws Error(Unsupported) "<file>: member 'a.npy' (data at byte N): compression method
/// 14 (LZMA) is not supported by libzip.so.4 (...)" unless zip_method_readable(member.method).
void check_member_method(const std::string& file, const ZipMember& member);

/// True when `head` starts with a zip local file header ("PK\x03\x04").
bool sniff_zip(std::span<const std::byte> head);
/// The name of the first member as far as it lies in `head` (possibly cut short), and
/// whether it was cut; empty when `head` is not a zip local header.
std::string zip_first_name(std::span<const std::byte> head, bool* truncated);

/// A libzip source that fetches each range of a remote `file` before libzip reads it
/// (zip_source.cpp); nullptr with `error` set when libzip cannot make one.
::zip_source* fetching_zip_source(std::shared_ptr<const MappedFile> file, ::zip_error* error);
/// Throws the Error(Io) of a fetch that failed inside a libzip read on this thread, if any.
void rethrow_fetch_error();

}  // namespace tensor_inspect
