// Tests for remote/object_store.cpp: s3:// and gs:// URLs as the HTTPS URLs and signing
// parameters of their requests (the AWS CLI's choices: endpoint, region, addressing style).
#include <doctest/doctest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "remote/object_store.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/remote.hpp"

namespace ti = tensor_inspect;

namespace {

/// Sets the environment of one case and restores the variables it touched.
struct EnvScope {
  explicit EnvScope(std::initializer_list<std::pair<const char*, const char*>> vars) {
    for (const char* name : kNames) {
      const char* v = std::getenv(name);
      saved.emplace_back(name, v ? std::optional<std::string>(v) : std::nullopt);
      ::unsetenv(name);
    }
    ::setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/credentials", 1);
    ::setenv("AWS_CONFIG_FILE", "/nonexistent/config", 1);
    for (const auto& [name, value] : vars) ::setenv(name, value, 1);
  }
  ~EnvScope() {
    for (const auto& [name, value] : saved) {
      if (value)
        ::setenv(name, value->c_str(), 1);
      else
        ::unsetenv(name);
    }
  }
  static constexpr const char* kNames[] = {"AWS_PROFILE",
                                           "AWS_REGION",
                                           "AWS_DEFAULT_REGION",
                                           "AWS_ENDPOINT_URL",
                                           "AWS_ENDPOINT_URL_S3",
                                           "AWS_ACCESS_KEY_ID",
                                           "AWS_SECRET_ACCESS_KEY",
                                           "AWS_SESSION_TOKEN",
                                           "AWS_SHARED_CREDENTIALS_FILE",
                                           "AWS_CONFIG_FILE",
                                           "TI_GS_ENDPOINT",
                                           "GS_ACCESS_KEY_ID",
                                           "GS_SECRET_ACCESS_KEY",
                                           "GOOGLE_OAUTH_ACCESS_TOKEN"};
  std::vector<std::pair<const char*, std::optional<std::string>>> saved;
};

}  // namespace

TEST_CASE("parse_object_url splits s3:// and gs:// into bucket and key, and refuses the rest in one line") {
  const ti::ObjectLocation l = ti::parse_object_url("S3://my-bucket/llama/model.safetensors");
  CHECK(l.scheme == "s3");
  CHECK(l.bucket == "my-bucket");
  CHECK(l.key == "llama/model.safetensors");
  CHECK(ti::parse_object_url("gs://b/k").scheme == "gs");
  CHECK_THROWS_WITH_AS(ti::parse_object_url("s3://bucket"), "s3://bucket: an s3:// URL names s3://BUCKET/KEY",
                       ti::Error);
  CHECK_THROWS_WITH_AS(ti::parse_object_url("s3://bucket/"), "s3://bucket/: an s3:// URL names s3://BUCKET/KEY",
                       ti::Error);
  CHECK_THROWS_WITH_AS(ti::parse_object_url("gs:///k"), "gs:///k: an gs:// URL names gs://BUCKET/KEY", ti::Error);
  CHECK_THROWS_WITH_AS(
      ti::parse_object_url("s3://a b/k"),
      "s3://a b/k: an s3:// URL names s3://BUCKET/KEY (a bucket name is 1 to 255 of a-z A-Z 0-9 . _ -)", ti::Error);
  CHECK_THROWS_AS(ti::parse_object_url("s3://b/" + std::string(1025, 'k')), ti::Error);
  CHECK(ti::parse_object_url("s3://b/" + std::string(1024, 'k')).key.size() == 1024);
}

TEST_CASE("encode_object_key keeps unreserved bytes and slashes, percent-encodes the rest once") {
  CHECK(ti::encode_object_key("a b/c+d%e.safetensors") == "a%20b/c%2Bd%25e.safetensors");
  CHECK(ti::encode_object_key("x=1&y") == "x%3D1%26y");
}

TEST_CASE("s3_object_url: virtual-hosted on AWS, path-style on other endpoints and for dotted buckets") {
  const ti::ObjectLocation l{"s3", "ckpt", "step 1/m.safetensors"};
  CHECK(ti::s3_object_url(l, "", "eu-west-1", "") == "https://ckpt.s3.eu-west-1.amazonaws.com/step%201/m.safetensors");
  CHECK(ti::s3_object_url(l, "", "eu-west-1", "path") ==
        "https://s3.eu-west-1.amazonaws.com/ckpt/step%201/m.safetensors");
  CHECK(ti::s3_object_url({"s3", "my.bucket", "k"}, "", "us-east-1", "") ==
        "https://s3.us-east-1.amazonaws.com/my.bucket/k");
  CHECK(ti::s3_object_url(l, "http://store.internal:9000/", "us-east-1", "") ==
        "http://store.internal:9000/ckpt/step%201/m.safetensors");
  CHECK(ti::s3_object_url(l, "https://store.internal/prefix", "us-east-1", "virtual") ==
        "https://ckpt.store.internal/prefix/step%201/m.safetensors");
  CHECK(ti::s3_object_url(l, "http://127.0.0.1:9000", "us-east-1", "virtual") ==
        "http://127.0.0.1:9000/ckpt/step%201/m.safetensors");
  CHECK(ti::s3_object_url(l, "http://localhost:9000", "us-east-1", "virtual") ==
        "http://localhost:9000/ckpt/step%201/m.safetensors");
  CHECK_THROWS_WITH_AS(ti::s3_object_url(l, "ftp://x", "us-east-1", ""),
                       "s3://ckpt/step 1/m.safetensors: the S3 endpoint 'ftp://x' is not an http:// or https:// URL",
                       ti::Error);
}

TEST_CASE("object_request: keys, region and endpoint from the environment, as the AWS CLI takes them") {
  SUBCASE("keys and a session token sign with the region of AWS_REGION") {
    EnvScope env{{"AWS_ACCESS_KEY_ID", "AKID"},
                 {"AWS_SECRET_ACCESS_KEY", "SECRET"},
                 {"AWS_SESSION_TOKEN", "TOKEN"},
                 {"AWS_REGION", "eu-central-1"},
                 {"AWS_DEFAULT_REGION", "us-west-2"}};
    const ti::ObjectRequest r = ti::object_request("s3://b-1/k.npy");
    CHECK(r.url == "https://b-1.s3.eu-central-1.amazonaws.com/k.npy");
    CHECK(r.auth.sigv4 == "aws:amz:eu-central-1:s3");
    CHECK(r.auth.access_key == "AKID");
    CHECK(r.auth.secret_key == "SECRET");
    CHECK(r.auth.session_token == "TOKEN");
    CHECK(r.auth.payload_hash_header);
  }
  SUBCASE("AWS_ENDPOINT_URL: an S3-compatible store, path-style; AWS_DEFAULT_REGION when AWS_REGION is unset") {
    EnvScope env{{"AWS_ACCESS_KEY_ID", "A"},
                 {"AWS_SECRET_ACCESS_KEY", "S"},
                 {"AWS_ENDPOINT_URL", "http://127.0.0.1:9000"},
                 {"AWS_DEFAULT_REGION", "us-west-2"}};
    const ti::ObjectRequest r = ti::object_request("s3://ckpt/a/b.safetensors");
    CHECK(r.url == "http://127.0.0.1:9000/ckpt/a/b.safetensors");
    CHECK(r.auth.sigv4 == "aws:amz:us-west-2:s3");
  }
  SUBCASE("no keys: one line that says where keys come from, without any value") {
    EnvScope env{{"AWS_ACCESS_KEY_ID", "ONLY-THE-ID"}};
    CHECK_THROWS_WITH_AS(
        ti::object_request("s3://b/k"),
        "s3://b/k: no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE "
        "to a profile of ~/.aws/credentials; --no-sign-request reads a public bucket",
        ti::Error);
  }
  SUBCASE("AWS_PROFILE naming a profile no file holds") {
    EnvScope env{{"AWS_PROFILE", "ml"}};
    CHECK_THROWS_WITH_AS(ti::object_request("s3://b/k"),
                         "s3://b/k: AWS_PROFILE names the profile 'ml', which neither the AWS credentials file nor the "
                         "config file holds",
                         ti::Error);
  }
  SUBCASE("a region that cannot be one") {
    EnvScope env{{"AWS_REGION", "us:east"}, {"AWS_ACCESS_KEY_ID", "A"}, {"AWS_SECRET_ACCESS_KEY", "S"}};
    CHECK_THROWS_WITH_AS(ti::object_request("s3://b/k"),
                         "s3://b/k: the region 'us:east' (AWS_REGION) is not a region name such as us-east-1",
                         ti::Error);
  }
  SUBCASE("--no-sign-request: unsigned, no keys needed") {
    EnvScope env{};
    ti::RemoteOptions o = ti::remote_options();
    o.no_sign_request = true;
    ti::set_remote_options(o);
    const ti::ObjectRequest r = ti::object_request("s3://b-b/k");
    o.no_sign_request = false;
    ti::set_remote_options(o);
    CHECK(r.url == "https://b-b.s3.us-east-1.amazonaws.com/k");
    CHECK(r.auth.sigv4.empty());
    CHECK(r.auth.bearer.empty());
  }
  SUBCASE("gs://: path-style on storage.googleapis.com; HMAC keys sign, else an access token, else nothing") {
    EnvScope env{};
    CHECK(ti::object_request("gs://bkt/m/x.gguf").url == "https://storage.googleapis.com/bkt/m/x.gguf");
    CHECK(ti::object_request("gs://bkt/x").auth.sigv4.empty());
    ::setenv("GOOGLE_OAUTH_ACCESS_TOKEN", "ya29.tok", 1);
    CHECK(ti::object_request("gs://bkt/x").auth.bearer == "ya29.tok");
    ::setenv("GS_ACCESS_KEY_ID", "GOOG1", 1);
    ::setenv("GS_SECRET_ACCESS_KEY", "gsecret", 1);
    ::setenv("TI_GS_ENDPOINT", "http://127.0.0.1:8/", 1);
    const ti::ObjectRequest r = ti::object_request("gs://bkt/x");
    CHECK(r.url == "http://127.0.0.1:8/bkt/x");
    CHECK(r.auth.sigv4 == "aws:amz:auto:s3");
    CHECK(r.auth.bearer.empty());
  }
}

TEST_CASE("is_url and resolve_url know s3:// and gs://; resolving needs no credentials") {
  EnvScope env{};
  CHECK(ti::is_url("s3://b/k"));
  CHECK(ti::is_url("GS://b/k"));
  CHECK_FALSE(ti::is_url("s3:/b/k"));
  CHECK(ti::resolve_url("s3://bb1/k") == "https://bb1.s3.us-east-1.amazonaws.com/k");
  CHECK(ti::display_url("s3://b/dir/k.safetensors") == "s3://b/dir/k.safetensors");
}

TEST_CASE("store_error_suffix names the <Code> of an S3 XML error, and nothing else") {
  CHECK(ti::store_error_suffix(
            "<?xml version=\"1.0\"?><Error><Code>SignatureDoesNotMatch</Code><Message>m</Message></Error>") ==
        " (SignatureDoesNotMatch)");
  CHECK(ti::store_error_suffix("<html>Not found</html>").empty());
  CHECK(ti::store_error_suffix("<Error><Code>a b</Code></Error>").empty());
  CHECK(ti::store_error_suffix("<Code>X</Code><Error>").empty());
  CHECK(ti::store_error_suffix("<Error><Code>" + std::string(65, 'A') + "</Code>").empty());
}
