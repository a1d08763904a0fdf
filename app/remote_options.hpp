// app/remote_options.hpp — the command line of remote inputs: --token-file.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace tensor_inspect::app {

/// What the remote options say.
struct RemoteFlags {
  std::string token_file;  ///< --token-file FILE: a bearer token for URLs (its first line)
};

/// Adds --token-file to `app` (the main command and each subcommand that opens files).
void setup_remote(CLI::App& app, RemoteFlags& flags);
/// Reads the token file, if any, into the library's RemoteOptions. Throws Error(Io) naming
/// the file (never its content) when it cannot be read or holds no token.
void apply_remote(const RemoteFlags& flags);

}  // namespace tensor_inspect::app
