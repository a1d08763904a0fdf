// app/cli/usage_faults.cpp — see usage_faults.hpp.
#include "cli/usage_faults.hpp"

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>

#include "cli/option_groups.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect::app {

const CLI::Validator& byte_offset_check() {
  static const CLI::Validator check(
      [](std::string& text) -> std::string {
        std::uint64_t v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec == std::errc() && end == text.data() + text.size() && !text.empty()) return "";
        return "'" + text + "' is not a byte offset: the offset must be a non-negative whole number of bytes (0 to " +
               std::to_string(UINT64_MAX) + ")";
      },
      "", "");
  return check;
}

void refuse_verbosity_values(std::span<char* const> args) {
  for (const char* arg : args) {
    const std::string_view a = arg;
    if (a == "--") return;
    if (a.size() < 3 || a[0] != '-' || a[1] != 'v') continue;
    const std::size_t after = a.find_first_not_of('v', 1);
    if (after == std::string_view::npos) continue;  // -v, -vv, -vvv
    if (a[after] == '=' || (a[after] >= '0' && a[after] <= '9'))
      throw Error(ErrorCode::Usage, "'" + std::string(a) +
                                        "': -v takes no value; repeat it for more output on stderr: " +
                                        "-v (info), -vv (debug) (see --help)");
  }
}

void take_repeats(CLI::Option& opt) {
  if (opt.nonpositional() && opt.get_items_expected_max() == 1)
    opt.multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

void refuse_repeats_and_empty_inputs(CLI::App& app, const std::string& prefix) {
  for (const CLI::Option* opt : options_with_groups(app)) {
    const CLI::results_t& given = opt->results();
    if (opt->nonpositional() && opt->get_items_expected_max() == 1 && given.size() > 1) {
      std::string values;
      for (std::size_t i = 0; i < given.size(); ++i)
        values += (i ? i + 1 == given.size() ? " and " : ", " : "") +
                  (given[i].empty() ? "(no value)" : "'" + given[i] + "'");
      const std::string times = given.size() == 2 ? "twice" : std::to_string(given.size()) + " times";
      throw Error(ErrorCode::Usage, prefix + opt->get_name() + " given " + times + " (" + values +
                                        "): it takes one value; give it once (see --help)");
    }
    if (!opt->nonpositional())
      for (const std::string& value : given)
        if (value.empty())
          throw Error(ErrorCode::Usage,
                      prefix + "empty input name: " + opt->get_name() +
                          " is '' (give a file path, a literal such as '[1, 2]', or - for standard input)");
  }
}

}  // namespace tensor_inspect::app
