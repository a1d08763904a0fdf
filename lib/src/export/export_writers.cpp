// export/export_writers.cpp — the output file, .npy and .safetensors written from tensors (export_writers.hpp).
#include "tensor_inspect/export_writers.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include <zlib.h>

#include <nlohmann/json.hpp>

#include "tensor_inspect/error.hpp"
#include "realize/encoded_stream.hpp"
#include "tensor_inspect/realize.hpp"
#include "tensor_inspect/stats.hpp"

namespace tensor_inspect {
namespace {

// Elements the executor hands over at a time: 8 MiB of words and their bytes in flight.
constexpr std::size_t kExportBatchElements = std::size_t{1} << 20;

}  // namespace

ExportFile open_export_file(const std::string& path) {
  // Descriptor 1 itself, duplicated: reopening /dev/stdout would truncate a file the shell
  // opened for appending, and start a file opened with `>` over at byte 0 behind the shell.
  // A named file is opened for reading too: a zip member written out of order has its CRC read
  // back from it (write_elements).
  const int fd = path == "/dev/stdout" ? ::dup(1)
                                       : ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  std::FILE* f = fd < 0 ? nullptr : ::fdopen(fd, "wb");
  if (!f) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    throw Error(ErrorCode::Io, path + ": cannot write: " + std::strerror(err));
  }
  return ExportFile(f);
}

bool export_file_seekable(std::FILE* f) {
  struct stat st {};
  const int fd = ::fileno(f);
  return ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (::fcntl(fd, F_GETFL) & O_APPEND) == 0;
}

void put_bytes(std::FILE* f, const void* data, std::size_t n, const std::string& path) {
  if (n && std::fwrite(data, 1, n, f) != n) throw Error(ErrorCode::Io, path + ": write error: " + std::strerror(errno));
}

namespace {

// Writes all of `bytes` at offset `at` of descriptor `fd` (a regular file).
void put_bytes_at(int fd, std::span<const std::byte> bytes, off_t at, const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t n = ::pwrite(fd, bytes.data(), bytes.size(), at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(ErrorCode::Io, path + ": write error: " + std::strerror(n < 0 ? errno : EIO));
    bytes = bytes.subspan(static_cast<std::size_t>(n)), at += n;
  }
}

// The CRC-32 of bytes [at, at + n) of descriptor `fd`, read back (pread, a MiB at a time),
// continuing `crc`.
std::uint32_t crc32_of_file(int fd, off_t at, std::uint64_t n, std::uint32_t crc, const std::string& path) {
  std::vector<std::byte> piece(std::size_t{1} << 20);
  while (n > 0) {
    const auto want = static_cast<std::size_t>(std::min<std::uint64_t>(n, piece.size()));
    const ssize_t got = ::pread(fd, piece.data(), want, at);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) throw Error(ErrorCode::Io, path + ": cannot read back: " + std::strerror(got < 0 ? errno : EIO));
    crc = crc32_update(crc, piece.data(), static_cast<std::size_t>(got));
    n -= static_cast<std::uint64_t>(got), at += got;
  }
  return crc;
}

}  // namespace

void finish_export_file(ExportFile f, const std::string& path) {
  std::FILE* raw = f.release();
  if (std::fflush(raw) != 0 || std::ferror(raw)) {
    const int err = errno;
    std::fclose(raw);
    throw Error(ErrorCode::Io, path + ": write error: " + std::strerror(err));
  }
  if (std::fclose(raw) != 0) throw Error(ErrorCode::Io, path + ": write error: " + std::strerror(errno));
}

std::uint32_t crc32_update(std::uint32_t crc, const std::byte* p, std::size_t n) {
  while (n > 0) {  // zlib takes a uInt length
    const auto step = static_cast<uInt>(std::min<std::size_t>(n, std::size_t{1} << 30));
    crc = static_cast<std::uint32_t>(crc32(crc, reinterpret_cast<const Bytef*>(p), step));
    p += step, n -= step;
  }
  return crc;
}

void write_elements(const Tensor& t, std::FILE* f, const std::string& path, std::uint32_t* crc) {
  // The bytes realize would store, streamed (realize/encoded_stream.hpp): stored elements moved
  // are copied bit for bit (a NaN's payload too), computed ones encoded as a kernel stores them,
  // and a computed tensor is never held whole (export -e 'x * 2' of a 256 MiB file held 300 MiB).
  const std::size_t k = dtype_info(t.dtype()).itemsize;
  // Where the values are a mapped file's bytes in C order, the pages behind the batch written
  // leave the resident set (in runs of at least 4 MiB), so memory stays flat however large
  // the export, as for statistics.
  const std::optional<StoredElements> stored = stored_elements(t, false);
  const bool release = stored && stored->c_order && !stored->ggml_type && stored->file && stored->file->is_mapped();
  const std::uint64_t base =
      release ? static_cast<std::uint64_t>(stored->bytes.data() - stored->file->bytes().data()) : 0;
  std::uint64_t released = 0;
  // A regular file takes each run at its place (pwrite), so a column walk (`-e 'x.T'` of a tall
  // table) may come band by band, reading each block of its file once and holding none of its
  // pages (realize/chunk_order.hpp); a pipe takes them in order. A zip member's CRC follows the
  // runs while they come in order, else it is read back from the file once they are written.
  const int fd = ::fileno(f);
  const bool placed = export_file_seekable(f) && (!crc || (::fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR);
  off_t at = 0;
  if (placed) {
    if (std::fflush(f) != 0 || (at = ::ftello(f)) < 0)
      throw Error(ErrorCode::Io, path + ": write error: " + std::strerror(errno));
  }
  const std::uint64_t total = static_cast<std::uint64_t>(t.numel()) * k;
  std::uint64_t in_order = 0;  // bytes written in order from the start, or UINT64_MAX once out of order
  std::uint32_t running = crc ? *crc : 0;  // their CRC
  realize_detail::for_each_encoded(
      t.node(), kExportBatchElements,
      [&](std::int64_t start, std::span<const std::byte> bytes) {
        if (placed) put_bytes_at(fd, bytes, at + static_cast<off_t>(static_cast<std::uint64_t>(start) * k), path);
        else put_bytes(f, bytes.data(), bytes.size(), path);
        if (in_order == static_cast<std::uint64_t>(start) * k) {
          in_order += bytes.size();
          if (crc) running = crc32_update(running, bytes.data(), bytes.size());
        } else {
          in_order = UINT64_MAX;
        }
        const std::uint64_t done = static_cast<std::uint64_t>(start) * k + bytes.size();
        if (release && (done - released >= (std::uint64_t{4} << 20) || done == stored->bytes.size())) {
          stored->file->release_pages(base + released, done - released);
          released = done;
        }
      },
      placed);
  if (crc) *crc = in_order == total ? running : crc32_of_file(fd, at, total, *crc, path);
  if (placed && ::fseeko(f, at + static_cast<off_t>(total), SEEK_SET) != 0)
    throw Error(ErrorCode::Io, path + ": write error: " + std::strerror(errno));
}

std::string npy_preamble(const Tensor& t, const std::string& path) {
  const DTypeInfo& d = dtype_info(t.dtype());
  if (d.numpy_kind.empty())
    throw Error(ErrorCode::Unsupported, path + ": NumPy has no dtype for " + std::string(d.name) +
                                            ": export it to .safetensors, or cast it with --dtype float32");
  std::string shape = "(";
  for (std::size_t i = 0; i < t.shape().size(); ++i) shape += (i ? ", " : "") + std::to_string(t.shape()[i]);
  if (t.shape().size() == 1) shape += ",";
  shape += ")";
  std::string header = "{'descr': '" + std::string(d.itemsize == 1 ? "|" : "<") + std::string(d.numpy_kind) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // NumPy's layout: magic, version, header length, the header padded with spaces to a
  // multiple of 64 bytes of the whole preamble, ending in a newline.
  const bool v2 = header.size() + 1 + 10 > 65535;
  const std::size_t preamble = v2 ? 12 : 10;
  header.append((64 - (preamble + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string head = std::string("\x93NUMPY") + (v2 ? std::string("\x02\x00", 2) : std::string("\x01\x00", 2));
  const std::size_t n = header.size();
  for (std::size_t b = 0; b < (v2 ? 4u : 2u); ++b) head += static_cast<char>((n >> (8 * b)) & 0xff);
  return head + header;
}

void write_npy(const Tensor& t, const std::string& path) {
  const std::string head = npy_preamble(t, path);
  ExportFile f = open_export_file(path);
  put_bytes(f.get(), head.data(), head.size(), path);
  write_elements(t, f.get(), path, nullptr);
  finish_export_file(std::move(f), path);
}

void write_safetensors(const std::vector<std::pair<std::string, Tensor>>& tensors,
                       const std::vector<std::pair<std::string, std::string>>& metadata, const std::string& path) {
  nlohmann::ordered_json header;
  nlohmann::ordered_json meta = nlohmann::ordered_json::object();
  for (const auto& [k, v] : metadata) meta[k] = v;
  header["__metadata__"] = meta;
  std::uint64_t at = 0;
  for (const auto& [name, t] : tensors) {
    const DTypeInfo& d = dtype_info(t.dtype());
    const std::uint64_t n = static_cast<std::uint64_t>(t.numel()) * d.itemsize;
    header[name] = {{"dtype", std::string(d.safetensors)}, {"shape", t.shape()}, {"data_offsets", {at, at + n}}};
    at += n;
  }
  std::string h = header.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  h.append((8 - h.size() % 8) % 8, ' ');  // the data starts 8-byte aligned, as the reference writer pads
  unsigned char len[8];
  for (std::size_t b = 0; b < 8; ++b) len[b] = static_cast<unsigned char>((h.size() >> (8 * b)) & 0xff);
  ExportFile f = open_export_file(path);
  put_bytes(f.get(), len, 8, path);
  put_bytes(f.get(), h.data(), h.size(), path);
  for (const auto& named : tensors) write_elements(named.second, f.get(), path, nullptr);
  finish_export_file(std::move(f), path);
}

}  // namespace tensor_inspect
