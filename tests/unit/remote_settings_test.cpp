// tests/unit/remote_settings_test.cpp — the remote options as users give them
// (tensor_inspect/remote.hpp): --cache-size's byte counts (K, M, G are 2**10, 2**20, 2**30),
// --timeout's seconds, the TI_* variables standing in for options not given, the token file.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/remote.hpp"

namespace ti = tensor_inspect;

TEST_CASE("parse_cache_size: byte counts with K, M, G suffixes, at least 1 MiB") {
  std::string t = "500M";
  CHECK(ti::parse_cache_size(t).empty());
  CHECK(t == "524288000");  // 500 * 2**20
  t = "2g";
  CHECK(ti::parse_cache_size(t).empty());
  CHECK(t == "2147483648");  // 2 * 2**30
  t = "1048576";
  CHECK(ti::parse_cache_size(t).empty());
  CHECK(t == "1048576");
  t = "1023K";  // 1047552 bytes: one KiB short of the least
  CHECK(ti::parse_cache_size(t) == "at least 1M, not '1023K'");
  CHECK(t == "1023K");
  t = "20GiB";  // the binary suffixes as people write them
  CHECK(ti::parse_cache_size(t).empty());
  CHECK(t == "21474836480");  // 20 * 2**30
  t = "3iB";
  CHECK_FALSE(ti::parse_cache_size(t).empty());
  t = "20T";
  CHECK(ti::parse_cache_size(t) ==
        "expected a byte count such as 500M or 20GiB (K, M, G suffixes, or KiB, MiB, GiB), not '20T'");
  t = "18446744073709551615G";  // overflows 64 bits once scaled
  CHECK_FALSE(ti::parse_cache_size(t).empty());
}

TEST_CASE("check_timeout_seconds: whole seconds from 1 to 86400") {
  CHECK(ti::check_timeout_seconds("1").empty());
  CHECK(ti::check_timeout_seconds("86400").empty());
  CHECK(ti::check_timeout_seconds("0") == "expected whole seconds from 1 to 86400, not '0'");
  CHECK_FALSE(ti::check_timeout_seconds("86401").empty());
  CHECK_FALSE(ti::check_timeout_seconds("2.5").empty());
  CHECK_FALSE(ti::check_timeout_seconds("").empty());
}

TEST_CASE("with_remote_environment: TI_* stand in for options not given, malformed ones kept as errors") {
  ::setenv("TI_CACHE_DIR", "/tmp/ti-cache", 1);
  ::setenv("TI_CACHE_SIZE", "3M", 1);
  ::setenv("TI_TIMEOUT", "0", 1);
  ti::RemoteOptions given;
  given.cache_dir = "/given";
  ti::RemoteOptions r = ti::with_remote_environment(given, false, false, false);
  CHECK(r.cache_dir == "/tmp/ti-cache");
  CHECK(r.cache_size == 3145728);  // 3 * 2**20
  CHECK(r.timeout_seconds == 20);  // unchanged: the variable is malformed
  CHECK(r.timeout_error == "TI_TIMEOUT: expected whole seconds from 1 to 86400, not '0' (the environment's --timeout)");
  r = ti::with_remote_environment(given, true, true, true);  // the command line wins
  CHECK(r.cache_dir == "/given");
  CHECK(r.cache_size == ti::RemoteOptions{}.cache_size);
  CHECK(r.timeout_error.empty());
  ::setenv("TI_CACHE_SIZE", "lots", 1);
  ::setenv("TI_TIMEOUT", "", 1);  // empty: unset
  r = ti::with_remote_environment(given, false, false, false);
  CHECK(r.cache_size_error ==
        "TI_CACHE_SIZE: expected a byte count such as 500M or 20GiB (K, M, G suffixes, or KiB, MiB, GiB), not 'lots' "
        "(the environment's --cache-size)");
  CHECK(r.timeout_error.empty());
  ::unsetenv("TI_CACHE_DIR");
  ::unsetenv("TI_CACHE_SIZE");
  ::unsetenv("TI_TIMEOUT");
}

TEST_CASE("read_token_file: the first line, trimmed; an empty one or no file is Error(Io)") {
  const std::string path = "remote_settings_test_token.txt";
  {
    std::ofstream f(path);
    f << "  hf_abc123 \r\nsecond line\n";
  }
  CHECK(ti::read_token_file(path) == "hf_abc123");
  {
    std::ofstream f(path);
    f << " \t\nhf_abc123\n";
  }
  CHECK_THROWS_WITH_AS(ti::read_token_file(path), (path + ": the token file's first line is empty").c_str(), ti::Error);
  std::remove(path.c_str());
  try {
    ti::read_token_file(path);
    FAIL("no error for a missing file");
  } catch (const ti::Error& e) {
    CHECK(e.code() == ti::ErrorCode::Io);
    CHECK(std::string(e.what()) == path + ": cannot read the token file: No such file or directory");
  }
}
