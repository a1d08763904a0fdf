// tensor_inspect/selection.hpp — which tensors of a file a run inspects: repeatable --name with
// shell-style globs (fnmatch), or --all.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tensor_inspect/loader.hpp"

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

}  // namespace tensor_inspect
