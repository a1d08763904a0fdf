// app/cli/remote_options.hpp — the command line of remote inputs: --token-file, --cache, --cache-size, --timeout,
// --no-sign-request.
#pragma once

#include <cstdint>
#include <string>

#include "cli/cli11_fwd.hpp"
#include "cli/option_groups.hpp"

#include "tensor_inspect/remote.hpp"

namespace tensor_inspect::app {

/// What the remote options say on the command line. The environment's TI_CACHE_DIR,
/// TI_CACHE_SIZE and TI_TIMEOUT stand in for an option the command line does not give;
/// apply_remote reads them, after parsing, so the command line always wins, also when the
/// option stands before a subcommand's name (`--cache DIR diff A B`).
struct RemoteFlags {
  std::string token_file;  ///< --token-file FILE: a bearer token for URLs (its first line)
  std::string cache_dir;   ///< --cache DIR: keep fetched blocks there; empty: no cache
  std::uint64_t cache_size = RemoteOptions{}.cache_size;  ///< --cache-size N, bytes
  long timeout_seconds = RemoteOptions{}.timeout_seconds;  ///< --timeout SECONDS
  bool no_sign_request = false;  ///< --no-sign-request: s3:// and gs:// requests unsigned
  /// Which of --cache, --cache-size and --timeout the command line gave (any subcommand's).
  bool cache_dir_given = false, cache_size_given = false, timeout_given = false;
};

/// Adds --token-file, --cache, --cache-size, --timeout and --no-sign-request to `app` (the main command and each
/// subcommand that opens files).
inline constexpr OptionNames kRemoteOptionNames{"--token-file --cache --cache-size --timeout --no-sign-request", ""};
void setup_remote(CLI::App& app, RemoteFlags& flags);
/// Reads the token file, if any, and the environment variables for options the command line
/// did not give, and sets the library's RemoteOptions. A malformed TI_CACHE_SIZE or
/// TI_TIMEOUT fails only a run that uses it (RemoteOptions::cache_size_error, timeout_error):
/// one that opens a URL, with a cache for TI_CACHE_SIZE. Throws Error(Io) naming the token file (never its
/// content) when it cannot be read or holds no token.
void apply_remote(const RemoteFlags& flags);

}  // namespace tensor_inspect::app
