// app/cli/contradictions.hpp — options that ask for two different things at once (--all and
// --name, --json and --jsonl, --list and --name, ...). Each is a usage error naming both,
// found before any input is opened, rather than one of them silently winning: a CI job
// that wrote `--stats --expect dtype=float32` must not pass without its check having run.
#pragma once

#include "cli/options.hpp"

namespace tensor_inspect::app {

/// Throws Error(Usage) naming the first pair of contradicting options in `o` and why they
/// contradict; returns when there is none.
void refuse_contradictions(const Options& o);

}  // namespace tensor_inspect::app
