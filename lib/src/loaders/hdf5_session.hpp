// loaders/hdf5_session.hpp — the one door to libhdf5: a process-wide lock, its error stack
// turned into our one-line messages, and HDF5 files opened as file images over bytes we
// have mapped (libhdf5 never opens a path itself, so a .keras member is read in place).
//
// libhdf5 (Debian's serial build) is not thread-safe, so every call into it is made under
// hdf5_lock(); the executor may realize tensors on several threads.
//
//   auto h5 = Hdf5File::open(file, 0, file->size(), file->name());   // Error(BadFile) if not HDF5
//   auto lock = hdf5_lock();
//   hid_t d = H5Dopen2(h5->id(), "dense/kernel", H5P_DEFAULT);
//   if (d < 0) throw Error(ErrorCode::BadFile, h5->name() + ": " + hdf5_error_text());
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "tensor_inspect/buffer.hpp"

namespace tensor_inspect {

/// The lock every libhdf5 call is made under (recursive: a helper may call another). The
/// first call also turns libhdf5's own printing of errors off (H5Eset_auto2): its stack is
/// read by hdf5_error_text instead.
std::unique_lock<std::recursive_mutex> hdf5_lock();

/// libhdf5's error stack of this thread as one line, "libhdf5: <what the call says>: <the
/// deepest cause>", then cleared. Call under hdf5_lock(), right after the failing call.
std::string hdf5_error_text();

/// H5P_FILE_ACCESS, the property list class of file access: a global of libhdf5, read
/// after it is loaded and initialized (dynload/libhdf5.cpp).
hid_t hdf5_file_access_class();
/// H5P_DATASET_ACCESS, the class of a dataset access property list, read from the loaded
/// libhdf5 as hdf5_file_access_class reads its file access class. Throws as it does.
hid_t hdf5_dataset_access_class();

/// An hid_t closed with `close` at scope end (under the lock the caller holds).
class Hdf5Id {
 public:
  Hdf5Id(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  ~Hdf5Id() {
    if (id_ >= 0) close_(id_);
  }
  Hdf5Id(const Hdf5Id&) = delete;
  Hdf5Id& operator=(const Hdf5Id&) = delete;
  hid_t get() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

/// An HDF5 file open read-only over bytes [base, base + size) of a mapped file, which it
/// keeps alive; closed (under the lock) when the last tensor reading it is gone.
class Hdf5File {
 public:
  /// Opens the image (a remote file's is fetched whole first). Throws Error(BadFile)
  /// "<name>: not a readable HDF5 file (libhdf5: ...)" when libhdf5 refuses it,
  /// Error(Unsupported) when libhdf5 does not load, Error(Io) when a fetch fails.
  static std::shared_ptr<Hdf5File> open(std::shared_ptr<const MappedFile> file, std::uint64_t base, std::uint64_t size,
                                        std::string name);
  ~Hdf5File();
  Hdf5File(const Hdf5File&) = delete;
  Hdf5File& operator=(const Hdf5File&) = delete;

  hid_t id() const { return id_; }
  /// The name messages use: the path, or "<archive>:model.weights.h5".
  const std::string& name() const { return name_; }
  /// The mapped file holding the image, and where the image starts in it.
  const std::shared_ptr<const MappedFile>& file() const { return file_; }
  std::uint64_t base() const { return base_; }
  std::uint64_t size() const { return size_; }

 private:
  Hdf5File(std::shared_ptr<const MappedFile> file, std::uint64_t base, std::uint64_t size, std::string name, hid_t id)
      : file_(std::move(file)), base_(base), size_(size), name_(std::move(name)), id_(id) {}
  std::shared_ptr<const MappedFile> file_;
  std::uint64_t base_;
  std::uint64_t size_;
  std::string name_;
  hid_t id_;
};

}  // namespace tensor_inspect
