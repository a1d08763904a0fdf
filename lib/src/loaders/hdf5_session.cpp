// loaders/hdf5_session.cpp — the lock, the error stack and the file image (hdf5_session.hpp).
//
// The image is opened as H5LTopen_file_image (HDF5's high-level library, H5LT.c) opens one
// with H5LT_FILE_IMAGE_DONT_COPY | DONT_RELEASE, written out here so that the reason of a
// failed H5Fopen is read before another call clears libhdf5's error stack: the core driver
// (H5Pset_fapl_core, no backing store) over the image (H5Pset_file_image), with callbacks
// that hand libhdf5 our mapping wherever it would allocate and copy one, so it reads the
// mapping in place (a 10 GB file costs no copy, and only the pages it reads are touched)
// and frees nothing. The file is opened read-only: the core driver never writes it.
#include "loaders/hdf5_session.hpp"

#include <atomic>
#include <new>
#include <string>

#include "loaders/child_probe.hpp"
#include "loaders/hdf5_walk.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

namespace {

std::recursive_mutex& hdf5_mutex() {
  static std::recursive_mutex m;
  return m;
}

struct ErrorWalk {
  std::string api;      ///< the description of the API call that failed (first on the stack)
  std::string deepest;  ///< the most specific one (last)
};

herr_t collect_hdf5_error(unsigned n, const H5E_error2_t* err, void* data) {
  auto* walk = static_cast<ErrorWalk*>(data);
  const std::string desc = err && err->desc ? err->desc : "";
  if (n == 0) walk->api = desc;
  walk->deepest = desc;
  return 0;
}

// The file image callbacks (H5FD_file_image_callbacks_t): udata is the image itself.
void* image_in_place(size_t, H5FD_file_image_op_t, void* image) { return image; }
void* image_copy_in_place(void* dest, const void* src, size_t, H5FD_file_image_op_t, void*) {
  return dest == src ? dest : nullptr;  // only ever asked to copy the image onto itself
}
void* image_no_realloc(void*, size_t, H5FD_file_image_op_t, void*) { return nullptr; }  // read-only: never grows
herr_t image_no_free(void*, H5FD_file_image_op_t, void*) { return 0; }
void* image_udata_copy(void* image) { return image; }
herr_t image_udata_free(void*) { return 0; }

/// A name no file can have (/dev/null is no folder): the core driver refuses to open an
/// image whose name is an existing file, and takes two opens of one name for one file.
std::string image_name() {
  static std::atomic<std::uint64_t> next{0};
  return "/dev/null/tensor-inspect-hdf5-image-" + std::to_string(next++);
}

}  // namespace

std::unique_lock<std::recursive_mutex> hdf5_lock() {
  std::unique_lock<std::recursive_mutex> lock(hdf5_mutex());
  static const bool quiet = (H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr), true);
  (void)quiet;
  return lock;
}

std::string hdf5_error_text() {
  ErrorWalk walk;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect_hdf5_error, &walk);
  H5Eclear2(H5E_DEFAULT);
  if (walk.api.empty() && walk.deepest.empty()) return "libhdf5 gives no reason";
  if (walk.api.empty() || walk.api == walk.deepest) return "libhdf5: " + walk.deepest;
  return "libhdf5: " + walk.api + ": " + walk.deepest;
}

std::shared_ptr<Hdf5File> Hdf5File::open(std::shared_ptr<const MappedFile> file, std::uint64_t base, std::uint64_t size,
                                         std::string name) {
  if (base > file->size() || size > file->size() - base)
    throw Error(ErrorCode::BadFile, name + ": the HDF5 image (" + std::to_string(size) + " bytes at byte " +
                                        std::to_string(base) + ") is not inside the file");
  if (size == 0) throw Error(ErrorCode::BadFile, name + ": not a readable HDF5 file (it is empty)");
  // NOTE: libhdf5 reads the image wherever its structures point, and a remote file's bytes
  // arrive only on fetch(): a remote image is fetched whole first, even for a listing.
  file->fetch(base, size);
  auto lock = hdf5_lock();
  // libhdf5 takes a void*, but a file opened read-only is never written.
  void* image = const_cast<std::byte*>(file->bytes().data() + base);
  H5FD_file_image_callbacks_t callbacks = {
      image_in_place, image_copy_in_place, image_no_realloc, image_no_free, image_udata_copy, image_udata_free, image};
  Hdf5Id fapl(H5Pcreate(hdf5_file_access_class()), H5Pclose);
  if (!fapl.ok() || H5Pset_fapl_core(fapl.get(), 1 << 20, 0) < 0 ||
      H5Pset_file_image_callbacks(fapl.get(), &callbacks) < 0 ||
      H5Pset_file_image(fapl.get(), image, static_cast<size_t>(size)) < 0)
    throw Error(ErrorCode::Internal, name + ": the HDF5 file image cannot be set up (" + hdf5_error_text() + ")");
  // Debian's libhdf5 (1.10) reads a malformed file's structures out of bounds or crashes on
  // them (fuzz_hdf5 found a heap overflow in H5T_copy under H5Dopen2, and 4 GiB mallocs of a
  // declared length): the open, the walk of every dataset the listing makes and the chunk
  // indexes are run once in a child first, and a child that dies makes the file unreadable
  // here instead of killing the run. The parent repeats the same calls on the same bytes.
  if (const auto why = run_in_child("libhdf5", [&] {
        // The child's one thread is not the lock's owner (the parent's thread is): the
        // lock is made anew, unlocked, as a pthread_atfork child handler would.
        new (&hdf5_mutex()) std::recursive_mutex;
        const hid_t probe_id = H5Fopen(image_name().c_str(), H5F_ACC_RDONLY, fapl.get());
        if (probe_id < 0) return;  // the parent's H5Fopen gives the reason
        const Hdf5File probe(file, base, size, name, probe_id);
        probe_hdf5_structures(probe);
      }))
    throw Error(ErrorCode::BadFile, name + ": not a readable HDF5 file (" + *why + ")");
  const hid_t id = H5Fopen(image_name().c_str(), H5F_ACC_RDONLY, fapl.get());
  if (id < 0) throw Error(ErrorCode::BadFile, name + ": not a readable HDF5 file (" + hdf5_error_text() + ")");
  return std::shared_ptr<Hdf5File>(new Hdf5File(std::move(file), base, size, std::move(name), id));
}

Hdf5File::~Hdf5File() {
  auto lock = hdf5_lock();
  H5Fclose(id_);
  H5Eclear2(H5E_DEFAULT);
}

}  // namespace tensor_inspect
