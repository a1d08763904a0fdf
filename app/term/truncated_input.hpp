// app/term/truncated_input.hpp — a file truncated while the tool reads it ends the run with one
// line and exit status 2, not a bus error.
//
// Reading a memory mapping past the end of a file that shrank after it was mapped (`cp new
// model.safetensors` over the file being inspected) raises SIGBUS. The handler names the
// file whose mapping the faulting address lies in (tensor_inspect/buffer.hpp:
// mapped_file_name_at) and exits. Output already written stays written.
#pragma once

namespace tensor_inspect::app {

/// Installs the SIGBUS handler (SA_SIGINFO). Call once, early in main.
void report_truncated_inputs();

}  // namespace tensor_inspect::app
