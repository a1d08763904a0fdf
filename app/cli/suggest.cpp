// app/cli/suggest.cpp — see suggest.hpp.
#include "cli/suggest.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>

namespace tensor_inspect::app {
namespace {

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
// neighbouring characters each cost one (--stst for --stats is one swap and one insertion).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

void collect(const CLI::App& app, std::vector<std::string>& names) {
  for (const CLI::Option* opt : app.get_options())
    for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    collect(*sub, names);  // option groups and subcommands
}

}  // namespace

std::string closest_name(std::string_view word, const std::vector<std::string>& names) {
  if (word.size() > 64) return "";  // no typo of a name this long; keeps the table small
  const std::size_t allowed = word.size() <= 6 ? 1 : word.size() <= 10 ? 2 : 3;  // with the dashes
  std::string best;
  std::size_t best_distance = allowed + 1;
  for (const std::string& name : names) {
    std::size_t dist = edit_distance(word, name);
    if (word.size() >= 4 && name.starts_with(word)) dist = std::min<std::size_t>(dist, 1);  // --stat, --fail
    if (dist < best_distance) {
      best_distance = dist;
      best = name;
    }
  }
  return best;
}

std::string unknown_option_hint(const CLI::App& app, std::span<char* const> args) {
  std::vector<std::string> names;
  collect(app, names);
  for (const char* arg : args) {
    const std::string_view a = arg;
    if (a == "--") break;
    if (a.size() < 3 || !a.starts_with("--")) continue;
    const std::string_view word = a.substr(0, a.find('='));
    if (std::find(names.begin(), names.end(), word) != names.end()) continue;
    const std::string near = closest_name(word, names);
    if (!near.empty()) return " (did you mean " + near + "?)";
    return "";
  }
  return "";
}

}  // namespace tensor_inspect::app
