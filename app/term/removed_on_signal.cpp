// app/term/removed_on_signal.cpp — see removed_on_signal.hpp.
#include "term/removed_on_signal.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>

namespace tensor_inspect::app {

// One registered path. Nodes are never freed nor their paths changed, so a handler running on
// any thread (an OpenMP worker may take the signal) reads what it finds: `active` says whether
// to unlink. A run registers one per PNG it writes, a few dozen bytes each.
struct RemovalTicket {
  const std::string path;
  mutable std::atomic<bool> active{true};
  RemovalTicket* const next;
};

namespace {

static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<RemovalTicket*>::is_always_lock_free,
              "the handler reads these atomics: they must not take a lock");

std::atomic<RemovalTicket*> registered{nullptr};

// SIGPIPE too: a reader that stops early (`| head -1`) ends the run by it (main.cpp), and a kill -PIPE
// left an output's temporary file behind.
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};

void remove_and_end(int sig) {
  for (RemovalTicket* t = registered.load(); t != nullptr; t = t->next)
    if (t->active.load()) ::unlink(t->path.c_str());
  // SA_RESETHAND restored the default action: the signal, blocked while this handler runs,
  // ends the process as soon as it returns, as it would have without the handler.
  ::raise(sig);
}

void install_once() {
  static const bool installed = [] {
    for (const int sig : kSignals) {
      struct sigaction old {};
      if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;  // ignored, or someone else's
      struct sigaction sa {};
      sa.sa_handler = remove_and_end;
      sigemptyset(&sa.sa_mask);
      for (const int other : kSignals) sigaddset(&sa.sa_mask, other);  // one handler at a time
      sa.sa_flags = static_cast<int>(SA_RESETHAND);  // 0x80000000 in glibc: an unsigned literal
      ::sigaction(sig, &sa, nullptr);
    }
    return true;
  }();
  (void)installed;
}

}  // namespace

const RemovalTicket* remove_on_signal(const std::string& path) {
  install_once();
  auto* t = new RemovalTicket{path, {true}, registered.load()};
  registered.store(t);  // published whole: a handler sees the node with its path, or not at all
  return t;
}

void forget_on_signal(const RemovalTicket* ticket) {
  if (ticket != nullptr) ticket->active.store(false);
}

TempFileHooks removed_on_signal_hooks() {
  return TempFileHooks{[](const std::string& tmp) -> const void* { return remove_on_signal(tmp); },
                       [](const void* ticket) { forget_on_signal(static_cast<const RemovalTicket*>(ticket)); }};
}

}  // namespace tensor_inspect::app
