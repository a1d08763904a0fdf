// app/option_groups.cpp — see option_groups.hpp.
#include "option_groups.hpp"

#include <algorithm>
#include <sstream>

namespace tensor_inspect::app {

CLI::App& option_group(CLI::App& app) {
  CLI::App* group = app.add_option_group("");  // no heading of its own: its options name theirs
  group->set_help_flag();                      // the App constructor copied the root's
  return *group;
}

namespace {

// The options of `app` (CLI::App or const CLI::App), then those of each nameless group.
template <class AppT>
auto merged_options(AppT& app) {
  auto all = app.get_options();
  for (AppT* sub : app.get_subcommands([](AppT* s) { return s->get_name().empty(); })) {
    const auto more = sub->get_options();
    all.insert(all.end(), more.begin(), more.end());
  }
  return all;
}

}  // namespace

std::vector<CLI::Option*> options_with_groups(CLI::App& app) { return merged_options(app); }

std::string HelpFormatter::make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const {
  if (mode == CLI::AppFormatMode::Sub || app->get_parent() != nullptr) return CLI::Formatter::make_help(app, std::move(name), mode);
  // CLI11's make_help for a root App, with make_groups taken over the options of the App and
  // of its nameless groups together.
  const std::vector<const CLI::Option*> all = merged_options(*app);
  std::vector<std::string> headings;  // in order of first appearance, as App::get_groups()
  for (const CLI::Option* opt : all)
    if (std::find(headings.begin(), headings.end(), opt->get_group()) == headings.end()) headings.push_back(opt->get_group());
  std::stringstream groups;
  for (const std::string& heading : headings) {
    std::vector<const CLI::Option*> opts;
    for (const CLI::Option* opt : all)
      if (opt->get_group() == heading && opt->nonpositional()) opts.push_back(opt);
    if (!heading.empty() && !opts.empty()) {
      groups << make_group(heading, false, opts);
      if (heading != headings.back()) groups << "\n";
    }
  }
  std::stringstream out;
  out << make_description(app) << make_usage(app, name) << make_positionals(app) << groups.str()
      << make_subcommands(app, mode) << '\n'
      << make_footer(app);
  return out.str();
}

}  // namespace tensor_inspect::app
