// app/term/report.hpp — what reaches the terminal besides a verb's output: the loggers at
// the -v level, the one line an error becomes (a JSON object under --json), and the exit
// status of DESIGN.md (0 success, 1 a check failed or a difference, 2 trouble).
//
//   set_up_logging(verbosity);
//   return run_reported([&] { return run_command_line(cl); }, cl.json(), cl.input_label());
#pragma once

#include <functional>
#include <string>

#include "tensor_inspect/error.hpp"

namespace tensor_inspect::app {

/// Prints `e` as one line on stderr (a JSON "error" object when `json`), after clearing a
/// progress line, and returns its exit status. Whatever was buffered for stdout is
/// discarded: nothing is ever printed half.
int report(const Error& e, bool json);

/// spdlog's logger and the library's (tensor_inspect/log.hpp) speaking as the tool on
/// stderr, at the level of -v (`verbosity` 0: warnings, 1: info, 2: debug); the kernels'
/// progress line on a terminal.
void set_up_logging(int verbosity);

/// Runs `run` and ends the process with its status once standard output has reached its
/// destination; output that did not (a full disk) is trouble. Returns the status of an
/// exception `run` throws, reported: an Error as it is, out of memory and a path the OS
/// refused as one line naming `input`, anything else as an internal error.
int run_reported(const std::function<int()>& run, bool json, const std::string& input);

}  // namespace tensor_inspect::app
