// app/commands/inspect/inspect.hpp — what the inspect mode's parts share: one selected tensor of the input
// (after -e) and the way to its memoryview.
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

/// True when INPUT is read as a Python literal: no such file, and it starts like a value.
bool is_literal_input(const std::string& input);

/// Tensor.data() of the item with --strict, --graph and --view-as applied; `labelled`: the
/// graph under the item's `== name ==` line (one of several tensors). Throws Error.
MemoryView item_view(const Item& item, const Options& o, const Defaults& defaults, bool labelled = false);

/// Tensor.data() of the item (realized), or only its fields (data_header(): nothing
/// read), with --strict and the --view-as casts applied. Throws Error.
MemoryView item_memoryview(const Item& item, const Options& o, const Defaults& defaults, bool realized,
                           bool labelled = false);

/// What --graph shows (on stderr) of each tensor about to be computed: its lazy graph and
/// the kernels of its schedule, or the graph in dot; after an `== name ==` line naming
/// `heading` when given (one of several tensors, --all, globs). Empty without --graph.
ComputeHook graph_hook(const Options& o, const Item* heading = nullptr);

/// Where print_tensor takes an item's printed elements from (after --view-as).
struct Shown {
  Tensor tensor;               ///< the item's tensor, or the lazy cast of a byte-swapped stored buffer
  bool reinterpreted = false;  ///< only the realized, cast view holds them (--view-as over computed bytes)
};

/// The item's Shown: with --view-as over a byte-swapped file (a big-endian .npy), the cast
/// view's elements as a lazy tensor (cast_of_swapped), so a summary reads only the shown
/// ones. Reads nothing. Throws Error for a --view-as that does not fit.
Shown item_shown(const Item& item, const Options& o, const Defaults& defaults);

/// Runs the item's check_whole (a stored .npz member's CRC-32) when printing it reads
/// every byte anyway (no -e, not --header, not summarized). Throws Error(BadFile).
void check_whole_read(const Item& item, const Shown& shown, const Options& o, bool json);

/// Several tensors: text blocks under their names, one JSON object listing them
/// (--json), or one object per line, flushed as each is done (--jsonl). Returns 0.
int run_many(const std::vector<Item>& items, const Options& o, const Defaults& defaults);

}  // namespace tensor_inspect::app
