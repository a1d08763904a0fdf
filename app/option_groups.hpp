// app/option_groups.hpp — the command line's options kept in CLI11 option groups (one per
// --help heading) while --help shows them as the root's own, exactly as when they were.
//
// Why: CLI11 2.1 checks each new option against every earlier option of the same App, and
// each check copies the names it compares, so building a parser of 40 options cost 0.55M of
// the 1.03M instructions of `tensor-inspect 5`. Options in separate groups are checked only
// against their own group. Parsing is unchanged: CLI11 looks in nameless groups after the
// App's own options, and runs their callbacks, validators and environment variables too.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace tensor_inspect::app {

/// A nameless option group of `app` for the options of one --help heading (each option
/// still names its heading with ->group()). It has no help flag of its own, so --help is
/// the root's. Help lists its options under their headings only through HelpFormatter.
CLI::App& option_group(CLI::App& app);

/// Every option of `app` and of its nameless option groups, in the order they were added:
/// the root's own, then each group's.
std::vector<CLI::Option*> options_with_groups(CLI::App& app);

/// CLI11's formatter, except that the root App's option headings also list the options of
/// its nameless groups, as if they were its own (same headings, same order, same layout as
/// CLI11's make_groups over one App). Subcommands' help is CLI11's unchanged.
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override;
};

}  // namespace tensor_inspect::app
