// tensor_inspect/overview.hpp — `--overview`: a checkpoint at a glance from its headers alone. Tensors
// whose names differ only in their numeric parts (layer and expert indices) and that share
// a stored type and shape are one row (`model.layers.{0..31}.mlp.down_proj.weight  bfloat16
// (4096, 14336)  ×32`), rows in natural order; above them the architecture facts of
// config.json or GGUF metadata and the totals, with the parameter count the facts imply.
#pragma once

#include <string>

#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/render.hpp"

namespace tensor_inspect {

/// Writes the overview of `file`, opened from `input` (a model folder's config.json is
/// read from `input`): text, or with `json` one object of kind "overview".
void render_overview(const std::string& input, const LoadedFile& file, bool json, OutBuffer& out);

}  // namespace tensor_inspect
