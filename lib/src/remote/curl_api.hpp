// remote/curl_api.hpp — the libcurl functions the remote byte source calls, loaded with
// dlopen at the first remote input (as dynload/libzip.cpp loads libzip): linking libcurl
// would bring OpenSSL, nghttp2, libssh2 and more into every start-up of the tool, even for
// a literal.
//
//   const CurlApi& curl = curl_api();        // throws Error(Unsupported) if libcurl is missing
//   CURL* h = curl.easy_init();
//   curl.easy_setopt(h, CURLOPT_URL, "http://127.0.0.1/x.npy");
#pragma once

#include <curl/curl.h>

namespace tensor_inspect {

/// Pointers to libcurl's functions, resolved once from TI_LIBCURL_SONAME.
struct CurlApi {
  decltype(&::curl_global_init) global_init;
  decltype(&::curl_easy_init) easy_init;
  decltype(&::curl_easy_setopt) easy_setopt;
  decltype(&::curl_easy_getinfo) easy_getinfo;
  decltype(&::curl_easy_cleanup) easy_cleanup;
  decltype(&::curl_easy_strerror) easy_strerror;
  decltype(&::curl_easy_perform) easy_perform;  ///< one blocking transfer (tests)
  decltype(&::curl_multi_init) multi_init;
  decltype(&::curl_multi_add_handle) multi_add_handle;
  decltype(&::curl_multi_remove_handle) multi_remove_handle;
  decltype(&::curl_multi_perform) multi_perform;
  decltype(&::curl_multi_poll) multi_poll;
  decltype(&::curl_multi_info_read) multi_info_read;
  decltype(&::curl_multi_cleanup) multi_cleanup;
  decltype(&::curl_slist_append) slist_append;
  decltype(&::curl_slist_free_all) slist_free_all;
};

/// libcurl, loaded and initialised at the first call. Throws Error(Unsupported) naming the
/// library when it cannot be loaded (http:// and https:// inputs need libcurl4).
const CurlApi& curl_api();

}  // namespace tensor_inspect
