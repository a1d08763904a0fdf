// tensor_inspect/print_tensor.hpp — one tensor printed as the inspect mode prints it: in full,
// summarized as NumPy does (threshold, edgeitems) or its memoryview's fields alone (header),
// as text or JSON, computing no more than what is shown.
//
//   ti::OutBuffer out(stdout);
//   auto view = [&](bool realized) { return realized ? ti::data(t) : ti::data_header(t); };
//   ti::print_tensor(t, view, false, {}, false, {}, out);   // "dtype: float32\n...tolist: [...]\n"
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "tensor_inspect/render.hpp"
#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect {

/// How a tensor is printed (the inspect mode's --header, --full, --threshold, --edgeitems).
struct PrintFlags {
  bool header = false;                     ///< the memoryview's fields, no tolist, no data read
  bool full = false;                       ///< every element (NumPy's threshold=sys.maxsize)
  std::optional<std::int64_t> threshold;   ///< summarize above N elements (text default 1000)
  std::optional<std::int64_t> edgeitems;   ///< items at each end of an elided axis (default 3)
};

/// The print options in effect, or nullopt for "print every element": `full`, or JSON
/// without threshold/edgeitems (scripts asked for the data). Text summarizes by default.
std::optional<PrintOptions> print_options(const PrintFlags& flags, bool json);

/// True when print_tensor reads every element of `t`: not `header`, and not summarized
/// (or `reinterpreted`, when the whole view is realized). Reads nothing.
bool prints_every_element(const Tensor& t, bool reinterpreted, const PrintFlags& flags, bool json);

/// Called with each tensor print_tensor is about to realize itself (a summary's shown
/// elements), so a caller can show what is computed (--graph); empty: nothing is called.
using ComputeHook = std::function<void(const Tensor& computed)>;

/// Writes the tensor as `flags` ask. `view(realized)` gives its memoryview with any casts
/// applied: data() when `realized`, else data_header() (nothing read). `t` holds the view's
/// elements lazily (the tensor, or the lazy cast of a byte-swapped file: cast_of_swapped),
/// and a summary realizes only its shown elements; unless `reinterpreted` (a cast changed
/// the format of computed bytes), when they are taken from the realized view. Everything
/// that can fail happens before the first byte is written; `prefix`, when set, writes first
/// (a block's `== name ==` line), once everything is computed; `computing`, when set, is
/// called with the tensor of a summary's shown elements before it is realized. Throws what
/// `view` and realizing throw.
void print_tensor(const Tensor& t, const std::function<MemoryView(bool realized)>& view, bool reinterpreted,
                  const PrintFlags& flags, bool json, const JsonOptions& json_options, OutBuffer& out,
                  const std::function<void(OutBuffer&)>& prefix = {}, const ComputeHook& computing = {});

}  // namespace tensor_inspect
