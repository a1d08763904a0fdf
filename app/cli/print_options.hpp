// app/cli/print_options.hpp — how the inspected tensor is printed: in full, summarized as
// NumPy does (--threshold, --edgeitems, --full) or its fields alone (--header): the options;
// the printing is the library's (tensor_inspect/print_tensor.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "cli/cli11_fwd.hpp"
#include "cli/option_groups.hpp"

#include "tensor_inspect/print_tensor.hpp"

namespace tensor_inspect::app {

/// Adds --header, --full, --threshold and --edgeitems to `cli` (group "Printing").
inline constexpr OptionNames kPrintOptionNames{"--header --full --threshold --edgeitems", ""};
void setup_print_options(CLI::App& cli, PrintFlags& flags);

}  // namespace tensor_inspect::app
