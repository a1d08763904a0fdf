// remote/request_auth.cpp — a request's credentials as libcurl headers and options (see
// request_auth.hpp).
#include "remote/request_auth.hpp"

namespace tensor_inspect {

curl_slist* append_auth_headers(const CurlApi& curl, curl_slist* list, const RequestAuth& auth) {
  auto add = [&](const std::string& line) {
    if (curl_slist* next = curl.slist_append(list, line.c_str())) list = next;
  };
  if (!auth.sigv4.empty()) {
    // Signed headers: libcurl puts each of CURLOPT_HTTPHEADER's headers into the canonical
    // request, so these three are covered by the signature, as AWS requires of x-amz-*.
    if (!auth.session_token.empty()) add("x-amz-security-token: " + auth.session_token);
    if (auth.payload_hash_header) add(std::string("x-amz-content-sha256: ") + kEmptyPayloadSha256);
    if (!auth.amz_date.empty()) add("X-Amz-Date: " + auth.amz_date);
  } else if (!auth.bearer.empty()) {
    add("Authorization: Bearer " + auth.bearer);
  }
  return list;
}

void set_auth_options(const CurlApi& curl, CURL* easy, const RequestAuth& auth) {
  if (auth.sigv4.empty()) return;
  curl.easy_setopt(easy, CURLOPT_AWS_SIGV4, auth.sigv4.c_str());
  // Separate options, not CURLOPT_USERPWD's "key:secret": a colon in either stays data.
  curl.easy_setopt(easy, CURLOPT_USERNAME, auth.access_key.c_str());
  curl.easy_setopt(easy, CURLOPT_PASSWORD, auth.secret_key.c_str());
}

}  // namespace tensor_inspect
