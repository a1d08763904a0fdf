// app/checks.hpp — assertions for CI: --expect KEY=VALUE (dtype, shape, ndim, format,
// nbytes, read from the tensor without realizing it) and --assert EXPR (a tinygrad
// expression over x that must give True or an all-True boolean tensor).
#pragma once

#include <vector>

#include "inspect.hpp"

namespace tensor_inspect::app {

/// Checks every item against every --expect and --assert; prints each failure with its
/// actual value and a summary (text), or one "checks" object (--json), or one "check"
/// object per line (--jsonl). Returns 1 when a check failed, else 0. Throws
/// Error(Usage) for a malformed --expect, Error(BadExpression) for an --assert that
/// does not give a boolean.
int run_checks(const std::vector<Item>& items, const Options& o, const Defaults& defaults);

}  // namespace tensor_inspect::app
