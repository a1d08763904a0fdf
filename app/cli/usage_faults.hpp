// app/cli/usage_faults.hpp — command-line faults CLI11 words badly or lets through, each
// turned into one line naming the option and the value: a repeated one-value option
// (CLI11: "At Most 1 required but received 2"), -v given a value (-v=2 parsed as -v and an
// argument "-=2"; -v2 took 2 for INPUT), an empty INPUT ('' read standard input under
// --raw, and "nothing to inspect" otherwise), and a byte offset that is not a whole number
// of bytes (CLI11 printed a 309-digit bound; 1e30 wrapped to 2^64 - 1).
//
//   refuse_verbosity_values(args);                  // before cli.parse: -v=2, -v2
//   for (CLI::Option* opt : options) take_repeats(*opt);
//   cli.parse(argc, argv);
//   refuse_repeats_and_empty_inputs(cli);           // after: --dtype a --dtype b, ''
#pragma once

#include "cli/cli11_fwd.hpp"

#include <span>
#include <string>

namespace tensor_inspect::app {

/// CLI11 check of --offset: a whole number of bytes from 0 to 2^64 - 1.
const CLI::Validator& byte_offset_check();

/// Throws Error(Usage) for a word of `args` (argv without the program, up to `--`) that
/// gives -v a value (-v=2, -v2, -vv=1): -v counts, as -vv does.
void refuse_verbosity_values(std::span<char* const> args);

/// Lets `opt`, when it takes one value (not a flag, not repeatable), be given more than
/// once during the parse (CLI11 keeps every value it was given in results()), so that
/// refuse_repeats_and_empty_inputs names them after it; other options are left alone.
void take_repeats(CLI::Option& opt);

/// Throws Error(Usage) naming the first option of `app` (and of its nameless groups)
/// given more than once although it takes one value, with the values given; or the first
/// positional (INPUT, diff's A and B, validate's FILE) given as an empty string.
/// `prefix` starts the message ("diff: " for a subcommand, "" for the main command).
void refuse_repeats_and_empty_inputs(CLI::App& app, const std::string& prefix);

}  // namespace tensor_inspect::app
