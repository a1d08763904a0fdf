// app/commands/hash/hash.hpp — `tensor-inspect hash INPUT...`: a content hash per tensor (like
// sha256sum: hash, two spaces, name), a manifest with --json, and `hash --check MANIFEST
// INPUT...` verifying a copy as `sha256sum -c` does: 0 all match, 1 a tensor changed, is
// missing or was added, 2 trouble.
#pragma once

#include "cli/cli11_fwd.hpp"

#include <optional>
#include <string>
#include <vector>

namespace tensor_inspect::app {

/// Everything `hash` takes.
struct HashOptions {
  std::vector<std::string> inputs;   ///< files, folders, URLs, - ; their tensors together
  std::optional<std::string> algo;   ///< --algo: xxh3-128 (default) or sha256
  std::optional<std::string> check;  ///< --check MANIFEST: verify instead of print
  bool json = false;                 ///< a manifest (kind "hash"), or with --check a "hash_check" report
  bool quiet = false;                ///< --check: print only what does not match
  std::vector<std::string> limits;   ///< --limit NAME=N (tensor_inspect/limits.hpp)
};

/// Adds the `hash` subcommand to `app`, filling `o`; returns it (test `*sub` after parsing).
CLI::App* setup_hash(CLI::App& app, HashOptions& o);

/// Prints the hashes (returns 0), or with --check compares them with the manifest and
/// returns 0 when every tensor matches, 1 otherwise. Throws tensor_inspect::Error for
/// trouble: a bad option, an unreadable input or manifest (nothing is printed then).
int run_hash(const HashOptions& o);

}  // namespace tensor_inspect::app
