// app/cli/print_options.cpp — full, summarized (NumPy's print options) or header-only output.
#include "cli/print_options.hpp"

#include <CLI/CLI.hpp>
#include <charconv>
#include <string>

namespace tensor_inspect::app {
namespace {

// A count of elements: a whole number from 0 to 2^63 - 1.
const CLI::Validator kCount(
    [](std::string& text) -> std::string {
      std::int64_t v = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || end != text.data() + text.size() || v < 0)
        return "'" + text + "' is not a whole number from 0 to 9223372036854775807";
      return "";
    },
    "", "");

}  // namespace

void setup_print_options(CLI::App& cli, PrintFlags& flags) {
  auto* group = "Printing";
  cli.add_flag("--header", flags.header, "the memoryview's fields without tolist; the data is not read or computed")
      ->group(group);
  cli.add_flag("--full", flags.full,
               "print every element (text summarizes above --threshold; with --meta: every array item); "
               "wins over both options below")
      ->group(group);
  cli.add_option("--threshold", flags.threshold,
                 "summarize above N elements, as NumPy prints (text default 1000; JSON is complete unless this or "
                 "--edgeitems is given)")
      ->check(kCount)
      ->type_name("N")
      ->group(group);
  cli.add_option("--edgeitems", flags.edgeitems, "items shown at each end of a summarized axis (default 3)")
      ->check(kCount)
      ->type_name("N")
      ->group(group);
}

}  // namespace tensor_inspect::app
