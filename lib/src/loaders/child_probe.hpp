// loaders/child_probe.hpp — runs a parse that a library we do not control performs (libhdf5)
// once in a forked child first, so that a malformed file which makes that library crash
// costs the child, not the run: the parent then reports the file as unreadable instead.
//
// Example (hdf5_session.cpp):
//   if (auto why = run_in_child([&] { walk_everything_libhdf5_will_read(); }))
//     throw Error(ErrorCode::BadFile, name + ": not a readable HDF5 file (" + *why + ")");
#pragma once

#include <functional>
#include <optional>
#include <string>

namespace tensor_inspect {

/// Calls `probe` in a child made by fork() and waits for it. The child ends with _exit(0)
/// after `probe` returns or throws (exceptions are the parent's to see again: the parent
/// repeats the same calls), so it flushes no stdio buffer and runs no atexit handler; its
/// standard error goes to /dev/null (a dying library's or sanitizer's report is not shown).
/// Returns std::nullopt when the child ended normally, or when fork() itself failed (the
/// parent then runs unprotected, as without a probe); otherwise a short reason such as
/// "libhdf5 crashed on the file's structures: Segmentation fault". `probe` must not use
/// OpenMP or take locks other threads may hold across fork(); the caller holds libhdf5's
/// lock, so no other thread is inside libhdf5 at the fork.
std::optional<std::string> run_in_child(const std::string& library, const std::function<void()>& probe);

}  // namespace tensor_inspect
