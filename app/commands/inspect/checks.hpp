// app/commands/inspect/checks.hpp — assertions for CI: --expect KEY=VALUE (dtype, shape, ndim, numel, format,
// nbytes, stored_dtype, stored_nbytes, read from the tensor and its file entry without
// realizing it) and --assert EXPR (a tinygrad expression over x that must give True or an
// all-True boolean tensor). They compose with the statistics options in one run (inspect.cpp).
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "commands/inspect/inspect.hpp"

namespace tensor_inspect::app {

/// Checks every item against every --expect and --assert; prints each failure with its
/// actual value and a summary (text), or one "checks" object (--json), or one "check"
/// object per line (--jsonl). Returns 1 when a check failed, else 0. Throws
/// Error(Usage) for a malformed --expect, Error(BadExpression) for an --assert that
/// does not give a boolean.
int run_checks(const std::vector<Item>& items, const Options& o, const Defaults& defaults);

/// One check's result on one tensor.
struct CheckResult {
  const Item* item;
  std::string type, check, expected, actual;  ///< type "expect" or "assert"
  bool passed;
};

/// Decides every check on every item, printing nothing (trouble throws first).
std::vector<CheckResult> evaluate_checks(const std::vector<Item>& items, const Options& o, const Defaults& defaults);

/// The results as text (each failure and a summary line), the "checks" object (json), or
/// one "check" object per line (jsonl), onto `out`. Returns 1 when a check failed, else 0.
int render_checks(const std::vector<CheckResult>& results, const std::vector<Item>& items, const Options& o, std::FILE* out);

/// The "checks" JSON object of `results`, without a newline (stats objects embed it).
std::string checks_json(const std::vector<CheckResult>& results, const std::vector<Item>& items);

/// Runs the statistics (`run_stats` writes its report onto the FILE* it is given) together
/// with --expect and --assert: checks decided first, then the statistics, then the checks'
/// results (--json: the statistics object carries "checks"). Returns 1 when either failed.
/// Without checks it is run_stats(stdout).
int with_checks(const std::vector<Item>& items, const Options& o, const Defaults& defaults,
                const std::function<int(std::FILE*)>& run_stats);

}  // namespace tensor_inspect::app
