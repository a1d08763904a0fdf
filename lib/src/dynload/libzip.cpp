// dynload/libzip.cpp — libzip, loaded only when a zip-based file (.npz, .pt) is opened.
//
// Linking libzip brings libcrypto, libbz2 and libz with it, and the dynamic loader pays
// for their ~3,400 relocations at every start, even for a literal or a .npy (about half of
// start-up; see bench/README.md). So the library is not linked: these definitions of the
// libzip functions the loaders call open TI_LIBZIP_SONAME with dlopen at the first call and
// forward to it. The loaders keep calling the plain libzip API. A libzip function newly
// used in lib/src/ (loaders/, validate/) needs one line here: until then the link fails
// with "undefined reference".
#include <dlfcn.h>
#include <zip.h>

#include <string>

#include "loaders/zip_archive.hpp"
#include "tensor_inspect/error.hpp"

#ifndef TI_LIBZIP_SONAME
#define TI_LIBZIP_SONAME "libzip.so.4"
#endif

namespace tensor_inspect {
namespace {

void* libzip_symbol(const char* name) {
  static void* const handle = dlopen(TI_LIBZIP_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    throw Error(ErrorCode::Unsupported, std::string("zip-based files (.npz, .pt) need libzip, which did not load: ") +
                                            (why ? why : TI_LIBZIP_SONAME));
  }
  void* fn = dlsym(handle, name);
  if (!fn) throw Error(ErrorCode::Unsupported, std::string(TI_LIBZIP_SONAME " has no function ") + name);
  return fn;
}

template <typename F>
F resolve(const char* name) {
  return reinterpret_cast<F>(libzip_symbol(name));
}

}  // namespace

std::string zip_library_name() { return TI_LIBZIP_SONAME; }

}  // namespace tensor_inspect

// The function named by this definition, looked up once.
#define TI_LIBZIP(name, ...)                                                            \
  static const auto fn = tensor_inspect::resolve<decltype(&::name)>(#name);             \
  return fn(__VA_ARGS__)

extern "C" {
void zip_error_init(zip_error_t* e) { TI_LIBZIP(zip_error_init, e); }
void zip_error_init_with_code(zip_error_t* e, int code) { TI_LIBZIP(zip_error_init_with_code, e, code); }
const char* zip_error_strerror(zip_error_t* e) { TI_LIBZIP(zip_error_strerror, e); }
void zip_error_fini(zip_error_t* e) { TI_LIBZIP(zip_error_fini, e); }
zip_source_t* zip_source_buffer_create(const void* data, zip_uint64_t len, int freep, zip_error_t* e) {
  TI_LIBZIP(zip_source_buffer_create, data, len, freep, e);
}
void zip_source_free(zip_source_t* s) { TI_LIBZIP(zip_source_free, s); }
zip_source_t* zip_source_function_create(zip_source_callback cb, void* user, zip_error_t* e) {
  TI_LIBZIP(zip_source_function_create, cb, user, e);
}
zip_t* zip_open_from_source(zip_source_t* s, int flags, zip_error_t* e) {
  TI_LIBZIP(zip_open_from_source, s, flags, e);
}
void zip_discard(zip_t* z) { TI_LIBZIP(zip_discard, z); }
const char* zip_strerror(zip_t* z) { TI_LIBZIP(zip_strerror, z); }
zip_int64_t zip_get_num_entries(zip_t* z, zip_flags_t flags) { TI_LIBZIP(zip_get_num_entries, z, flags); }
void zip_stat_init(zip_stat_t* st) { TI_LIBZIP(zip_stat_init, st); }
int zip_stat_index(zip_t* z, zip_uint64_t i, zip_flags_t flags, zip_stat_t* st) {
  TI_LIBZIP(zip_stat_index, z, i, flags, st);
}
zip_file_t* zip_fopen_index(zip_t* z, zip_uint64_t i, zip_flags_t flags) { TI_LIBZIP(zip_fopen_index, z, i, flags); }
zip_int64_t zip_fread(zip_file_t* f, void* buf, zip_uint64_t n) { TI_LIBZIP(zip_fread, f, buf, n); }
const char* zip_file_strerror(zip_file_t* f) { TI_LIBZIP(zip_file_strerror, f); }
int zip_fclose(zip_file_t* f) { TI_LIBZIP(zip_fclose, f); }
int zip_compression_method_supported(zip_int32_t method, int compress) {
  TI_LIBZIP(zip_compression_method_supported, method, compress);
}
}
