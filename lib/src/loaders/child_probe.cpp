// loaders/child_probe.cpp — fork, run, wait (child_probe.hpp).
#include "loaders/child_probe.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

namespace tensor_inspect {

std::optional<std::string> run_in_child(const std::string& library, const std::function<void()>& probe) {
  const pid_t pid = ::fork();
  if (pid < 0) return std::nullopt;
  if (pid == 0) {
    // What the library (or a sanitizer) prints as it dies is not the run's to show: the
    // parent prints the one line.
    const int null_fd = ::open("/dev/null", O_WRONLY);
    if (null_fd >= 0) ::dup2(null_fd, 2);
    try {
      probe();
    } catch (...) {
    }
    ::_exit(0);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return std::nullopt;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return std::nullopt;
  if (WIFSIGNALED(status))
    return library + " crashed on the file's structures: " + ::strsignal(WTERMSIG(status));
  // A sanitizer's report ends the child with status 1 (ASan's exitcode), as does an abort
  // caught and turned into an exit.
  return library + " failed on the file's structures: exit status " + std::to_string(WEXITSTATUS(status));
}

}  // namespace tensor_inspect
