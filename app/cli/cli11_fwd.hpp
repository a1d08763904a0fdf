// app/cli/cli11_fwd.hpp — CLI11's classes by name, for the app headers that only pass them
// around. <CLI/CLI.hpp> stays in the .cpp files that build options: each file that includes
// it constructs CLI11's eight global validators at start-up.
#pragma once

namespace CLI {
class App;
class FormatterBase;
class Option;
class Validator;
}  // namespace CLI
