// app/commands/inspect/fast_list.cpp — see fast_list.hpp.
#include "commands/inspect/fast_list.hpp"

#include <string_view>

namespace tensor_inspect::app {

bool parse_plain_listing(int argc, const char* const* argv, Options& o) {
  if (argc != 3 && argc != 4) return false;
  const char* input = nullptr;
  bool list = false, json = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--list" && !list) {
      list = true;
    } else if (word == "--json" && !json) {
      json = true;
    } else if (!word.empty() && word[0] != '-' && !input && word != "diff" && word != "validate" && word != "hash" &&
               word != "export") {
      input = argv[i];  // CLI11 takes a word that is neither an option nor a subcommand's name for INPUT
    } else {
      return false;  // another option, `--`, `-`, an empty word, a second input, a subcommand
    }
  }
  if (!input || !list) return false;
  o.input = input;
  o.list = true;
  o.json = json;
  return true;
}

}  // namespace tensor_inspect::app
