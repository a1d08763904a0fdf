// app/main.cpp — wires the command line (cli/) to its verb (commands/) and the terminal
// (term/); errors are caught once, in run_reported.
#include <csignal>
#include <optional>

#include "cli/command_line.hpp"
#include "commands/inspect/fast_list.hpp"
#include "term/report.hpp"
#include "term/truncated_input.hpp"

namespace ti = tensor_inspect;

int main(int argc, char** argv) {
  // A reader that stops early (`| head -1`) ends the run quietly through SIGPIPE, as it
  // does for cat and grep, even when the parent ignored the signal. Other write errors
  // (a full disk) are reported when the run ends.
  std::signal(SIGPIPE, SIG_DFL);
  ti::app::report_truncated_inputs();  // a file cut short while mapped: one line, exit 2
  ti::app::CommandLine cl;
  // `FILE --list` without building CLI11's parser (fast_list.hpp); then the same run.
  if (!ti::app::parse_plain_listing(argc, argv, cl.inspect))
    if (const std::optional<int> done = ti::app::parse_command_line(argc, argv, cl)) return *done;
  ti::app::set_up_logging(cl.inspect.verbosity);
  return ti::app::run_reported([&] { return ti::app::run_command_line(cl); }, cl.json(), cl.input_label());
}
