// app/commands/validate/validate.hpp — `tensor-inspect validate FILE...`: every rule of each file's format,
// every finding, exit 0 without errors, 1 errors (or warnings with --strict), 2 unreadable.
#pragma once

#include "cli/cli11_fwd.hpp"

#include <string>
#include <vector>

namespace tensor_inspect::app {

struct ValidateOptions {
  std::vector<std::string> files;
  bool json = false;
  bool strict = false;  ///< --strict: warnings fail too (notes never do)
  std::vector<std::string> limits;  ///< --limit NAME=N (tensor_inspect/limits.hpp)
};

/// Adds the `validate` subcommand to `app`, filling `o`; returns it (true once parsed).
CLI::App* setup_validate(CLI::App& app, ValidateOptions& o);
/// Validates every file; returns 1 when any has an error (or, with --strict, a warning),
/// else 0: notes (what the tool cannot decode) never fail. Throws
/// Error (exit 2, nothing on stdout) when a file cannot be read or is no tensor file.
int run_validate(const ValidateOptions& o);

}  // namespace tensor_inspect::app
