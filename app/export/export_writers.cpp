// app/export/export_writers.cpp — .npy and .safetensors written from tensors (export_writers.hpp).
#include "export/export_writers.hpp"

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <memory>

#include <zlib.h>

#include <nlohmann/json.hpp>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/realize.hpp"
#include "tensor_inspect/stats.hpp"

namespace tensor_inspect::app {
namespace {

// Elements the executor hands over at a time: 8 MiB of values in flight.
constexpr std::size_t kBatchElements = std::size_t{1} << 20;

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

File open_for_writing(const std::string& path) {
  File f(std::fopen(path.c_str(), "wb"));
  if (!f) throw Error(ErrorCode::Io, path + ": cannot write: " + std::strerror(errno));
  return f;
}

void put(std::FILE* f, const void* data, std::size_t n, const std::string& path) {
  if (n && std::fwrite(data, 1, n, f) != n) throw Error(ErrorCode::Io, path + ": write error: " + std::strerror(errno));
}

void finish(File f, const std::string& path) {
  std::FILE* raw = f.release();
  if (std::fflush(raw) != 0 || std::ferror(raw)) {
    std::fclose(raw);
    throw Error(ErrorCode::Io, path + ": write error: " + std::strerror(errno));
  }
  if (std::fclose(raw) != 0) throw Error(ErrorCode::Io, path + ": write error: " + std::strerror(errno));
}

std::uint32_t crc32_of(std::uint32_t crc, const std::byte* p, std::size_t n) {
  while (n > 0) {  // zlib takes a uInt length
    const auto step = static_cast<uInt>(std::min<std::size_t>(n, std::size_t{1} << 30));
    crc = static_cast<std::uint32_t>(crc32(crc, reinterpret_cast<const Bytef*>(p), step));
    p += step, n -= step;
  }
  return crc;
}

DType uint_of_itemsize(std::size_t itemsize) {
  return itemsize == 1 ? DType::UInt8 : itemsize == 2 ? DType::UInt16 : itemsize == 4 ? DType::UInt32 : DType::UInt64;
}

}  // namespace

void write_elements(const Tensor& t, std::FILE* f, const std::string& path, std::uint32_t* crc) {
  // The values as unsigned ints of their itemsize: the executor hands over every bit, where
  // a value conversion would quiet a NaN's payload.
  const std::size_t k = dtype_info(t.dtype()).itemsize;
  // Where the values are a mapped file's bytes in C order, the pages behind the batch written
  // leave the resident set (in runs of at least 4 MiB), so memory stays flat however large
  // the export, as for statistics.
  const std::optional<StoredElements> stored = stored_elements(t, false);
  const bool release = stored && stored->c_order && !stored->ggml_type && stored->file && stored->file->is_mapped();
  const std::uint64_t base = release ? static_cast<std::uint64_t>(stored->bytes.data() - stored->file->bytes().data()) : 0;
  std::uint64_t released = 0;
  std::vector<std::byte> out;
  for_each_chunk(t.bitcast(uint_of_itemsize(k)).node(), kBatchElements, [&](const ValueChunk& c) {
    out.resize(c.size * k);
    for (std::size_t i = 0; i < c.size; ++i) std::memcpy(out.data() + i * k, &c.u[i], k);  // little-endian host: the low k bytes
    put(f, out.data(), out.size(), path);
    if (crc) *crc = crc32_of(*crc, out.data(), out.size());
    const std::uint64_t done = (static_cast<std::uint64_t>(c.start) + c.size) * k;
    if (release && (done - released >= (std::uint64_t{4} << 20) || done == stored->bytes.size())) {
      stored->file->release_pages(base + released, done - released);
      released = done;
    }
  });
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
  File f = open_for_writing(path);
  put(f.get(), head.data(), head.size(), path);
  write_elements(t, f.get(), path, nullptr);
  finish(std::move(f), path);
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
  File f = open_for_writing(path);
  put(f.get(), len, 8, path);
  put(f.get(), h.data(), h.size(), path);
  for (const auto& named : tensors) write_elements(named.second, f.get(), path, nullptr);
  finish(std::move(f), path);
}

namespace {

void put_le(std::string& s, std::uint64_t v, int bytes) {
  for (int b = 0; b < bytes; ++b) s += static_cast<char>((v >> (8 * b)) & 0xff);
}

// A zip entry's fixed fields from "version needed" to the name length, as a local header
// and a central directory record both hold them (APPNOTE.TXT 4.3.7, 4.3.12).
std::string zip_fields(std::uint32_t crc, std::uint64_t size, std::size_t name_size) {
  std::string s;
  put_le(s, 20, 2);                  // version needed: 2.0
  put_le(s, 0, 2);                   // flags
  put_le(s, 0, 2);                   // method: stored
  put_le(s, 0, 2);                   // time
  put_le(s, 0x21, 2);                // date: 1980-01-01, as NumPy's zipfile writes without one
  put_le(s, crc, 4);
  put_le(s, size, 4);                // compressed size
  put_le(s, size, 4);                // uncompressed size
  put_le(s, name_size, 2);
  return s;
}

}  // namespace

void write_npz(const std::vector<std::pair<std::string, Tensor>>& tensors, const std::string& path) {
  struct Entry {
    std::string name;
    std::uint32_t crc;
    std::uint64_t size, offset;
  };
  std::vector<Entry> entries;
  File f = open_for_writing(path);
  std::uint64_t at = 0;
  for (const auto& [key, t] : tensors) {
    const std::string name = key + ".npy", head = npy_preamble(t, path);
    const std::uint64_t size = head.size() + static_cast<std::uint64_t>(t.numel()) * dtype_info(t.dtype()).itemsize;
    if (size >= 0xffffffffu || at >= 0xffffffffu || entries.size() >= 0xffff)
      throw Error(ErrorCode::Unsupported, path + ": '" + name + "' would need a zip64 archive (4 GiB or 65535 members), which "
                                              "export does not write yet: export to .safetensors");
    // The CRC is known only once the data is written: a placeholder, then patched.
    std::string local;
    put_le(local, 0x04034b50, 4);
    const std::size_t crc_at = local.size() + 10;
    local += zip_fields(0, size, name.size());
    put_le(local, 0, 2);  // extra length
    local += name;
    put(f.get(), local.data(), local.size(), path);
    std::uint32_t crc = crc32_of(0, reinterpret_cast<const std::byte*>(head.data()), head.size());
    put(f.get(), head.data(), head.size(), path);
    write_elements(t, f.get(), path, &crc);
    std::string crc_bytes;
    put_le(crc_bytes, crc, 4);
    if (std::fseek(f.get(), static_cast<long>(at + crc_at), SEEK_SET) != 0) throw Error(ErrorCode::Io, path + ": cannot seek");
    put(f.get(), crc_bytes.data(), 4, path);
    if (std::fseek(f.get(), 0, SEEK_END) != 0) throw Error(ErrorCode::Io, path + ": cannot seek");
    entries.push_back({name, crc, size, at});
    at += local.size() + size;
  }
  std::string central;
  for (const Entry& e : entries) {
    put_le(central, 0x02014b50, 4);
    put_le(central, 20, 2);  // version made by
    central += zip_fields(e.crc, e.size, e.name.size());
    put_le(central, 0, 2);   // extra length
    put_le(central, 0, 2);   // comment length
    put_le(central, 0, 2);   // disk number
    put_le(central, 0, 2);   // internal attributes
    put_le(central, 0, 4);   // external attributes
    put_le(central, e.offset, 4);
    central += e.name;
  }
  if (at >= 0xffffffffu) throw Error(ErrorCode::Unsupported, path + ": the archive would need zip64: export to .safetensors");
  std::string end;
  put_le(end, 0x06054b50, 4);
  put_le(end, 0, 4);                // disk numbers
  put_le(end, entries.size(), 2);
  put_le(end, entries.size(), 2);
  put_le(end, central.size(), 4);
  put_le(end, at, 4);
  put_le(end, 0, 2);                // comment length
  put(f.get(), central.data(), central.size(), path);
  put(f.get(), end.data(), end.size(), path);
  finish(std::move(f), path);
}

}  // namespace tensor_inspect::app
