// remote/remote_settings.cpp — the remote options as users give them: --cache-size and
// --timeout values checked, TI_CACHE_DIR, TI_CACHE_SIZE and TI_TIMEOUT standing in for an
// option not given, and the bearer token read from --token-file (remote.hpp).
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/remote.hpp"

namespace tensor_inspect {
namespace {

constexpr std::uint64_t kMinCacheSize = std::uint64_t{1} << 20;  // below it no entry would fit

// The environment's value of `name`; nullopt when unset or empty (as CLI11 took them).
std::optional<std::string> remote_env_value(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? std::optional<std::string>(v) : std::nullopt;
}

}  // namespace

std::string parse_cache_size(std::string& text) {
  const std::optional<std::uint64_t> value = parse_byte_count(text);
  if (!value)
    return "expected a byte count such as 500M or 20GiB (K, M, G suffixes, or KiB, MiB, GiB), not '" + text + "'";
  if (*value < kMinCacheSize) return "at least 1M, not '" + text + "'";
  text = std::to_string(*value);
  return {};
}

std::string check_timeout_seconds(const std::string& text) {
  long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && end == text.data() + text.size() && v >= 1 && v <= 86400
             ? std::string()
             : "expected whole seconds from 1 to 86400, not '" + text + "'";
}

RemoteOptions with_remote_environment(RemoteOptions r, bool cache_dir_given, bool cache_size_given,
                                      bool timeout_given) {
  // A malformed variable is kept as an error for the run that uses it: a literal or a local
  // file never fails on a cache setting, and the run that would use a bound the user
  // mistyped stops rather than take 10G (or go uncached) unseen.
  if (!cache_dir_given)
    if (auto v = remote_env_value("TI_CACHE_DIR")) r.cache_dir = *v;
  if (!cache_size_given)
    if (auto v = remote_env_value("TI_CACHE_SIZE")) {
      const std::string problem = parse_cache_size(*v);
      if (problem.empty()) r.cache_size = std::stoull(*v);
      else r.cache_size_error = "TI_CACHE_SIZE: " + problem + " (the environment's --cache-size)";
    }
  if (!timeout_given)
    if (auto v = remote_env_value("TI_TIMEOUT")) {
      const std::string problem = check_timeout_seconds(*v);
      if (problem.empty()) r.timeout_seconds = std::stol(*v);
      else r.timeout_error = "TI_TIMEOUT: " + problem + " (the environment's --timeout)";
    }
  return r;
}

std::string read_token_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(ErrorCode::Io, path + ": cannot read the token file: " + std::strerror(errno));
  std::string token;
  std::getline(in, token);
  const auto first = token.find_first_not_of(" \t\r\n");
  const auto last = token.find_last_not_of(" \t\r\n");
  token = first == std::string::npos ? std::string() : token.substr(first, last - first + 1);
  if (token.empty()) throw Error(ErrorCode::Io, path + ": the token file's first line is empty");
  return token;
}

}  // namespace tensor_inspect
