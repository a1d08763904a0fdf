// app/term/removed_on_signal.hpp — files a run is half-way through making (--plot's temporary
// PNGs), removed when SIGINT, SIGTERM, SIGHUP or SIGPIPE ends the process, which runs no destructor.
//
//   const RemovalTicket* t = remove_on_signal(tmp);   // after creating tmp
//   ...                                                // Ctrl-C here: tmp is unlinked, then the
//   ::rename(tmp, path);                               //   process ends by the signal as before
//   forget_on_signal(t);                               // after renaming or removing tmp
//
// The handler calls only unlink(2) and raise(3) (async-signal-safe) on paths stored when they
// were registered, then ends the process by the same signal, so the exit status a shell sees
// is unchanged (130 for Ctrl-C). Handlers are installed on the first registration, and not
// for a signal the process was started ignoring (nohup, a background job of a script).
#pragma once

#include <string>

#include "tensor_inspect/safe_write.hpp"

namespace tensor_inspect::app {

struct RemovalTicket;

/// Registers `path` (a file this process created) for removal by the signals above; returns
/// the ticket forget_on_signal takes. Main thread only.
const RemovalTicket* remove_on_signal(const std::string& path);

/// Stops removing the ticket's path (renamed into place, or removed already). Main thread only.
void forget_on_signal(const RemovalTicket* ticket);

/// The safe-write hooks (safe_write.hpp) that register each temporary file with
/// remove_on_signal and forget it once renamed or removed: --plot's pictures, export's file.
TempFileHooks removed_on_signal_hooks();

}  // namespace tensor_inspect::app
