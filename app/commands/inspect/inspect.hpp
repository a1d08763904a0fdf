// app/commands/inspect/inspect.hpp — what the inspect mode's parts share: one selected tensor of the input
// (after -e) and what --graph shows of it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "cli/print_options.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/memoryview.hpp"
#include "tensor_inspect/selection.hpp"
#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect::app {

/// One tensor a run shows or checks (tensor_inspect/selection.hpp).
using Item = SelectedTensor;

/// What --graph shows (on stderr) of each tensor about to be computed: its lazy graph and
/// the kernels of its schedule, or the graph in dot; after an `== name ==` line naming
/// `heading` when given (one of several tensors, --all, globs). Empty without --graph.
ComputeHook graph_hook(const Options& o, const Item* heading = nullptr);

}  // namespace tensor_inspect::app
