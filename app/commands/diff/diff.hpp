// app/commands/diff/diff.hpp — `tensor-inspect diff A B`: two inputs of any formats compared tensor by
// tensor (matched by name, or by position when each holds one), with numpy.allclose's
// tolerance and h5diff's exit status: 0 all same, 1 any difference, 2 trouble.
#pragma once

#include <string>
#include <vector>

#include "cli/cli11_fwd.hpp"
#include "tensor_inspect/diff.hpp"

namespace tensor_inspect::app {

/// Everything `diff` takes: the inputs, the output, and how tensors pair and compare.
struct DiffOptions {
  std::string a, b;                      ///< two inputs: files, folders, literals
  std::string tolerance_given;           ///< "--rtol" or "--atol" when one was given (--exact refuses them)
  bool json = false;                     ///< one "diff" JSON object
  bool stored = false;                   ///< --stored: quantization schemes' parts as stored, not their logical tensors
  bool jsonl = false;                    ///< JSON Lines: a "diff_tensor" per pair, then a "diff_summary"
  std::vector<std::string> limits;       ///< --limit NAME=N: raise a resource cap (tensor_inspect/limits.hpp)
  tensor_inspect::DiffOptions settings;  ///< pairing and tolerance (tensor_inspect/diff.hpp)
};

/// Adds the `diff` subcommand to `app`, filling `o`; returns it (test `*sub` after parsing).
CLI::App* setup_diff(CLI::App& app, DiffOptions& o);

/// Runs a diff; returns 0 when every tensor is the same, 1 when any differs or is on one
/// side only. Throws tensor_inspect::Error for trouble (unreadable input, bad option).
int run_diff(const DiffOptions& o);

}  // namespace tensor_inspect::app
