// tensor_inspect/export_writers.hpp — the three file layouts export writes, each streamed from
// tensors in C order (values little-endian): .npy (NumPy's format 1.0, or 2.0 for a header
// over 65535 bytes), .npz (npz_writer.cpp) and .safetensors (8-byte header length, JSON
// header, data); and the output file they share.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect {

/// Closes an ExportFile.
struct ExportFileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
/// An output file of export, written front to back.
using ExportFile = std::unique_ptr<std::FILE, ExportFileCloser>;

/// Opens `path` to write it from its start; "/dev/stdout" is this process's descriptor 1 as
/// it is (a pipe, or a file the shell opened, appending or not), not reopened. Throws
/// Error(Io) naming `path` when it cannot.
ExportFile open_export_file(const std::string& path);
/// Whether `f` can be sought back into and rewritten in place: a regular file not opened for
/// appending (a pipe, a FIFO, a terminal or `>>` cannot).
bool export_file_seekable(std::FILE* f);
/// Writes `n` bytes; Error(Io) naming `path` on a write error.
void put_bytes(std::FILE* f, const void* data, std::size_t n, const std::string& path);
/// Flushes and closes `f`; Error(Io) naming `path` when the last bytes cannot be written.
void finish_export_file(ExportFile f, const std::string& path);
/// zlib's CRC-32 of `n` bytes continued from `crc` (0 to start), for any `n`.
std::uint32_t crc32_update(std::uint32_t crc, const std::byte* p, std::size_t n);

/// Writes `t`'s values in C order, little-endian, to `f` (bits as they are: NaN payloads,
/// -0.0), a batch of the executor at a time, folding them into `crc` (zlib's CRC-32) when
/// given. Throws Error(Io) naming `path` on a write error.
void write_elements(const Tensor& t, std::FILE* f, const std::string& path, std::uint32_t* crc);

/// The .npy preamble of `t` (magic, version, header dict padded to 64 bytes). Throws
/// Error(Unsupported) naming `path` for a dtype NumPy has no descr for.
std::string npy_preamble(const Tensor& t, const std::string& path);

/// Writes `t` as a .npy to `path`. Throws Error(Unsupported) for a dtype NumPy has no descr
/// for (bfloat16, fp8: export to .safetensors), Error(Io) on a write error.
void write_npy(const Tensor& t, const std::string& path);

/// The size or offset from which an .npz member is written with zip64 records: the 4-byte
/// fields of a zip hold at most 0xFFFFFFFE (APPNOTE.TXT 4.4.8: 0xFFFFFFFF says "see zip64").
inline constexpr std::uint64_t kZip64From = 0xFFFFFFFF;

/// Writes named tensors as an .npz (a zip of stored NAME.npy members, as numpy.savez writes
/// it). A member whose size or local header offset reaches `zip64_from` gets zip64 extra
/// fields, and the archive then ends with the zip64 end of central directory record and its
/// locator (APPNOTE.TXT 4.3.14, 4.3.15, 4.5.3), as do archives of 65535 members or more; a
/// smaller `zip64_from` forces them on a small archive (tests). A seekable file gets each
/// member's CRC-32 patched into its local header; a stream (pipe, FIFO) gets a data
/// descriptor after each member instead (general purpose flag bit 3, APPNOTE.TXT 4.3.9).
void write_npz(const std::vector<std::pair<std::string, Tensor>>& tensors, const std::string& path,
               std::uint64_t zip64_from = kZip64From);

/// Writes named tensors as a .safetensors to `path`, with `metadata` as its __metadata__.
void write_safetensors(const std::vector<std::pair<std::string, Tensor>>& tensors,
                       const std::vector<std::pair<std::string, std::string>>& metadata, const std::string& path);

}  // namespace tensor_inspect
