// app/term/process_exit.cpp — see process_exit.hpp.
#include "term/process_exit.hpp"

#include <cstdio>
#include <cstdlib>
#include <optional>

#include "tensor_inspect/remote.hpp"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TI_END_THROUGH_EXIT 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TI_END_THROUGH_EXIT 1
#endif

namespace tensor_inspect::app {

void keep_until_exit(LoadedFile&& file) {
  static std::optional<LoadedFile> kept;
  kept = std::move(file);
}

void end_process(int status) {
  log_remote_transfers();  // what closing each remote file would have logged
  std::fflush(stderr);
#ifdef TI_END_THROUGH_EXIT
  std::exit(status);
#else
  std::_Exit(status);
#endif
}

}  // namespace tensor_inspect::app
