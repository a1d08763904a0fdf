// app/cli/command_line.hpp — the command line parsed once into what the run does: the
// main command (inspect, list, statistics, checks) or one subcommand, each with its options,
// and every usage fault refused with one line before any input is opened.
//
//   CommandLine cl;
//   if (std::optional<int> done = parse_command_line(argc, argv, cl)) return *done;  // --help, a usage error
//   return run_command_line(cl);
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "cli/options.hpp"
#include "cli/remote_options.hpp"
#include "commands/diff/diff.hpp"
#include "commands/export/export.hpp"
#include "commands/hash/hash.hpp"
#include "commands/validate/validate.hpp"

namespace CLI {
class App;
}  // namespace CLI

namespace tensor_inspect::app {

/// Which verb runs: the main command or one of the subcommands.
enum class Verb { Inspect, Diff, Validate, Hash, Export };

/// Everything the command line said: the verb, and the options of each (only the verb's are filled).
struct CommandLine {
  CommandLine();
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;
  Verb verb = Verb::Inspect;
  Options inspect;  ///< the main command's
  DiffOptions diff;
  ValidateOptions validate;
  HashOptions hash;
  ExportOptions exporter;
  RemoteFlags remote;                ///< --cache, --timeout, ... (every verb)
  int sub_verbosity = 0;             ///< -v after a subcommand's name (added to inspect.verbosity)
  std::unique_ptr<CLI::App> parser;  ///< CLI11's parser, which the options were parsed by
  /// True when errors are written as one JSON object: the verb's --json (or --jsonl).
  bool json() const;
  /// How an out-of-memory message names the input: its name, the expression, or "input".
  std::string input_label() const;
};

/// Parses `argv` into `cl`. Returns the exit status when the run ends here: 0 after --help
/// or --version (2 when their page could not be written), 2 after a usage error, reported
/// on stderr; nullopt when `cl` is ready to run.
std::optional<int> parse_command_line(int argc, char** argv, CommandLine& cl);

/// Applies the remote options and runs the verb; returns its exit status. Throws
/// tensor_inspect::Error for trouble.
int run_command_line(const CommandLine& cl);

}  // namespace tensor_inspect::app
