// dynload/libhdf5.cpp — Debian's libhdf5 (and its high-level library), loaded only when an
// HDF5 or Keras file is opened.
//
// libhdf5 links libcurl, libcrypto, libsz and some thirty more libraries: linked into the
// executable, their relocations would cost every run's start-up (see dynload/libzip.cpp).
// So these definitions of the HDF5 functions the loader calls open TI_LIBHDF5_SONAME with
// dlopen at the first call and forward to it. A function newly used in loaders/hdf5*.cpp
// needs one line here: until then the link fails with "undefined reference". Of libhdf5's
// globals only H5P_FILE_ACCESS's and H5P_DATASET_ACCESS's classes are read (hdf5_file_access_class,
// hdf5_dataset_access_class); the H5T_NATIVE_*
// types are not needed, as data is read in the type the file stores (no conversion).
#include <dlfcn.h>
#include <hdf5.h>

#include <string>

#include "loaders/hdf5_session.hpp"
#include "tensor_inspect/error.hpp"

#ifndef TI_LIBHDF5_SONAME
#define TI_LIBHDF5_SONAME "libhdf5_serial.so.103"
#endif

namespace tensor_inspect {
namespace {

void* libhdf5_symbol(const char* name) {
  static void* const handle = dlopen(TI_LIBHDF5_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    throw Error(ErrorCode::Unsupported,
                std::string("HDF5 and Keras files need libhdf5 (Debian: libhdf5-103-1), which did "
                            "not load: ") +
                    (why ? why : TI_LIBHDF5_SONAME));
  }
  void* fn = dlsym(handle, name);
  if (!fn) throw Error(ErrorCode::Unsupported, std::string(TI_LIBHDF5_SONAME " has no symbol ") + name);
  return fn;
}

template <typename F>
F resolve_hdf5(const char* name) {
  return reinterpret_cast<F>(libhdf5_symbol(name));
}

}  // namespace

hid_t hdf5_file_access_class() {
  if (H5open() < 0) throw Error(ErrorCode::Unsupported, TI_LIBHDF5_SONAME ": H5open failed");
  return *static_cast<const hid_t*>(libhdf5_symbol("H5P_CLS_FILE_ACCESS_ID_g"));
}

hid_t hdf5_dataset_access_class() {
  if (H5open() < 0) throw Error(ErrorCode::Unsupported, TI_LIBHDF5_SONAME ": H5open failed");
  return *static_cast<const hid_t*>(libhdf5_symbol("H5P_CLS_DATASET_ACCESS_ID_g"));
}

}  // namespace tensor_inspect

// The function named by this definition, looked up once.
#define TI_LIBHDF5(name, ...)                                                    \
  static const auto fn = tensor_inspect::resolve_hdf5<decltype(&::name)>(#name); \
  return fn(__VA_ARGS__)

extern "C" {
// H5F_ACC_RDONLY expands to (H5check(), H5open(), 0): both are called.
herr_t H5open(void) { TI_LIBHDF5(H5open); }
herr_t H5check_version(unsigned major, unsigned minor, unsigned release) {
  TI_LIBHDF5(H5check_version, major, minor, release);
}
herr_t H5Eset_auto2(hid_t s, H5E_auto2_t f, void* d) { TI_LIBHDF5(H5Eset_auto2, s, f, d); }
herr_t H5Ewalk2(hid_t s, H5E_direction_t dir, H5E_walk2_t f, void* d) { TI_LIBHDF5(H5Ewalk2, s, dir, f, d); }
herr_t H5Eclear2(hid_t s) { TI_LIBHDF5(H5Eclear2, s); }
hid_t H5Pcreate(hid_t cls) { TI_LIBHDF5(H5Pcreate, cls); }
herr_t H5Pset_fapl_core(hid_t p, size_t increment, hbool_t backing_store) {
  TI_LIBHDF5(H5Pset_fapl_core, p, increment, backing_store);
}
herr_t H5Pset_file_image_callbacks(hid_t p, H5FD_file_image_callbacks_t* c) {
  TI_LIBHDF5(H5Pset_file_image_callbacks, p, c);
}
herr_t H5Pset_file_image(hid_t p, void* buf, size_t size) { TI_LIBHDF5(H5Pset_file_image, p, buf, size); }
hid_t H5Fopen(const char* name, unsigned flags, hid_t fapl) { TI_LIBHDF5(H5Fopen, name, flags, fapl); }
herr_t H5Fclose(hid_t f) { TI_LIBHDF5(H5Fclose, f); }
herr_t H5Ovisit2(hid_t o, H5_index_t i, H5_iter_order_t order, H5O_iterate_t op, void* d, unsigned fields) {
  TI_LIBHDF5(H5Ovisit2, o, i, order, op, d, fields);
}
hid_t H5Dopen2(hid_t loc, const char* name, hid_t dapl) { TI_LIBHDF5(H5Dopen2, loc, name, dapl); }
herr_t H5Dclose(hid_t d) { TI_LIBHDF5(H5Dclose, d); }
hid_t H5Dget_type(hid_t d) { TI_LIBHDF5(H5Dget_type, d); }
hid_t H5Dget_space(hid_t d) { TI_LIBHDF5(H5Dget_space, d); }
hid_t H5Dget_create_plist(hid_t d) { TI_LIBHDF5(H5Dget_create_plist, d); }
haddr_t H5Dget_offset(hid_t d) { TI_LIBHDF5(H5Dget_offset, d); }
hsize_t H5Dget_storage_size(hid_t d) { TI_LIBHDF5(H5Dget_storage_size, d); }
herr_t H5Dget_num_chunks(hid_t d, hid_t fs, hsize_t* n) { TI_LIBHDF5(H5Dget_num_chunks, d, fs, n); }
herr_t H5Dget_chunk_info(hid_t d, hid_t fs, hsize_t i, hsize_t* offset, unsigned* mask, haddr_t* addr, hsize_t* size) {
  TI_LIBHDF5(H5Dget_chunk_info, d, fs, i, offset, mask, addr, size);
}
herr_t H5Dread(hid_t d, hid_t mt, hid_t ms, hid_t fs, hid_t x, void* buf) {
  TI_LIBHDF5(H5Dread, d, mt, ms, fs, x, buf);
}
H5T_class_t H5Tget_class(hid_t t) { TI_LIBHDF5(H5Tget_class, t); }
size_t H5Tget_size(hid_t t) { TI_LIBHDF5(H5Tget_size, t); }
H5T_order_t H5Tget_order(hid_t t) { TI_LIBHDF5(H5Tget_order, t); }
H5T_sign_t H5Tget_sign(hid_t t) { TI_LIBHDF5(H5Tget_sign, t); }
herr_t H5Tget_fields(hid_t t, size_t* spos, size_t* epos, size_t* esize, size_t* mpos, size_t* msize) {
  TI_LIBHDF5(H5Tget_fields, t, spos, epos, esize, mpos, msize);
}
size_t H5Tget_ebias(hid_t t) { TI_LIBHDF5(H5Tget_ebias, t); }
size_t H5Tget_precision(hid_t t) { TI_LIBHDF5(H5Tget_precision, t); }
int H5Tget_offset(hid_t t) { TI_LIBHDF5(H5Tget_offset, t); }
hid_t H5Tget_super(hid_t t) { TI_LIBHDF5(H5Tget_super, t); }
int H5Tget_nmembers(hid_t t) { TI_LIBHDF5(H5Tget_nmembers, t); }
char* H5Tget_member_name(hid_t t, unsigned i) { TI_LIBHDF5(H5Tget_member_name, t, i); }
herr_t H5Tget_member_value(hid_t t, unsigned i, void* v) { TI_LIBHDF5(H5Tget_member_value, t, i, v); }
herr_t H5Tclose(hid_t t) { TI_LIBHDF5(H5Tclose, t); }
herr_t H5free_memory(void* p) { TI_LIBHDF5(H5free_memory, p); }
H5S_class_t H5Sget_simple_extent_type(hid_t s) { TI_LIBHDF5(H5Sget_simple_extent_type, s); }
int H5Sget_simple_extent_ndims(hid_t s) { TI_LIBHDF5(H5Sget_simple_extent_ndims, s); }
int H5Sget_simple_extent_dims(hid_t s, hsize_t* dims, hsize_t* maxdims) {
  TI_LIBHDF5(H5Sget_simple_extent_dims, s, dims, maxdims);
}
herr_t H5Sselect_hyperslab(hid_t s, H5S_seloper_t op, const hsize_t* start, const hsize_t* stride, const hsize_t* count,
                           const hsize_t* block) {
  TI_LIBHDF5(H5Sselect_hyperslab, s, op, start, stride, count, block);
}
hid_t H5Screate_simple(int rank, const hsize_t* dims, const hsize_t* maxdims) {
  TI_LIBHDF5(H5Screate_simple, rank, dims, maxdims);
}
herr_t H5Sclose(hid_t s) { TI_LIBHDF5(H5Sclose, s); }
H5D_layout_t H5Pget_layout(hid_t p) { TI_LIBHDF5(H5Pget_layout, p); }
int H5Pget_chunk(hid_t p, int max_ndims, hsize_t* dims) { TI_LIBHDF5(H5Pget_chunk, p, max_ndims, dims); }
int H5Pget_nfilters(hid_t p) { TI_LIBHDF5(H5Pget_nfilters, p); }
H5Z_filter_t H5Pget_filter2(hid_t p, unsigned i, unsigned* flags, size_t* nelmts, unsigned* values, size_t namelen,
                            char* name, unsigned* config) {
  TI_LIBHDF5(H5Pget_filter2, p, i, flags, nelmts, values, namelen, name, config);
}
int H5Pget_external_count(hid_t p) { TI_LIBHDF5(H5Pget_external_count, p); }
herr_t H5Pclose(hid_t p) { TI_LIBHDF5(H5Pclose, p); }
herr_t H5Pset_chunk_cache(hid_t p, size_t slots, size_t bytes, double w0) {
  TI_LIBHDF5(H5Pset_chunk_cache, p, slots, bytes, w0);
}
htri_t H5Zfilter_avail(H5Z_filter_t id) { TI_LIBHDF5(H5Zfilter_avail, id); }
}
