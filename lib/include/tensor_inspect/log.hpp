// tensor_inspect/log.hpp — how loud the library is. It logs through a logger of its own,
// named "tensor_inspect", to stderr, never through spdlog's default logger: a program that
// embeds the library sees nothing on its stdout, and on stderr only warnings and errors
// until it asks for more. spdlog::set_level() and set_pattern() of the program do not
// reach it; these functions do.
//
//   ti::set_log_level(ti::LogLevel::Info);                // "data(): ... realized in ..." lines
//   ti::set_log_pattern("my-tool: %l: %v");               // spdlog's pattern syntax
//   ti::set_log_level(ti::LogLevel::Off);                 // nothing at all (the fuzz harnesses)
#pragma once

#include <string>

namespace tensor_inspect {

/// The levels of the library's messages, most detailed first (spdlog's order).
enum class LogLevel { Trace, Debug, Info, Warn, Error, Critical, Off };

/// Sets the least severe level the library writes (Warn when never called).
void set_log_level(LogLevel level);

/// The level set_log_level() last set (Warn when never called).
LogLevel log_level();

/// Sets how a message is laid out, in spdlog's pattern syntax ("tensor_inspect: %l: %v" when
/// never called).
void set_log_pattern(const std::string& pattern);

}  // namespace tensor_inspect
