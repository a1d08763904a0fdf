// app/commands/inspect/fast_list.hpp — the everyday listing's command line, `FILE --list`
// (or `FILE --list --json`), read without building CLI11's parser.
//
// Why: building the parser and parsing with it costs a listing about 200,000 instructions
// and some thirty fresh pages, as much as listing a 2,000-tensor GGUF header (bench/README.md,
// "GGUF listings against gguf-tools"). The words are taken exactly as CLI11 takes them: the
// one word without a leading '-' is INPUT and --list (and --json) set their flags; every
// other command line goes to parse_command_line. The run after it is the same code either way.
//
//   CommandLine cl;
//   if (!parse_plain_listing(argc, argv, cl.inspect)) ... parse_command_line(argc, argv, cl) ...
#pragma once

#include "cli/options.hpp"

namespace tensor_inspect::app {

/// True, with `o` filled as CLI11 would fill it, when argv (argv[0] the program) is INPUT
/// and --list, and maybe --json, each once and in any order, where INPUT is not empty,
/// does not start with '-' and is no subcommand's name (diff, validate, hash, export).
/// False, `o` untouched, for any other command line: another option, `--`, `-` (stdin),
/// several inputs, a repeated flag.
bool parse_plain_listing(int argc, const char* const* argv, Options& o);

}  // namespace tensor_inspect::app
