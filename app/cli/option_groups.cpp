// app/cli/option_groups.cpp — see option_groups.hpp.
#include "cli/option_groups.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <sstream>

#include "tensor_inspect/error.hpp"

namespace tensor_inspect::app {

namespace {

// `word` is one of the space-separated words of `list`.
bool listed(std::string_view list, std::string_view word) {
  while (!list.empty()) {
    const std::size_t end = std::min(list.find(' '), list.size());
    if (list.substr(0, end) == word) return true;
    list.remove_prefix(std::min(end + 1, list.size()));
  }
  return false;
}

// The first of `groups` that lists `word` (a long name, or a letter), or npos.
template <typename Field>
std::size_t group_of(std::span<const OptionNames> groups, std::string_view word, Field field) {
  for (std::size_t g = 0; g < groups.size(); ++g)
    if (listed(groups[g].*field, word)) return g;
  return std::string_view::npos;
}

}  // namespace

std::vector<bool> reachable_groups(std::span<char* const> args, std::span<const OptionNames> groups) {
  std::vector<bool> reach(groups.size(), false);
  for (const char* arg : args) {
    // Every word, also after a `--`: CLI11 takes a `--` after an option of optional or
    // many values (--hist, --graph, --name) as the end of those values and parses options
    // again after it. A group built for a word that turns out positional costs time only.
    const std::string_view a = arg;
    if (a.size() < 2 || a[0] != '-' || a == "--") continue;
    std::vector<std::size_t> hit;
    if (a[1] == '-') {
      hit.push_back(group_of(groups, a.substr(0, a.find('=')), &OptionNames::longs));
    } else {
      for (std::size_t i = 1; i < a.size(); ++i) hit.push_back(group_of(groups, a.substr(i, 1), &OptionNames::shorts));
    }
    for (const std::size_t g : hit) {
      if (g == std::string_view::npos) return std::vector<bool>(groups.size(), true);
      reach[g] = true;
    }
  }
  return reach;
}

void check_option_names(const CLI::App& group, const OptionNames& names) {
  for (const CLI::Option* opt : group.get_options()) {
    const bool builtin =
        opt == group.get_help_ptr() || opt == group.get_help_all_ptr() || opt == group.get_version_ptr();
    if (!opt->nonpositional() || builtin) continue;
    if (!opt->get_envname().empty())
      throw Error(ErrorCode::Internal,
                  "option " + opt->get_name() + " reads " + opt->get_envname() +
                      " through CLI11, which lets a subcommand's variable override the option given before "
                      "the subcommand: read it after parsing (app/cli/option_groups.hpp)");
    bool ok = true;
    for (const std::string& l : opt->get_lnames()) ok = ok && listed(names.longs, "--" + l);
    for (const std::string& s : opt->get_snames()) ok = ok && listed(names.shorts, s);
    if (!ok)
      throw Error(ErrorCode::Internal,
                  "option " + opt->get_name() + " is missing from its group's OptionNames (app/cli/option_groups.hpp)");
  }
}

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

namespace {

/// CLI11's formatter, except that the root App's option headings also list the options of
/// its nameless groups, as if they were its own (same headings, same order, same layout as
/// CLI11's make_groups over one App). Subcommands' help is CLI11's unchanged.
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override;
};

}  // namespace

std::shared_ptr<CLI::FormatterBase> help_formatter() { return std::make_shared<HelpFormatter>(); }

std::string HelpFormatter::make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const {
  if (mode == CLI::AppFormatMode::Sub || app->get_parent() != nullptr)
    return CLI::Formatter::make_help(app, std::move(name), mode);
  // CLI11's make_help for a root App, with make_groups taken over the options of the App and
  // of its nameless groups together.
  const std::vector<const CLI::Option*> all = merged_options(*app);
  std::vector<std::string> headings;  // in order of first appearance, as App::get_groups()
  for (const CLI::Option* opt : all)
    if (std::find(headings.begin(), headings.end(), opt->get_group()) == headings.end())
      headings.push_back(opt->get_group());
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
