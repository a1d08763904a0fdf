// app/remote_options.cpp — --token-file (the bearer token for http(s):// and hf:// inputs),
// --cache DIR and --cache-size N (the block cache of remote files), --timeout SECONDS.
#include "remote_options.hpp"

#include <cerrno>
#include <csignal>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <fstream>

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

}  // namespace

void setup_remote(CLI::App& app, RemoteFlags& flags) {
  app.add_option("--token-file", flags.token_file,
                 "a file whose first line is a bearer token for URL inputs (hf:// also reads HF_TOKEN)")
      ->group("Remote files");
  // Environment variables too: a script or CI job that runs the tool many times sets the
  // cache once, as PIP_CACHE_DIR or HF_HUB_CACHE are set.
  app.add_option("--cache", flags.cache_dir, "keep fetched blocks of URL inputs in DIR: a second look is local (off by default)")
      ->envname("TI_CACHE_DIR")
      ->type_name("DIR")
      ->group("Remote files");
  app.add_option("--cache-size", flags.cache_size, "most bytes --cache DIR may take on disk (K, M, G: KiB, MiB, GiB; at least 1M), e.g. 500M")
      ->envname("TI_CACHE_SIZE")
      ->transform(CLI::Validator(parse_cache_size, ""))
      ->type_name("N")
      ->default_str(std::to_string(flags.cache_size >> 30) + "G")
      ->group("Remote files");
  app.add_option("--timeout", flags.timeout_seconds,
                 "seconds a URL input may wait to connect, or for the next byte, before the run fails (not retried)")
      ->envname("TI_TIMEOUT")
      ->check(CLI::Validator(
          [](std::string& text) {
            long v = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            return ec == std::errc() && end == text.data() + text.size() && v >= 1 && v <= 86400
                       ? std::string()
                       : "expected whole seconds from 1 to 86400, not '" + text + "'";
          },
          ""))
      ->type_name("SECONDS")
      ->default_str(std::to_string(flags.timeout_seconds))
      ->group("Remote files");
}

void apply_remote(const RemoteFlags& flags) {
  // Under a file-size limit (ulimit -f) a cache write past it must fail with EFBIG, turning
  // the cache off, rather than kill a run that would succeed without --cache.
  if (!flags.cache_dir.empty()) std::signal(SIGXFSZ, SIG_IGN);
  RemoteOptions r = remote_options();
  r.cache_dir = flags.cache_dir;
  r.cache_size = flags.cache_size;
  r.timeout_seconds = flags.timeout_seconds;
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
