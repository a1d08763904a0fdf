// tensor_inspect/buffer.hpp — bytes on a device: CPU (heap, owned) or DISK (a read-only
// memory map of a file, so a multi-gigabyte file opens instantly and only the pages that
// are read are ever touched).
//
//   auto file = ti::MappedFile::open("model.safetensors");    // throws Error(Io) if unreadable
//   auto buf  = ti::Buffer::disk(file, 4096, 1024);            // bytes [4096, 5120) of the file
//   auto cpu  = ti::Buffer::cpu(64);                           // 64 zeroed bytes
//   std::span<const std::byte> b = buf->bytes();
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tensor_inspect {

/// Where a buffer's bytes live.
enum class Device { CPU, DISK };

class ByteSource;

/// Where reading a stream may stop, once its first bytes tell (StreamCheck).
struct StreamStop {
  std::uint64_t bytes = 0;  ///< the input's whole length: reading stops there
  /// Empty: bytes past `bytes` are not read (np.load leaves what follows a .npy in the
  /// pipe). Else more is an error, this text after the input's name, found by reading one
  /// byte more (raw data of a given shape must fill the input exactly).
  std::string more_is_error;
  /// The cap (a Limits field) that more_is_error is about, if any: the Error is then
  /// ErrorCode::LimitExceeded naming it (limits.hpp), else BadFile.
  std::string limit;
};

/// Judges a stream (a pipe, standard input, /dev/zero) as it is read: called with all the
/// bytes read so far, first once at least 64 have arrived and then each time as many again
/// have, until it returns a StreamStop. It returns nullopt to read on, or throws Error to
/// stop reading with that error at once (no format starts with these bytes: /dev/zero is
/// refused after its first read, not after Limits::stream_bytes). See tensor_stream_check
/// (loader.hpp).
using StreamCheck = std::function<std::optional<StreamStop>(std::span<const std::byte> so_far)>;

/// A whole file mapped read-only (PROT_READ, MAP_PRIVATE); or, for standard input or an
/// empty file, the bytes read into memory. RAII: the mapping ends with the last owner.
class MappedFile {
 public:
  /// Maps `path` read-only. Throws Error(Io) naming the path and errno text when the
  /// file cannot be opened, is a directory, or cannot be mapped. The file is never written.
  /// A URL (`http://`, `https://`, `hf://`: tensor_inspect/remote.hpp) opens open_url().
  static std::shared_ptr<MappedFile> open(const std::string& path);
  /// The same, with `check` judging the bytes of a file that is read rather than mapped (a
  /// pipe or device given by name): see read_fd.
  static std::shared_ptr<MappedFile> open(const std::string& path, const StreamCheck& check);
  /// A remote file: one range request learns its size and first 64 KiB; bytes() then spans
  /// address space reserved for the whole file (MAP_NORESERVE: memory is committed only for
  /// blocks fetched), and reads of it must be preceded by fetch() or fetch_bytes(). Throws
  /// Error(Io) naming the URL (never a token) and the HTTP status or transfer error;
  /// Error(Usage) for a malformed hf:// URL, or before any request for a setting the
  /// environment gave malformed (RemoteOptions::cache_size_error, timeout_error).
  static std::shared_ptr<MappedFile> open_url(const std::string& url);
  /// Reads all of standard input (or any fd) into memory; `name` is used in messages. A
  /// regular file is mapped instead. Throws Error(Io) on a read error, or past
  /// Limits::stream_bytes (a pipe or device may never end), or at once when the StreamStop
  /// `check` gives is past it; what `check` throws; Error(BadFile) when the stream holds more
  /// than a StreamStop with more_is_error allows. Special files given to open() are read the same way.
  static std::shared_ptr<MappedFile> read_fd(int fd, const std::string& name, const StreamCheck& check = {});
  /// Wraps bytes already in memory (tests, decompressed members).
  static std::shared_ptr<MappedFile> from_bytes(std::vector<std::byte> bytes, const std::string& name);
  /// Bytes [offset, offset + size) of `parent` as a file of their own, named `name`, sharing
  /// the parent's memory (no copy) and keeping it alive: a STORED zip member. Throws
  /// Error(BadFile) naming the parent when the range is not inside it.
  static std::shared_ptr<MappedFile> slice(std::shared_ptr<const MappedFile> parent, std::uint64_t offset,
                                           std::uint64_t size, const std::string& name);
  /// `size` bytes that read as `head` followed by zeros, named `name`: an anonymous mapping
  /// that commits memory only for the pages of `head`. Lets a header parser check lengths
  /// against data it never reads (a compressed .npz member, inflated later). Throws
  /// Error(Unsupported) past Limits::buffer_bytes or when the address space cannot be reserved.
  static std::shared_ptr<MappedFile> sparse(std::span<const std::byte> head, std::uint64_t size,
                                            const std::string& name);

  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  /// The file's bytes; size() is the file length in bytes.
  std::span<const std::byte> bytes() const { return {data_, size_}; }
  std::size_t size() const { return size_; }
  /// The path (or "<stdin>") used in error messages; for a URL, display_url()'s form
  /// (credentials and query hidden).
  const std::string& name() const { return name_; }
  /// Where the file was opened from: the path, or the URL as given, credentials included,
  /// for opening its siblings (an index's shards) the same way. Never print it; name() is
  /// for people. Empty for bytes that came from no path (stdin, a zip member).
  const std::string& location() const { return location_; }
  /// True when the bytes are a memory map of the file (not a heap copy).
  bool is_mapped() const { return mapped_; }
  /// True for a file opened from a URL, whose bytes arrive on fetch().
  bool is_remote() const { return remote_ != nullptr; }
  /// Makes bytes [offset, offset + length) (clamped to the file) readable: for a remote file,
  /// fetches the 64 KiB blocks of the range not fetched yet (with read-ahead when reads run
  /// sequentially); nothing for a local file. Thread-safe. Throws Error(Io) as open_url.
  void fetch(std::uint64_t offset, std::uint64_t length) const;
  /// Drops the whole pages inside bytes [offset, offset + length) from this process's
  /// resident set (madvise MADV_DONTNEED), for scans that are past them: a file mapping
  /// re-reads them from the page cache if they are touched again, so bytes() still reads
  /// the same. A remote file gives back the memory of the whole 64 KiB blocks inside, which
  /// a later read fetches again (fetch()). Does nothing for bytes held in memory (stdin,
  /// anonymous stand-ins).
  void release_pages(std::uint64_t offset, std::uint64_t length) const;

 private:
  MappedFile() = default;
  const std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  bool mapped_ = false;
  bool anonymous_ = false;  ///< bytes in an anonymous mapping (read from a stream): unmapped, not a file map
  bool file_mapping_ = false;  ///< bytes are a MAP_PRIVATE mapping of a file (or a slice of one)
  std::vector<std::byte> owned_;
  std::string name_;
  std::string location_;
  std::shared_ptr<ByteSource> remote_;  ///< where a remote file's bytes come from (remote/ implements it)
};

/// The name of the mapped file whose bytes hold `address`, or nullptr when none does (or
/// when more than 256 files were mapped at once). Async-signal-safe: a SIGBUS handler calls
/// it with si_addr, since reading a mapping past the end of a file truncated after it was
/// mapped raises SIGBUS (buffer/mapping_registry.cpp).
const char* mapped_file_name_at(const void* address) noexcept;
/// Records that this run read the file with device `dev` and inode `ino` as an input: every
/// MappedFile::open of a regular file does (a checkpoint's shards, an ONNX model's external
/// data, a DCP folder's .distcp files), and so must any other reader of an input's side file
/// (note_input_path). OutputFiles refuses to write over such a file. Thread-safe; the list
/// holds one entry per file opened, which the loaders' caps bound. `ctime_ns` is the file's
/// status change time (stat's st_ctim, in ns since the epoch): a file the run read and deleted
/// whose inode a new file reuses (another ctime) is not an input.
void note_input_read(std::uint64_t dev, std::uint64_t ino, std::uint64_t ctime_ns);
/// note_input_read for `path` as stat(2) finds it; nothing when it does not exist.
void note_input_path(const std::string& path);
/// True when note_input_read recorded the file (device, inode, status change time) in this run.
bool was_read_as_input(std::uint64_t dev, std::uint64_t ino, std::uint64_t ctime_ns);
/// Records (and forgets) a file mapping for mapped_file_name_at; `name` must outlive it.
void register_mapping(const void* begin, std::size_t size, const char* name) noexcept;
void unregister_mapping(const void* begin) noexcept;

/// fetch() for whatever file's bytes `bytes` lies in (a span of MappedFile::bytes(), of a
/// slice of it or of a Buffer over it): parsers that hold only a span call it before
/// reading. Costs one atomic load when no remote file is open.
void fetch_bytes(std::span<const std::byte> bytes);

/// A contiguous run of bytes on a device. DISK buffers are read-only slices of a
/// MappedFile; CPU buffers own their (zero-initialised) memory.
class Buffer {
 public:
  /// A zeroed CPU buffer of `nbytes` bytes. Throws Error(Unsupported) past Limits::buffer_bytes
  /// rather than attempting the allocation.
  static std::shared_ptr<Buffer> cpu(std::size_t nbytes);
  /// A read-only DISK slice [offset, offset + nbytes) of `file`. Throws Error(BadFile)
  /// naming the file when the slice does not lie inside it.
  static std::shared_ptr<Buffer> disk(std::shared_ptr<const MappedFile> file, std::uint64_t offset,
                                      std::uint64_t nbytes);

  Device device() const { return device_; }
  std::size_t nbytes() const { return size_; }
  /// The bytes, readable on both devices (a DISK buffer over a remote file fetches them at
  /// the first call, and throws Error(Io) as MappedFile::fetch when that fails).
  std::span<const std::byte> bytes() const {
    if (!resident_.load(std::memory_order_acquire)) make_resident();
    return {data_, size_};
  }
  /// The bytes, without fetching a remote file's: for a reader that knows which part it will
  /// read and fetches only that first (fetch_bytes), as the executor does for a slice.
  std::span<const std::byte> bytes_unfetched() const { return {data_, size_}; }
  /// Writable bytes; CPU buffers only (asserts on DISK: a file is never modified).
  std::span<std::byte> mutable_bytes();
  /// The file behind a DISK buffer (nullptr on CPU).
  const std::shared_ptr<const MappedFile>& file() const { return file_; }
  /// How many CPU buffers this process has allocated so far (tests use it to show that
  /// building a graph allocates nothing and a fused kernel allocates only its output).
  static std::uint64_t cpu_allocations() { return cpu_allocations_; }

 private:
  static std::uint64_t cpu_allocations_;
  Buffer() = default;
  void make_resident() const;
  mutable std::atomic<bool> resident_{true};  ///< false until a remote DISK slice is fetched
  Device device_ = Device::CPU;
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
  std::unique_ptr<std::byte[]> owned_;
  std::shared_ptr<const MappedFile> file_;
};

}  // namespace tensor_inspect
