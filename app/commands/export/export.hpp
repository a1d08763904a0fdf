// app/commands/export/export.hpp — `tensor-inspect export INPUT (--name GLOB... | --all) -o OUT`: the
// selected tensors (dequantized, after -e, cast with --dtype) written as a file NumPy or
// safetensors loads, chosen by OUT's extension or --format: .npy (one tensor), .npz or
// .safetensors (several, with a __metadata__ naming the source). Streamed, through a
// temporary file renamed into place; an existing OUT only with --force, an input never;
// `-o -` writes standard output (with --format; never a terminal).
#pragma once

#include "cli/cli11_fwd.hpp"

#include <optional>
#include <string>
#include <vector>

namespace tensor_inspect::app {

/// Everything `export` takes.
struct ExportOptions {
  std::string input;                 ///< a file, folder, URL or -
  std::vector<std::string> names;    ///< --name globs
  bool all = false;                  ///< --all
  std::optional<std::string> expr;   ///< -e over each tensor, named x
  std::optional<std::string> dtype;  ///< --dtype: cast the values
  std::string output;                ///< -o OUT
  std::optional<std::string> format; ///< --format npy|npz|safetensors (needed where OUT has no such extension: -)
  bool force = false;                ///< --force: replace an existing OUT
  std::vector<std::string> limits;   ///< --limit NAME=N (tensor_inspect/limits.hpp)
};

/// Adds the `export` subcommand to `app`, filling `o`; returns it (test `*sub` after parsing).
CLI::App* setup_export(CLI::App& app, ExportOptions& o);

/// Writes the file; returns 0. Throws tensor_inspect::Error for trouble (nothing is written then).
int run_export(const ExportOptions& o);

}  // namespace tensor_inspect::app
