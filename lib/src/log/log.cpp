// log/log.cpp — see log.hpp and tensor_inspect/log.hpp.
#include "log/log.hpp"

#include <memory>

#include <spdlog/sinks/stdout_color_sinks.h>

#include "tensor_inspect/log.hpp"

namespace tensor_inspect {

spdlog::logger& lib_log() {
  // Not registered in spdlog's registry: the program's spdlog::set_level()/set_pattern() (which
  // apply to every registered logger) and a logger of its own named alike leave it alone.
  static const std::shared_ptr<spdlog::logger> logger = [] {
    auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    auto l = std::make_shared<spdlog::logger>("tensor_inspect", std::move(sink));
    l->set_level(spdlog::level::warn);
    l->set_pattern("tensor_inspect: %l: %v");
    return l;
  }();
  return *logger;
}

void set_log_level(LogLevel level) {
  lib_log().set_level(static_cast<spdlog::level::level_enum>(level));
}

LogLevel log_level() {
  return static_cast<LogLevel>(lib_log().level());
}

void set_log_pattern(const std::string& pattern) {
  lib_log().set_pattern(pattern);
}

static_assert(static_cast<int>(LogLevel::Trace) == spdlog::level::trace &&
                  static_cast<int>(LogLevel::Warn) == spdlog::level::warn &&
                  static_cast<int>(LogLevel::Off) == spdlog::level::off,
              "LogLevel follows spdlog's level_enum");

}  // namespace tensor_inspect
