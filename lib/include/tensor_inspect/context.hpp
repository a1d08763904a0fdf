// tensor_inspect/context.hpp — what a call into the library runs under: its caps, its remote
// options and its progress hook, per thread instead of process-wide.
//
// limits(), remote_options() and the executor's progress reports read the Context in force
// on the calling thread: the one a ContextScope installed there, else the process default,
// which the old setters (set_limits, set_remote_options, set_progress_hook) write. The
// library's OpenMP workers run under the Context of the thread that started them, so an
// embedding program may run two calls at once, each under its own caps:
//
//   ti::Context ctx = ti::current_context();          // a copy of what is in force
//   ctx.limits.buffer_bytes = std::uint64_t{1} << 30;  // this thread allocates at most 1 GiB
//   ti::ContextScope scope(ctx);                      // until scope ends
//   ti::Tensor t = ti::open_file("model.safetensors").tensors[0].load();
#pragma once

#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/realize.hpp"
#include "tensor_inspect/remote.hpp"

namespace tensor_inspect {

/// Everything a call reads besides its arguments.
struct Context {
  Limits limits;          ///< the caps (limits.hpp)
  RemoteOptions remote;   ///< credentials, cache and timeout of remote inputs (remote.hpp)
  ProgressHook progress;  ///< receives long kernels' progress on the calling thread; empty: none (realize.hpp)
};

/// The Context in force on this thread: the innermost live ContextScope's, else the process
/// default. The reference stays valid while that scope lives (the default: for the process).
const Context& current_context() noexcept;

/// The process default, which threads without a ContextScope use. Written by set_limits,
/// set_limit, set_limits_from, set_remote_options and set_progress_hook; not thread-safe:
/// write it before other threads call the library.
Context& default_context() noexcept;

/// Installs a Context on the calling thread for its lifetime (RAII), restoring the previous
/// one when it ends; scopes nest. The Context is copied, so the caller's may change or go.
/// Not movable: it belongs to the thread and the block that made it.
class ContextScope {
 public:
  /// Runs this thread under a copy of `context`.
  explicit ContextScope(Context context);
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;

  /// Runs this thread under `context` itself, not a copy: for a worker thread that joins the
  /// work of the thread owning `context` (the library's OpenMP regions), which outlives it.
  static ContextScope borrowing(const Context& context) { return ContextScope(&context); }

 private:
  explicit ContextScope(const Context* borrowed);
  Context owned_;
  const Context* previous_;
};

}  // namespace tensor_inspect
