// app/cli/remote_options.cpp — --token-file (the bearer token for http(s):// and hf:// inputs),
// --cache DIR and --cache-size N (the block cache of remote files), --timeout SECONDS,
// --no-sign-request (s3:// and gs:// unsigned).
#include "cli/remote_options.hpp"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <csignal>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/remote.hpp"

namespace tensor_inspect::app {

namespace {

constexpr std::uint64_t kMinCacheSize = std::uint64_t{1} << 20;  // below it no entry would fit

/// --cache-size: N bytes, or N with a K, M or G suffix (KiB, MiB, GiB) as --limit takes them;
/// the text is replaced by the byte count.
std::string parse_cache_size(std::string& text) {
  std::string_view digits = text;
  std::uint64_t scale = 1;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'K': case 'k': scale = std::uint64_t{1} << 10; break;
      case 'M': case 'm': scale = std::uint64_t{1} << 20; break;
      case 'G': case 'g': scale = std::uint64_t{1} << 30; break;
      default: break;
    }
    if (scale != 1) digits.remove_suffix(1);
  }
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || value > UINT64_MAX / scale)
    return "expected a byte count such as 500M or 20G (K, M, G suffixes), not '" + text + "'";
  if (value * scale < kMinCacheSize) return "at least 1M, not '" + text + "'";
  text = std::to_string(value * scale);
  return {};
}

/// --timeout: whole seconds from 1 to 86400.
std::string check_timeout(const std::string& text) {
  long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  return ec == std::errc() && end == text.data() + text.size() && v >= 1 && v <= 86400
             ? std::string()
             : "expected whole seconds from 1 to 86400, not '" + text + "'";
}

/// The environment's value of `name`; nullopt when unset or empty (as CLI11 took them).
std::optional<std::string> env_value(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? std::optional<std::string>(v) : std::nullopt;
}

}  // namespace

void setup_remote(CLI::App& app, RemoteFlags& flags) {
  app.add_option("--token-file", flags.token_file,
                 "a file whose first line is a bearer token for URL inputs (hf:// also reads HF_TOKEN)")
      ->group("Remote files");
  // Environment variables too (TI_CACHE_DIR, ...): a script or CI job that runs the tool many
  // times sets the cache once, as PIP_CACHE_DIR or HF_HUB_CACHE are set. apply_remote reads
  // them; the help shows them as CLI11 would (option_text).
  app.add_option("--cache", flags.cache_dir,
                 "keep fetched blocks of URL inputs in DIR: a second look is local (off by default)")
      ->each([&flags](const std::string&) { flags.cache_dir_given = true; })
      ->option_text("DIR (Env:TI_CACHE_DIR)")
      ->group("Remote files");
  app.add_option("--cache-size", flags.cache_size,
                 "most bytes --cache DIR may take on disk (K, M, G: KiB, MiB, GiB; at least 1M), e.g. 500M")
      ->transform(CLI::Validator(parse_cache_size, ""))
      ->each([&flags](const std::string&) { flags.cache_size_given = true; })
      ->option_text("N=" + std::to_string(flags.cache_size >> 30) + "G (Env:TI_CACHE_SIZE)")
      ->group("Remote files");
  app.add_option("--timeout", flags.timeout_seconds,
                 "seconds a URL input may wait to connect, or for the next byte, before the run fails (not retried)")
      ->check(CLI::Validator(check_timeout, ""))
      ->each([&flags](const std::string&) { flags.timeout_given = true; })
      ->option_text("SECONDS=" + std::to_string(flags.timeout_seconds) + " (Env:TI_TIMEOUT)")
      ->group("Remote files");
  // The AWS CLI's name: a public bucket is read without looking for credentials.
  app.add_flag("--no-sign-request", flags.no_sign_request,
               "send s3:// and gs:// requests unsigned (public buckets)")
      ->group("Remote files");
}

void apply_remote(const RemoteFlags& flags) {
  RemoteOptions r = remote_options();
  r.cache_dir = flags.cache_dir;
  r.cache_size = flags.cache_size;
  r.timeout_seconds = flags.timeout_seconds;
  r.no_sign_request = flags.no_sign_request;
  // A variable stands in for an option the command line did not give. A malformed one is
  // kept as an error for the run that uses it: a literal or a local file never fails on a
  // cache setting, and the run that would use a bound the user mistyped stops rather than
  // take 10G (or go uncached) unseen.
  if (!flags.cache_dir_given)
    if (auto v = env_value("TI_CACHE_DIR")) r.cache_dir = *v;
  if (!flags.cache_size_given)
    if (auto v = env_value("TI_CACHE_SIZE")) {
      const std::string problem = parse_cache_size(*v);
      if (problem.empty()) r.cache_size = std::stoull(*v);
      else r.cache_size_error = "TI_CACHE_SIZE: " + problem + " (the environment's --cache-size)";
    }
  if (!flags.timeout_given)
    if (auto v = env_value("TI_TIMEOUT")) {
      const std::string problem = check_timeout(*v);
      if (problem.empty()) r.timeout_seconds = std::stol(*v);
      else r.timeout_error = "TI_TIMEOUT: " + problem + " (the environment's --timeout)";
    }
  // Under a file-size limit (ulimit -f) a cache write past it must fail with EFBIG, turning
  // the cache off, rather than kill a run that would succeed without --cache.
  if (!r.cache_dir.empty()) std::signal(SIGXFSZ, SIG_IGN);
  set_remote_options(r);
  if (flags.token_file.empty()) return;
  std::ifstream in(flags.token_file);
  if (!in) throw Error(ErrorCode::Io, flags.token_file + ": cannot read the token file: " + std::strerror(errno));
  std::string token;
  std::getline(in, token);
  const auto first = token.find_first_not_of(" \t\r\n");
  const auto last = token.find_last_not_of(" \t\r\n");
  token = first == std::string::npos ? std::string() : token.substr(first, last - first + 1);
  if (token.empty()) throw Error(ErrorCode::Io, flags.token_file + ": the token file's first line is empty");
  r.token = token;
  set_remote_options(r);
}

}  // namespace tensor_inspect::app
