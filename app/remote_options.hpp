// app/remote_options.hpp — the command line of remote inputs: --token-file, --cache, --cache-size.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

#include "option_groups.hpp"

#include "tensor_inspect/remote.hpp"

namespace tensor_inspect::app {

/// What the remote options say.
struct RemoteFlags {
  std::string token_file;  ///< --token-file FILE: a bearer token for URLs (its first line)
  std::string cache_dir;   ///< --cache DIR (or TI_CACHE_DIR): keep fetched blocks there; empty: no cache
  std::uint64_t cache_size = RemoteOptions{}.cache_size;  ///< --cache-size N (or TI_CACHE_SIZE), bytes
};

/// Adds --token-file, --cache and --cache-size to `app` (the main command and each
/// subcommand that opens files).
inline constexpr OptionNames kRemoteOptionNames{"--token-file --cache --cache-size", "", "TI_CACHE_DIR TI_CACHE_SIZE"};
void setup_remote(CLI::App& app, RemoteFlags& flags);
/// Reads the token file, if any, and sets the library's RemoteOptions. Throws Error(Io)
/// naming the file (never its content) when it cannot be read or holds no token.
void apply_remote(const RemoteFlags& flags);

}  // namespace tensor_inspect::app
