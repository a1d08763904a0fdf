// app/term/report.cpp — errors, logging and the end of a run (report.hpp).
#include "term/report.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <new>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "term/process_exit.hpp"
#include "term/progress.hpp"
#include "tensor_inspect/json_shape.hpp"
#include "tensor_inspect/log.hpp"
#include "tensor_inspect/remote.hpp"
#include "tensor_inspect/render.hpp"

namespace tensor_inspect::app {

int report(const Error& e, bool json) {
  clear_progress();
  if (json)
    std::cerr << "{" << json_head("error") << "\"error\": {\"code\": \"" << error_code_name(e.code())
              << "\", \"message\": " << json_string(e.what()) << "}}\n";
  else
    std::cerr << "tensor-inspect: " << escape_untrusted(e.what(), false) << "\n";
  return exit_status(e.code());
}

void set_up_logging(int verbosity) {
  auto logger = spdlog::stderr_color_st("tensor-inspect");
  spdlog::set_default_logger(logger);
  // On a terminal a progress line may be drawn when a message comes (a tensor skipped half-way
  // through a scan): erased first, so the message is not glued to its end and stays on screen
  // alone, while the progress line is redrawn below it.
  const char* pattern = ::isatty(2) == 1 ? "\r\033[Ktensor-inspect: %l: %v" : "tensor-inspect: %l: %v";
  spdlog::set_pattern(pattern);
  spdlog::set_level(verbosity >= 2 ? spdlog::level::debug : verbosity == 1 ? spdlog::level::info : spdlog::level::warn);
  // The library's own logger (tensor_inspect/log.hpp) speaks as the tool, at the same level.
  set_log_pattern(pattern);
  set_log_level(verbosity >= 2 ? LogLevel::Debug : verbosity == 1 ? LogLevel::Info : LogLevel::Warn);
  show_progress_on_terminal();
}

int run_reported(const std::function<int()>& run, bool json, const std::string& input) {
  try {
    const int status = run();
    // Output that did not reach its destination (a full disk, a closed pipe) is trouble,
    // not success: a CI job must not see exit 0 for lost output.
    if (std::fflush(stdout) != 0 || std::ferror(stdout))
      return report(Error(ErrorCode::Io, std::string("<stdout>: write error: ") + std::strerror(errno)), json);
    end_process(status);  // nothing left to free one by one (process_exit.hpp)
  } catch (const Error& e) {
    return report(e, json);
  } catch (const std::bad_alloc&) {
    return report(Error(ErrorCode::Unsupported, input + ": out of memory (the tensor or an intermediate is too large)"),
                  json);
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the OS refused (a symlink loop, a name too long) is the user's input, not our
    // bug: one Io line naming it, as MappedFile::open words it, should a call be missed.
    return report(Error(ErrorCode::Io, input_name(e.path1().string()) + ": cannot open: " + e.code().message()), json);
  } catch (const std::exception& e) {
    return report(Error(ErrorCode::Internal, "internal error: " + std::string(e.what())), json);
  }
}

}  // namespace tensor_inspect::app
