// app/term/truncated_input.cpp — see truncated_input.hpp.
#include "term/truncated_input.hpp"

#include <atomic>
#include <csignal>
#include <cstring>

#include <unistd.h>

#include "tensor_inspect/buffer.hpp"

namespace tensor_inspect::app {

namespace {

// Only async-signal-safe calls: write(2), strlen, pause, _exit, a lock-free atomic flag.
void put(const char* s) {
  std::size_t n = std::strlen(s);
  while (n > 0) {
    const ssize_t w = ::write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<std::size_t>(w);
  }
}

// Set by the first thread that takes SIGBUS: several threads of one scan may fault on the
// same shrunk file at once, and the message is printed once (lock-free: async-signal-safe).
std::atomic_flag reported = ATOMIC_FLAG_INIT;

void on_sigbus(int, siginfo_t* info, void*) {
  if (reported.test_and_set()) {
    for (;;) ::pause();  // the first thread's _exit ends the process
  }
  const char* name = mapped_file_name_at(info->si_addr);
  put("tensor-inspect: ");
  put(name ? name : "an input file");
  put(": the file changed while it was read (it is now shorter than when it was opened)\n");
  ::_exit(2);
}

}  // namespace

void report_truncated_inputs() {
  struct sigaction sa {};
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGBUS, &sa, nullptr);
}

}  // namespace tensor_inspect::app
