// tensor_inspect/show_selected.hpp — selected tensors (selection.hpp, input.hpp) printed as the
// inspect mode prints them: each one's memoryview with --strict and --view-as applied, its
// printed elements read lazily where a cast allows, and several of them as text blocks under
// their names, one JSON object, or JSON Lines streamed.
//
//   ti::ResolvedInput in = ti::resolve_input(request, {});
//   ti::OutBuffer out(stdout);
//   ti::print_selected(in.items[0], {}, {}, false, {}, out);   // "dtype: float32\n...tolist: [...]\n"
#pragma once

#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tensor_inspect/memoryview.hpp"
#include "tensor_inspect/print_tensor.hpp"
#include "tensor_inspect/selection.hpp"

namespace tensor_inspect {

/// How selected tensors are shown (the inspect mode's --strict, --view-as, -e).
struct ShowOptions {
  Defaults defaults;                 ///< what Python numbers commit to (--default-float, --default-int)
  bool strict = false;               ///< fail where Tensor.data() fails (no struct format: bfloat16, fp8)
  std::vector<std::string> view_as;  ///< --view-as casts, in order (cast_view_as)
  bool computed = false;             ///< the tensors are an expression's results: no stored CRC-32 to check
};

/// The memoryview `item` shows: Tensor.data() of its tensor when `realized` (`computing`,
/// when set, hears of the tensor first; the loader's note is logged at -v), else only
/// data_header()'s fields (nothing read); with --strict and the --view-as casts applied.
/// Throws Error naming the tensor.
MemoryView selected_memoryview(const SelectedTensor& item, const ShowOptions& options, bool realized,
                               const ComputeHook& computing = {});

/// Where print_tensor takes an item's printed elements from (after --view-as).
struct ShownTensor {
  Tensor tensor;               ///< the item's tensor, or the lazy cast of a byte-swapped stored buffer
  bool reinterpreted = false;  ///< only the realized, cast view holds them (--view-as over computed bytes)
};

/// The item's ShownTensor: with --view-as over a byte-swapped file (a big-endian .npy), the
/// cast view's elements as a lazy tensor (cast_of_swapped), so a summary reads only the
/// shown ones. Reads nothing. Throws Error for a --view-as that does not fit.
ShownTensor selected_shown(const SelectedTensor& item, const ShowOptions& options);

/// print_tensor of `item` (json_options.head set to its file and name), after its stored
/// .npz member's CRC-32 is checked when printing reads every byte anyway (not computed, not
/// --header, not summarized). `prefix` and `computing` as print_tensor takes them. Throws
/// Error naming the tensor; nothing is written then.
void print_selected(const SelectedTensor& item, const ShowOptions& options, const PrintFlags& flags, bool json,
                    JsonOptions json_options, OutBuffer& out, const std::function<void(OutBuffer&)>& prefix = {},
                    const ComputeHook& computing = {});

/// How several tensors are written: text blocks under `== name ==` lines, one "tensors" JSON
/// object listing them, or one "tensor" object per line (JSON Lines), flushed as each is done.
enum class TensorsOutput { Text, Json, Jsonl };

/// Several selected tensors, each printed as it would be alone (print_selected). Every
/// header is checked first (--strict, --view-as), so a refusal comes before the first tensor
/// is written; a tensor that fails later leaves the ones before it written, never half a
/// block. `file` names the input in the JSON object. `computing_for` gives each tensor's
/// hook (empty: none). With Jsonl, `to` is flushed after each line.
void print_selected_many(const std::vector<SelectedTensor>& items, const std::optional<std::string>& file,
                         const ShowOptions& options, const PrintFlags& flags, TensorsOutput output,
                         const JsonOptions& json_options, std::FILE* to,
                         const std::function<ComputeHook(const SelectedTensor&)>& computing_for = {});

}  // namespace tensor_inspect
