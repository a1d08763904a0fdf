// fuzz/fuzz_object_store.cpp — s3:// and gs:// URLs, bucket and key checks, and the AWS
// shared files (~/.aws/credentials, ~/.aws/config): untrusted text a user or a file gives.
// The first line is a URL, parsed, percent-encoded and turned into the store's URL for three
// kinds of endpoint; the rest is an INI file, parsed and read for the profiles `default` and
// the first section's name. Every fault must be one Error, never a crash.
#include "harness.hpp"

#include "remote/aws_credentials.hpp"
#include "remote/object_store.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::text_of(data, size);
  const std::size_t nl = text.find('\n');
  const std::string url(text.substr(0, nl));
  const std::string_view ini = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  fuzz::guarded([&] {
    if (!ti::is_object_store_url(url)) return;
    const ti::ObjectLocation where = ti::parse_object_url(url);
    (void)ti::encode_object_key(where.key);
    (void)ti::s3_object_url(where, "", "us-east-1", "");
    (void)ti::s3_object_url(where, "http://127.0.0.1:9000/p/", "us-east-1", "virtual");
    (void)ti::s3_object_url(where, "https://store.internal", "eu-west-1", "virtual");
  });
  fuzz::guarded([&] {
    const ti::IniFile file = ti::parse_aws_ini(ini, "config");
    (void)ti::aws_profile_from(file, file, "default");
    if (!file.empty()) (void)ti::aws_profile_from(file, file, file.begin()->first);
  });
  return 0;
}
