// app/cli/option_groups.hpp — the command line's options kept in CLI11 option groups (one per
// --help heading) while --help shows them as the root's own, exactly as when they were.
//
// Why: CLI11 2.1 checks each new option against every earlier option of the same App, and
// each check copies the names it compares, so building a parser of 40 options cost 0.55M of
// the 1.03M instructions of `tensor-inspect 5`. Options in separate groups are checked only
// against their own group. Parsing is unchanged: CLI11 looks in nameless groups after the
// App's own options, and runs their callbacks and validators too. No option reads an
// environment variable through CLI11 (envname): CLI11 lets a subcommand's variable override
// the same option given before the subcommand, so the variables are read after parsing
// (remote_options.hpp).
#pragma once

#include "cli/cli11_fwd.hpp"

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tensor_inspect::app {

/// The names of the options one group will hold, known before it is built: long names
/// with their dashes and short letters, each list separated by spaces. Each setup function
/// that fills a group states its names beside it; check_option_names holds the two together.
struct OptionNames {
  std::string_view longs;   ///< "--header --full"
  std::string_view shorts;  ///< "v" for -v; "" for none
};

/// Which of `groups` the command line `argv` can reach, one flag per group, so that only
/// those are built: building CLI11's options of a group costs more than most runs (7,000
/// instructions and a page of heap per option). A group is reached by a word of argv
/// (any, also after `--`, which CLI11 does not always take as the end of options) that is
/// one of its long names (also as --name=value) or a short cluster (-vv) holding one of its
/// letters. A word that looks like an option (a '-' and more) and names no group's option
/// reaches every group, so --help, -h, unknown options and anything unforeseen (`-5`, `-ex.T`)
/// parse and fail exactly as with every group built. Words without a leading '-' (inputs,
/// literals, values, `-` for stdin) reach nothing.
std::vector<bool> reachable_groups(std::span<char* const> args, std::span<const OptionNames> groups);

/// Throws Error(Internal) naming the option when an option of `group` (a built group)
/// has a long name or short letter `names` does not list (a group skipped on its stated
/// names would make that option "not expected"), or reads an environment variable through
/// CLI11 (see the top of this file). Checked each time a group is built, so the test suite
/// meets every group. CLI11's help and version flags are not listed anywhere: their words
/// reach every group.
void check_option_names(const CLI::App& group, const OptionNames& names);

/// A nameless option group of `app` for the options of one --help heading (each option
/// still names its heading with ->group()). It has no help flag of its own, so --help is
/// the root's. Help lists its options under their headings only through help_formatter().
CLI::App& option_group(CLI::App& app);

/// Every option of `app` and of its nameless option groups, in the order they were added:
/// the root's own, then each group's.
std::vector<CLI::Option*> options_with_groups(CLI::App& app);

/// CLI11's formatter for --help (option_groups.cpp), made by main() alone: its class
/// derives from CLI11's, which only the files that build options include.
std::shared_ptr<CLI::FormatterBase> help_formatter();

}  // namespace tensor_inspect::app
