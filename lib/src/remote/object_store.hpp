// remote/object_store.hpp — `s3://BUCKET/KEY` and `gs://BUCKET/KEY` as an HTTPS URL plus
// the credentials of its requests, so that the HTTP source (http_source.hpp) reads an
// object as it reads any URL: ranges, retries, the block cache, shards beside an index.
//
// S3: the endpoint is AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's endpoint_url,
// else `https://s3.REGION.amazonaws.com`; the region AWS_REGION, AWS_DEFAULT_REGION, the
// profile's region, else us-east-1; the keys AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY
// (+ AWS_SESSION_TOKEN), else the profile's (AWS_PROFILE, else `default`:
// aws_credentials.hpp). Requests are signed with SigV4 by libcurl (`aws:amz:REGION:s3`).
// GCS: `https://storage.googleapis.com/BUCKET/KEY` (TI_GS_ENDPOINT replaces the host part),
// signed with HMAC keys GS_ACCESS_KEY_ID + GS_SECRET_ACCESS_KEY through the same signer
// (`aws:amz:auto:s3`, Cloud Storage's XML API interoperability), else sent with a bearer
// token (--token-file, GOOGLE_OAUTH_ACCESS_TOKEN), else unsigned. RemoteOptions::
// no_sign_request (`--no-sign-request`) sends every request unsigned, as the AWS CLI does.
//
//   ObjectRequest r = object_request("s3://bucket/llama/model.safetensors");
//   HttpSource src(r.url, "s3://bucket/llama/model.safetensors", r.auth, 20);
#pragma once

#include <string>
#include <string_view>

#include "remote/request_auth.hpp"

namespace tensor_inspect {

/// True for an input that starts with `s3://` or `gs://` (case-insensitive).
bool is_object_store_url(std::string_view input);

/// An object's place: the scheme ("s3" or "gs", lower-case), its bucket and key.
struct ObjectLocation {
  std::string scheme;
  std::string bucket;
  std::string key;  ///< as written (not percent-encoded); never empty
};

/// Splits `s3://BUCKET/KEY` or `gs://BUCKET/KEY`. A bucket is 1 to 255 of `a-z A-Z 0-9 . _ -`
/// (S3-compatible stores allow more than AWS's 3 to 63 lower-case); the key is the rest, at
/// most 1024 bytes (S3's and GCS's limit), with no NUL, CR or LF. Throws Error(Usage) naming
/// the input otherwise.
ObjectLocation parse_object_url(std::string_view input);

/// `key` percent-encoded for a URL path as SigV4 canonicalizes S3 paths: every byte but
/// `A-Z a-z 0-9 - . _ ~` and `/` becomes `%XX` (upper-case hex), once (AWS's "Create a
/// canonical request": S3 keys are not double-encoded).
std::string encode_object_key(std::string_view key);

/// True when `bucket` can be a DNS label of a virtual-hosted URL over HTTPS: 3 to 63 of
/// `a-z 0-9 -`, starting and ending with a letter or digit (a dot would break the
/// certificate's wildcard, so dotted buckets go path-style, as the AWS SDKs do).
bool is_virtual_host_bucket(std::string_view bucket);

/// The HTTPS (or the endpoint's http) URL of an S3 object. `endpoint` empty: AWS's regional
/// endpoint, virtual-hosted (`https://BUCKET.s3.REGION.amazonaws.com/KEY`) unless the bucket
/// cannot be a host name or `addressing_style` is "path". A given endpoint
/// (`scheme://host[:port][/prefix]`) is addressed path-style (`ENDPOINT/BUCKET/KEY`), as
/// S3-compatible stores expect, unless `addressing_style` is "virtual" and the host is not
/// an IP address or localhost. Throws Error(Usage) for an endpoint that is not http(s)://.
std::string s3_object_url(const ObjectLocation& where, const std::string& endpoint, const std::string& region,
                          const std::string& addressing_style);

/// " (CODE)" for an error answer's body that is an S3 or Cloud Storage XML error
/// (`<Error><Code>NoSuchKey</Code>...`: SignatureDoesNotMatch, InvalidAccessKeyId,
/// AccessDenied ...), so a refusal says why; empty for any other body. CODE is 1 to 64 of
/// `A-Z a-z 0-9 .` (server text, so nothing else is shown).
std::string store_error_suffix(std::string_view body);

/// What to request for an object and how to sign it.
struct ObjectRequest {
  std::string url;   ///< the http(s) URL
  RequestAuth auth;  ///< its credentials (see the file comment)
};

/// The request for `input` (an s3:// or gs:// URL), from the environment, the AWS shared
/// files and remote_options(). Throws Error(Usage) naming the input (never a secret) for a
/// malformed URL, region or endpoint, an AWS_PROFILE no file has, or an s3:// input with no
/// keys and no --no-sign-request; errors of aws_credentials.hpp for unreadable files.
/// `sign` false: the URL only (RequestAuth empty), no keys looked for (resolve_url).
ObjectRequest object_request(std::string_view input, bool sign = true);

}  // namespace tensor_inspect
