// tensor_inspect/safe_write.hpp — the one way the tool writes a file (--plot's pictures now;
// exports and manifests as they come), so that it never replaces what it was not asked to:
//
//   - a regular file, or a path that does not exist, is written whole into a temporary file
//     beside it (PATH.tmp-PID-N, same folder, so the rename stays on one file system) and
//     renamed over it at commit(): a reader sees the old file or the new one, never half;
//   - a symlink (a chain of them) to a regular file or to nothing: its final target is
//     written that way in the target's folder, and the link stays a link;
//   - a FIFO, a character device (/dev/null, a terminal, /dev/stdout as a pipe) or `-`
//     (standard output) gets the bytes written through, opened without O_CREAT or O_TRUNC;
//     binary bytes for a terminal are refused;
//   - a folder, a socket, a block device, or a file the run reads (protect(), and every file
//     read through MappedFile::open or note_input_path: shards, external data) is an error,
//     checked when staged and again at commit().
//
// Nothing appears until commit(): a run that fails half-way leaves every earlier file as it
// was, and its temporary files are removed (by the destructor, and by the caller's signal
// handler through TempFileHooks).
//
//   ti::OutputFiles out;
//   out.protect("model.safetensors");                  // inputs are never written
//   out.write("w.png", png_bytes, "PNG", true);         // staged: w.png.tmp-PID-0 holds the bytes
//   out.commit();                                      // renamed over w.png (or written through)
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct stat;

namespace tensor_inspect {

/// What a path is to a writer, as resolve_output() found it.
struct OutputTarget {
  enum class Kind { File, Stream };
  std::string path;        ///< as given
  /// File: the regular file replaced or created (a symlink's final target); Stream: what is opened.
  std::string file;
  Kind kind = Kind::File;
  bool is_stdout = false;  ///< a Stream to this process's standard output (`-`, or the same file as descriptor 1)
  bool terminal = false;   ///< a Stream to a terminal
};

/// Resolves `path` as above. Throws Error(Usage) naming the path for a folder, a socket or a
/// block device, Error(Io) with the OS's reason when a symlink cannot be followed.
OutputTarget resolve_output(const std::string& path);

/// Called with each temporary file when it is created (`created` returns a ticket) and with
/// that ticket once the file is renamed or removed (`done`): the CLI removes them on SIGINT.
struct TempFileHooks {
  std::function<const void*(const std::string& temporary)> created;
  std::function<void(const void* ticket)> done;
};

/// Files a run writes, each staged by write() and made visible together by commit().
class OutputFiles {
 public:
  explicit OutputFiles(TempFileHooks hooks = {});
  OutputFiles(const OutputFiles&) = delete;
  OutputFiles& operator=(const OutputFiles&) = delete;
  /// Removes the temporary files of a run that did not commit.
  ~OutputFiles();

  /// Never writes the file `input` names (compared by device and inode, also through links).
  void protect(const std::string& input);

  /// Resolves `path` and checks it can be written: a protected input, or `binary` bytes for
  /// a terminal, is Error(Usage). Callers may check their paths before any work.
  OutputTarget check(const std::string& path, bool binary) const;

  /// Stages `bytes` for `path` (check()ed): a File's temporary file is created and written now,
  /// a Stream's bytes are kept for commit(). `type` names the bytes in errors ("PNG": "w.png:
  /// cannot write the PNG file: No space left on device"); they are Error(Io) naming `path`.
  void write(const std::string& path, std::string_view bytes, const std::string& type, bool binary);

  /// Stages a file too large to hold in memory (an export): `fill` writes it by path, streamed.
  /// A File target: `fill` runs now on the temporary file (already created, empty), renamed
  /// at commit(). A Stream target: `fill` runs at commit() on the stream's path ("/dev/stdout"
  /// for `-`). What `fill` throws passes through; the temporary file is removed.
  void write_with(const std::string& path, const std::string& type, bool binary,
                  std::function<void(const std::string& path)> fill);

  /// Renames every staged file over its target and writes every stream, in the order staged.
  /// A target that became a folder meanwhile fails before any is renamed; Error(Io) names it.
  void commit();

 private:
  struct Staged {
    OutputTarget target;
    std::string type;
    std::string tmp;           ///< File: the temporary file
    std::string bytes;         ///< Stream: what is written at commit()
    std::function<void(const std::string&)> fill;  ///< Stream of write_with(): writes at commit()
    const void* ticket = nullptr;
  };
  void discard(Staged& s);
  /// Creates `s`'s temporary file (O_EXCL, the replaced file's mode), stages it and returns
  /// its open descriptor; Error(Io) naming the path when it cannot.
  int stage_file(Staged s);
  TempFileHooks hooks_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> protected_;  ///< (st_dev, st_ino) of the inputs
  /// A protected file, or one the run read (was_read_as_input: shards, external data).
  bool is_input(const struct stat& st) const;
  [[noreturn]] static void refuse_input(const std::string& path);
  std::vector<Staged> staged_;
};

}  // namespace tensor_inspect
