// app/cli/suggest.hpp — "did you mean --stats?" for an option the command line does not know:
// CLI11 only says it was not expected, so the closest known long name by edit distance is
// named beside its message.
#pragma once

#include "cli/cli11_fwd.hpp"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tensor_inspect::app {

/// The known name closest to `word` by Damerau-Levenshtein distance (a swap of neighbours
/// counts one), when it is close enough to be a typo: at most 1 edit for words up to 6
/// characters (dashes included), 2 up to 10, else 3; a word of 4 or more characters that
/// begins a name (`--stat` of `--stats`) is one edit from it.
/// "" when none is.
std::string closest_name(std::string_view word, const std::vector<std::string>& names);

/// " (did you mean --stats?)" for the first word of `args` that looks like a long option
/// (--word or --word=value) and is none of `app`'s or its subcommands' options, when one
/// is close; "" otherwise. `args` is argv without the program name.
std::string unknown_option_hint(const CLI::App& app, std::span<char* const> args);

}  // namespace tensor_inspect::app
