// tensor_inspect/selection.hpp — which tensors of a file a run inspects: repeatable --name with
// shell-style globs (fnmatch), or --all.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect {

/// True when `pattern` holds a glob character (`*`, `?`, `[`).
bool is_glob(const std::string& pattern);

/// True when `name` is `pattern` itself or matches it as a shell glob (fnmatch without
/// flags: `*` also matches dots and slashes, as in `model.layers.*.mlp.*`).
bool glob_matches(const std::string& pattern, const std::string& name);

/// Up to five names of `entries` close to `want` (substring or small edit distance), for
/// "no tensor named ..." messages.
std::vector<std::string> close_matches(const std::string& want, const std::vector<TensorEntry>& entries);

/// True when a tensor of `file` is named `pattern` exactly, glob characters and all.
bool names_a_tensor(const LoadedFile& file, const std::string& pattern);

/// Indices of the entries of `file` (file order, each once) that `all` or any of
/// `patterns` selects. A pattern that is a tensor's exact name (names_a_tensor: a PyTorch
/// `['a.b']`, a `w[0]`) selects the tensors of that name only, never what it would match
/// as a glob; any other pattern is a glob (glob_matches). Throws Error(NotFound) naming the
/// first pattern that matches nothing, with close matches.
std::vector<std::size_t> select_entries(const LoadedFile& file, const std::vector<std::string>& patterns, bool all);

/// One tensor a run shows, checks or scans: where it comes from, the lazy tensor (after any
/// expression applied to it) and what its file entry says.
struct SelectedTensor {
  std::optional<std::string> file;  ///< the path ("<stdin>" for standard input); nullopt for a literal or expression
  std::optional<std::string> name;  ///< its name in the file; nullopt when unnamed (a lone .npy, a literal)
  Tensor tensor;                    ///< the input after -e (lazy: nothing read yet)
  std::string label;                ///< how messages name it: "model.safetensors: tensor 'w'", "" for a literal
  std::string note;                 ///< the loader's note (logged at -v)
  std::optional<TensorEntry> entry; ///< the file entry it came from (statistics scan GGUF blocks in place)
  std::string load_error;           ///< why its values cannot be shown (statistics skip it); empty when they can
};

/// The SelectedTensor of `entry` of `file` (entry.load(): lazy, nothing read). With
/// `tolerate_unsupported` (statistics: such a tensor is a skipped row; --expect: its header
/// facts still hold), a tensor whose values cannot be shown (error.hpp's cannot_show)
/// keeps the reason in load_error and an empty tensor; otherwise that Error,
/// and any other of loading, is thrown naming the tensor.
SelectedTensor selected_tensor_of(const LoadedFile& file, const TensorEntry& entry, bool tolerate_unsupported);

}  // namespace tensor_inspect
