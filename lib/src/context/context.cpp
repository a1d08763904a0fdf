// context/context.cpp — the Context in force per thread, and the process default (context.hpp).
#include "tensor_inspect/context.hpp"

#include <utility>

namespace tensor_inspect {
namespace {

// The innermost ContextScope of this thread; nullptr: the process default.
thread_local const Context* tl_context = nullptr;

}  // namespace

Context& default_context() noexcept {
  static Context context;
  return context;
}

const Context& current_context() noexcept { return tl_context ? *tl_context : default_context(); }

ContextScope::ContextScope(Context context) : owned_(std::move(context)), previous_(tl_context) {
  tl_context = &owned_;
}

ContextScope::ContextScope(const Context* borrowed) : previous_(tl_context) { tl_context = borrowed; }

ContextScope::~ContextScope() { tl_context = previous_; }

}  // namespace tensor_inspect
