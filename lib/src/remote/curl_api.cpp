// remote/curl_api.cpp — libcurl loaded on first use (see curl_api.hpp for why).
#include "remote/curl_api.hpp"

#include <dlfcn.h>

#include <string>

#include "tensor_inspect/error.hpp"

#ifndef TI_LIBCURL_SONAME
#define TI_LIBCURL_SONAME "libcurl.so.4"
#endif

namespace tensor_inspect {
namespace {

template <typename F>
void bind(void* handle, F& fn, const char* name) {
  void* p = dlsym(handle, name);
  if (!p) throw Error(ErrorCode::Unsupported, std::string(TI_LIBCURL_SONAME " has no function ") + name);
  fn = reinterpret_cast<F>(p);
}

CurlApi load() {
  void* handle = dlopen(TI_LIBCURL_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    throw Error(ErrorCode::Unsupported, std::string("http:// and https:// inputs need libcurl, which did not load: ") +
                                            (why ? why : TI_LIBCURL_SONAME));
  }
  CurlApi api{};
  bind(handle, api.global_init, "curl_global_init");
  bind(handle, api.easy_init, "curl_easy_init");
  bind(handle, api.easy_setopt, "curl_easy_setopt");
  bind(handle, api.easy_getinfo, "curl_easy_getinfo");
  bind(handle, api.easy_cleanup, "curl_easy_cleanup");
  bind(handle, api.easy_strerror, "curl_easy_strerror");
  bind(handle, api.easy_perform, "curl_easy_perform");
  bind(handle, api.multi_init, "curl_multi_init");
  bind(handle, api.multi_add_handle, "curl_multi_add_handle");
  bind(handle, api.multi_remove_handle, "curl_multi_remove_handle");
  bind(handle, api.multi_perform, "curl_multi_perform");
  bind(handle, api.multi_poll, "curl_multi_poll");
  bind(handle, api.multi_info_read, "curl_multi_info_read");
  bind(handle, api.multi_cleanup, "curl_multi_cleanup");
  bind(handle, api.slist_append, "curl_slist_append");
  bind(handle, api.slist_free_all, "curl_slist_free_all");
  if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
    throw Error(ErrorCode::Unsupported, TI_LIBCURL_SONAME ": curl_global_init failed");
  return api;
}

}  // namespace

const CurlApi& curl_api() {
  static const CurlApi api = load();
  return api;
}

}  // namespace tensor_inspect
