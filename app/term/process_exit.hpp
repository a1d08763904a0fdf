// app/term/process_exit.hpp — ending the process without freeing what it is about to drop.
//
// A listing of 20,000 tensors would free each entry's strings and shapes one by one on
// the way out, and main's CLI11 app and the static objects after it; the kernel frees all
// of it at once when the process exits. So the last steps keep what they hold alive and
// main ends with std::_Exit once stdout is flushed and checked. Under AddressSanitizer
// the process ends through std::exit instead, so leak checking still sees every object.
#pragma once

#include "tensor_inspect/loader.hpp"

namespace tensor_inspect::app {

/// Keeps `file` alive until the process ends (freed by std::exit under sanitizers only).
void keep_until_exit(LoadedFile&& file);

/// Ends the process with `status` without running destructors (std::_Exit), or through
/// std::exit under AddressSanitizer. stdout must have been flushed and checked already.
[[noreturn]] void end_process(int status);

}  // namespace tensor_inspect::app
