// app/commands/inspect/open_logged.hpp — opening an input with what -v says about it: the library logs each
// file it parses (format, counts, header time); a model folder, which the library opens as
// one checkpoint without a line of its own, is logged here with its tensors and time.
#pragma once

#include <optional>
#include <string>

#include "tensor_inspect/loader.hpp"

namespace tensor_inspect::app {

/// open_file(path, format), logging a folder at -v: "dir: folder opened as a safetensors
/// checkpoint: 3 tensors in 2 files, 64 bytes stored; 0.412 ms". `role` ("A", "B") names
/// the side of a diff; empty otherwise. With `listing`, open_listing instead of open_file
/// (for a run that only lists: the tensors may come as header rows).
LoadedFile open_file_logged(const std::string& path, const std::optional<std::string>& format,
                            const std::string& role = "", bool listing = false);

}  // namespace tensor_inspect::app
