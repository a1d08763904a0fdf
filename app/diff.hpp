// app/diff.hpp — `tensor-inspect diff A B`: two inputs of any formats compared tensor by
// tensor (matched by name, or by position when each holds one), with numpy.allclose's
// tolerance and h5diff's exit status: 0 all same, 1 any difference, 2 trouble.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace tensor_inspect::app {

/// Everything `diff` takes.
struct DiffOptions {
  std::string a, b;                       ///< two inputs: files, folders, literals
  std::vector<std::string> names;         ///< --name globs on A's names (or renamed names); partners in B come along
  std::vector<std::string> renames;       ///< --rename FROM=TO: A's tensor FROM is B's TO
  std::vector<std::string> rename_regex;  ///< --rename-regex REGEX=REPLACEMENT on A's names, in order
  double rtol = 1e-05, atol = 1e-08;      ///< numpy.allclose's defaults
  std::string tolerance_given;            ///< "--rtol" or "--atol" when one was given (--exact refuses them)
  bool nan_differs = false;               ///< NaN vs NaN is a difference (default: equal, as h5diff)
  bool exact = false;                     ///< compare bits
  bool ignore_dtype = false;              ///< values decide: a dtype mismatch within tolerance is "same"
  bool json = false;                      ///< one "diff" JSON object
  bool stored = false;                    ///< --stored: quantization schemes' parts as stored, not their logical tensors
  bool jsonl = false;                     ///< JSON Lines: a "diff_tensor" per pair, then a "diff_summary"
  std::vector<std::string> limits;        ///< --limit NAME=N: raise a resource cap (tensor_inspect/limits.hpp)
  std::string tolerance;                  ///< --tolerance torch: assert_close's defaults per pair; "" numpy.allclose's
  std::string names_map;                  ///< --names hf-gguf: llama.cpp converter's names and q/k permutation
};

/// Adds the `diff` subcommand to `app`, filling `o`; returns it (test `*sub` after parsing).
CLI::App* setup_diff(CLI::App& app, DiffOptions& o);

/// Runs a diff; returns 0 when every tensor is the same, 1 when any differs or is on one
/// side only. Throws tensor_inspect::Error for trouble (unreadable input, bad option).
int run_diff(const DiffOptions& o);

}  // namespace tensor_inspect::app
