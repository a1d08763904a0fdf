// tensor_inspect/listing.hpp — the listing (--list) and metadata (--meta) of a tensor file, in text
// and JSON; both come from the header alone and never read tensor data.
#pragma once

#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/render.hpp"

namespace tensor_inspect {

/// One row per tensor: name, dtype, shape, nbytes, offset, stored type (text: aligned
/// columns, control characters escaped; JSON: {"file", "format", "tensors": [...]}).
void render_listing(const LoadedFile& file, bool json, OutBuffer& out);
/// The tensors' names as they are (no escaping: for programs), each followed by a NUL
/// byte, in file order; an unnamed tensor (a lone .npy) writes nothing. --list0.
void render_names0(const LoadedFile& file, OutBuffer& out);
/// The file's metadata key/values (text: `key: value`, arrays of more than 8 items shortened
/// to their first and last 3 and their count unless `full`; JSON: all).
void render_meta(const LoadedFile& file, bool json, bool full, OutBuffer& out);

}  // namespace tensor_inspect
