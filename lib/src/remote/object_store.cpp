// remote/object_store.cpp — s3:// and gs:// URLs as HTTPS requests (see object_store.hpp).
#include "remote/object_store.hpp"

#include <cstdlib>
#include <optional>

#include "log/log.hpp"
#include "remote/aws_credentials.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/remote.hpp"

namespace tensor_inspect {
namespace {

constexpr std::size_t kMaxBucket = 255;
constexpr std::size_t kMaxKey = 1024;  // S3's and Cloud Storage's longest object name, in bytes

bool store_lower_prefix(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    const char c = s[i] >= 'A' && s[i] <= 'Z' ? static_cast<char>(s[i] - 'A' + 'a') : s[i];
    if (c != prefix[i]) return false;
  }
  return true;
}

std::optional<std::string> store_env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? std::optional<std::string>(v) : std::nullopt;
}

bool store_unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

/// An endpoint split: "http://h:9000/p/" gives scheme "http", authority "h:9000", host
/// "h", path "/p" (no trailing slash).
struct Endpoint {
  std::string scheme, authority, host, path;
};

Endpoint parse_endpoint(const std::string& endpoint, std::string_view input, const char* source) {
  Endpoint e;
  const bool https = store_lower_prefix(endpoint, "https://");
  if (!https && !store_lower_prefix(endpoint, "http://"))
    throw Error(ErrorCode::Usage, std::string(input) + ": " + source + " '" + display_url(endpoint) +
                                      "' is not an http:// or https:// URL");
  e.scheme = https ? "https" : "http";
  std::string_view rest = std::string_view(endpoint).substr(https ? 8 : 7);
  if (const std::size_t q = rest.find_first_of("?#"); q != std::string_view::npos) rest = rest.substr(0, q);
  const std::size_t slash = rest.find('/');
  e.authority = std::string(rest.substr(0, slash));
  e.path = slash == std::string_view::npos ? std::string() : std::string(rest.substr(slash));
  while (!e.path.empty() && e.path.back() == '/') e.path.pop_back();
  if (e.authority.empty() || e.authority.find('@') != std::string::npos)
    throw Error(ErrorCode::Usage, std::string(input) + ": " + source + " '" + display_url(endpoint) +
                                      "' names no host (scheme://host[:port][/path])");
  if (e.authority.front() == '[')
    e.host = e.authority.substr(0, e.authority.find(']') + 1);
  else
    e.host = e.authority.substr(0, e.authority.find(':'));
  return e;
}

/// An IP address (v4 dotted digits, or a bracketed v6) or localhost: no virtual host there.
bool host_is_ip_or_localhost(const std::string& host) {
  if (host.empty() || host.front() == '[') return true;
  if (host == "localhost" || (host.size() > 10 && host.compare(host.size() - 10, 10, ".localhost") == 0)) return true;
  return host.find_first_not_of("0123456789.") == std::string::npos;
}

/// A region as the signer's parameter may hold it: 1 to 64 of a-z 0-9 - (no ':').
void check_region(const std::string& region, std::string_view input, const char* source) {
  const bool ok = !region.empty() && region.size() <= 64 &&
                  region.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string::npos;
  if (!ok)
    throw Error(ErrorCode::Usage, std::string(input) + ": the region '" + region + "' (" + source +
                                      ") is not a region name such as us-east-1");
}

ObjectRequest s3_request(const ObjectLocation& where, std::string_view input, bool sign) {
  const std::optional<std::string> profile_env = store_env("AWS_PROFILE");
  const std::string profile_name = profile_env ? *profile_env : "default";
  const AwsProfile profile = load_aws_profile(profile_name);
  if (profile_env && !profile.found)
    throw Error(ErrorCode::Usage, std::string(input) + ": AWS_PROFILE names the profile '" + profile_name +
                                      "', which neither the AWS credentials file nor the config file holds");
  std::string region = "us-east-1";
  const char* region_source = "the default";
  if (auto v = store_env("AWS_REGION"))
    region = *v, region_source = "AWS_REGION";
  else if (auto d = store_env("AWS_DEFAULT_REGION"))
    region = *d, region_source = "AWS_DEFAULT_REGION";
  else if (!profile.region.empty())
    region = profile.region, region_source = "the profile's region";
  check_region(region, input, region_source);
  std::string endpoint;
  if (auto v = store_env("AWS_ENDPOINT_URL_S3"))
    endpoint = *v;
  else if (auto g = store_env("AWS_ENDPOINT_URL"))
    endpoint = *g;
  else
    endpoint = profile.endpoint_url;
  ObjectRequest r;
  r.url = s3_object_url(where, endpoint, region, profile.addressing_style);
  if (!sign || remote_options().no_sign_request) return r;
  std::optional<std::string> key = store_env("AWS_ACCESS_KEY_ID"), secret = store_env("AWS_SECRET_ACCESS_KEY");
  if (key && secret) {
    r.auth.access_key = *key;
    r.auth.secret_key = *secret;
    r.auth.session_token = store_env("AWS_SESSION_TOKEN").value_or("");
  } else if (!profile.access_key.empty() && !profile.secret_key.empty()) {
    r.auth.access_key = profile.access_key;
    r.auth.secret_key = profile.secret_key;
    r.auth.session_token = profile.session_token;
  } else {
    std::string why = std::string(input) +
                      ": no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or " +
                      "AWS_PROFILE to a profile of ~/.aws/credentials";
    if (!profile.other_source.empty())
      why += " (the profile '" + profile_name + "' uses " + profile.other_source +
             ", which this tool does not run: `aws configure export-credentials --format env` prints the keys)";
    throw Error(ErrorCode::Usage, why + "; --no-sign-request reads a public bucket");
  }
  r.auth.sigv4 = "aws:amz:" + region + ":s3";
  r.auth.payload_hash_header = true;
  return r;
}

ObjectRequest gs_request(const ObjectLocation& where, std::string_view input, bool sign) {
  const std::string base = store_env("TI_GS_ENDPOINT").value_or("https://storage.googleapis.com");
  const Endpoint e = parse_endpoint(base, input, "TI_GS_ENDPOINT");
  ObjectRequest r;
  r.url = e.scheme + "://" + e.authority + e.path + "/" + where.bucket + "/" + encode_object_key(where.key);
  if (!sign || remote_options().no_sign_request) return r;
  std::optional<std::string> key = store_env("GS_ACCESS_KEY_ID"), secret = store_env("GS_SECRET_ACCESS_KEY");
  if (key && secret) {
    // Cloud Storage's XML API takes AWS's SigV4 with HMAC keys; its location is "auto".
    r.auth.access_key = *key;
    r.auth.secret_key = *secret;
    r.auth.sigv4 = "aws:amz:auto:s3";
    r.auth.payload_hash_header = true;
  } else if (!remote_options().token.empty()) {
    r.auth.bearer = remote_options().token;
  } else if (auto token = store_env("GOOGLE_OAUTH_ACCESS_TOKEN")) {
    r.auth.bearer = *token;
  } else {
    lib_log().debug("{}: no GS_ACCESS_KEY_ID/GS_SECRET_ACCESS_KEY or access token: requests go unsigned", input);
  }
  return r;
}

}  // namespace

bool is_object_store_url(std::string_view input) {
  return store_lower_prefix(input, "s3://") || store_lower_prefix(input, "gs://");
}

ObjectLocation parse_object_url(std::string_view input) {
  ObjectLocation out;
  out.scheme = store_lower_prefix(input, "s3://") ? "s3" : "gs";
  const std::string_view rest = input.substr(5);
  const std::size_t slash = rest.find('/');
  const std::string_view bucket = rest.substr(0, slash);
  const std::string form = std::string(input) + ": an " + out.scheme + ":// URL names " + out.scheme + "://BUCKET/KEY";
  if (bucket.empty() || slash == std::string_view::npos || slash + 1 == rest.size())
    throw Error(ErrorCode::Usage, form);
  if (bucket.size() > kMaxBucket ||
      bucket.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
          std::string_view::npos)
    throw Error(ErrorCode::Usage, form + " (a bucket name is 1 to 255 of a-z A-Z 0-9 . _ -)");
  const std::string_view key = rest.substr(slash + 1);
  if (key.size() > kMaxKey) throw Error(ErrorCode::Usage, form + " (a key is at most 1024 bytes)");
  if (key.find_first_of(std::string_view("\0\r\n", 3)) != std::string_view::npos)
    throw Error(ErrorCode::Usage, form + " (a key holds no NUL, CR or LF)");
  out.bucket = std::string(bucket);
  out.key = std::string(key);
  return out;
}

std::string encode_object_key(std::string_view key) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(key.size());
  for (const char ch : key) {
    const auto c = static_cast<unsigned char>(ch);
    if (store_unreserved(c) || c == '/') {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

bool is_virtual_host_bucket(std::string_view bucket) {
  if (bucket.size() < 3 || bucket.size() > 63) return false;
  if (bucket.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string_view::npos) return false;
  return bucket.front() != '-' && bucket.back() != '-';
}

std::string s3_object_url(const ObjectLocation& where, const std::string& endpoint, const std::string& region,
                          const std::string& addressing_style) {
  const std::string key = encode_object_key(where.key);
  const std::string input = where.scheme + "://" + where.bucket + "/" + where.key;
  if (endpoint.empty()) {
    if (is_virtual_host_bucket(where.bucket) && addressing_style != "path")
      return "https://" + where.bucket + ".s3." + region + ".amazonaws.com/" + key;
    return "https://s3." + region + ".amazonaws.com/" + where.bucket + "/" + key;
  }
  const Endpoint e = parse_endpoint(endpoint, input, "the S3 endpoint");
  if (addressing_style == "virtual" && is_virtual_host_bucket(where.bucket) && !host_is_ip_or_localhost(e.host))
    return e.scheme + "://" + where.bucket + "." + e.authority + e.path + "/" + key;
  return e.scheme + "://" + e.authority + e.path + "/" + where.bucket + "/" + key;
}

std::string store_error_suffix(std::string_view body) {
  const std::size_t open = body.find("<Code>");
  if (open == std::string_view::npos || body.find("<Error>") > open) return {};
  const std::size_t from = open + 6, close = body.find("</Code>", from);
  if (close == std::string_view::npos || close == from || close - from > 64) return {};
  const std::string_view code = body.substr(from, close - from);
  if (code.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.") !=
      std::string_view::npos)
    return {};
  return " (" + std::string(code) + ")";
}

ObjectRequest object_request(std::string_view input, bool sign) {
  const ObjectLocation where = parse_object_url(input);
  return where.scheme == "s3" ? s3_request(where, input, sign) : gs_request(where, input, sign);
}

}  // namespace tensor_inspect
