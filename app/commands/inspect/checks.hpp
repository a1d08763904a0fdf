// app/commands/inspect/checks.hpp — --expect and --assert (the library's tensor_inspect/checks.hpp)
// printed on stdout, alone or composed with the statistics options in one run (inspect.cpp).
#pragma once

#include <cstdio>
#include <functional>
#include <vector>

#include "commands/inspect/inspect.hpp"

namespace tensor_inspect::app {

/// Checks every item against every --expect and --assert; prints each failure with its
/// actual value and a summary (text), or one "checks" object (--json), or one "check"
/// object per line (--jsonl). Returns 1 when a check failed, else 0. Throws what
/// evaluate_checks throws, before anything is printed.
int run_checks(const std::vector<Item>& items, const Options& o, const Defaults& defaults);

/// Runs the statistics (`run_stats` writes its report onto the FILE* it is given) together
/// with --expect and --assert: checks decided first, then the statistics, then the checks'
/// results (--json: the statistics object carries "checks"). Returns 1 when either failed.
/// Without checks it is run_stats(stdout).
int with_checks(const std::vector<Item>& items, const Options& o, const Defaults& defaults,
                const std::function<int(std::FILE*)>& run_stats);

}  // namespace tensor_inspect::app
