// app/cli/print_options.hpp — how the inspected tensor is printed: in full, summarized as
// NumPy does (--threshold, --edgeitems, --full) or its fields alone (--header).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "cli/cli11_fwd.hpp"
#include "cli/option_groups.hpp"

#include "tensor_inspect/render.hpp"

namespace tensor_inspect::app {

struct PrintFlags {
  bool header = false;                     ///< --header: the memoryview's fields, no tolist, no data read
  bool full = false;                       ///< --full: every element (NumPy's threshold=sys.maxsize)
  std::optional<std::int64_t> threshold;   ///< --threshold N: summarize above N elements (text default 1000)
  std::optional<std::int64_t> edgeitems;   ///< --edgeitems N: items at each end of an elided axis (default 3)
};

/// Adds --header, --full, --threshold and --edgeitems to `cli` (group "Printing").
inline constexpr OptionNames kPrintOptionNames{"--header --full --threshold --edgeitems", ""};
void setup_print_options(CLI::App& cli, PrintFlags& flags);

/// The print options in effect, or nullopt for "print every element": --full, or JSON
/// without --threshold/--edgeitems (scripts asked for the data). Text summarizes by default.
std::optional<PrintOptions> print_options(const PrintFlags& flags, bool json);

/// True when print_tensor reads every element of `t`: not --header, and not summarized
/// (or `reinterpreted`, when the whole view is realized). Reads nothing.
bool prints_every_element(const Tensor& t, bool reinterpreted, const PrintFlags& flags, bool json);

/// Called with each tensor print_tensor is about to realize itself (a summary's shown
/// elements), so --graph can show what is computed; empty: nothing is called.
using ComputeHook = std::function<void(const Tensor& computed)>;

/// Writes the tensor as `flags` ask. `view(realized)` gives its memoryview with the
/// --view-as casts applied: data() when `realized`, else data_header() (nothing read).
/// `t` holds the view's elements lazily (the tensor, or the lazy cast of a byte-swapped
/// file: cast_of_swapped), and a summary realizes only its shown elements; unless
/// `reinterpreted` (--view-as changed the format of computed bytes), when they are taken
/// from the realized view. Everything that can fail happens before the first byte is
/// written; `prefix`, when set, writes first (a block's `== name ==` line), once
/// everything is computed; `computing`, when set, is called with the tensor of a
/// summary's shown elements before it is realized (the whole view is realized by `view`).
void print_tensor(const Tensor& t, const std::function<MemoryView(bool realized)>& view, bool reinterpreted,
                  const PrintFlags& flags, bool json, const JsonOptions& json_options, OutBuffer& out,
                  const std::function<void(OutBuffer&)>& prefix = {}, const ComputeHook& computing = {});

}  // namespace tensor_inspect::app
