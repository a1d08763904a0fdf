// remote/request_auth.hpp — how a remote request proves who asks: nothing, a bearer token
// (--token-file, HF_TOKEN, GOOGLE_OAUTH_ACCESS_TOKEN), or an AWS Signature Version 4 made
// by libcurl's own signer (CURLOPT_AWS_SIGV4) from an access key and its secret (s3://,
// gs:// with HMAC keys). Secrets live only here and in libcurl's handle: nothing that
// shows a request (messages, -v logs) reads this struct.
//
//   RequestAuth a;
//   a.sigv4 = "aws:amz:eu-west-1:s3";             // provider1:provider2:region:service
//   a.access_key = "AKIA...", a.secret_key = "...";
//   a.payload_hash_header = true;                  // S3 wants x-amz-content-sha256
//   curl_slist* h = append_auth_headers(curl, nullptr, a);
//   set_auth_options(curl, easy, a);
#pragma once

#include <string>

#include "remote/curl_api.hpp"

namespace tensor_inspect {

/// The credentials of one remote file's requests. Empty strings mean "none".
struct RequestAuth {
  std::string bearer;  ///< sent as `Authorization: Bearer ...`
  /// CURLOPT_AWS_SIGV4's parameter, `aws:amz:REGION:SERVICE`; empty: not signed.
  std::string sigv4;
  std::string access_key;     ///< AWS_ACCESS_KEY_ID (shown in the signature's Credential=, as AWS does)
  std::string secret_key;     ///< AWS_SECRET_ACCESS_KEY: only the signer reads it
  std::string session_token;  ///< AWS_SESSION_TOKEN, sent (and signed) as x-amz-security-token
  /// Send `x-amz-content-sha256` with the SHA-256 of the empty body: S3 refuses a signed
  /// request without it ("Missing required header for this request: x-amz-content-sha256").
  bool payload_hash_header = false;
  /// A fixed `X-Amz-Date` (YYYYMMDDTHHMMSSZ) for tests against AWS's published signatures;
  /// empty: libcurl signs with the current time.
  std::string amz_date;
};

/// SHA-256 of zero bytes, in hex: the payload hash of a GET.
inline constexpr const char* kEmptyPayloadSha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/// Appends the headers `auth` needs (bearer, session token, payload hash, date) to `list`;
/// returns the new list head (curl_slist_append's convention).
curl_slist* append_auth_headers(const CurlApi& curl, curl_slist* list, const RequestAuth& auth);

/// Sets the signer's options on `easy` when auth.sigv4 is set: CURLOPT_AWS_SIGV4,
/// CURLOPT_USERNAME (the access key) and CURLOPT_PASSWORD (the secret). libcurl (7.75+)
/// then signs every request of the handle with host, x-amz-date and every header of
/// CURLOPT_HTTPHEADER (7.88's lib/http_aws_sigv4.c, make_headers).
void set_auth_options(const CurlApi& curl, CURL* easy, const RequestAuth& auth);

}  // namespace tensor_inspect
