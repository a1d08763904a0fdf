// log/log.hpp — the library's own logger (see tensor_inspect/log.hpp): every message of
// lib/ goes through lib_log(), never through spdlog::info() and the program's default logger.
//
//   lib_log().info("{}: header parsed in {:.3f} ms", name, ms);
#pragma once

#include <spdlog/logger.h>

namespace tensor_inspect {

/// The logger "tensor_inspect": stderr, level warn until set_log_level() says otherwise.
spdlog::logger& lib_log();

}  // namespace tensor_inspect
