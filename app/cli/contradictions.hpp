// app/cli/contradictions.hpp — what a run does, resolved once from the options (each declares
// the activity it asks for, or those it shapes): two options that ask for different things are a
// usage error naming both, before any input is opened, never one of them silently winning.
#pragma once

#include "cli/options.hpp"

namespace tensor_inspect::app {

/// What a run does: printing values when no other activity is asked for; checks may run
/// beside statistics or the header; every other pair excludes the other.
enum Activity : unsigned {
  kValues = 1U << 0,    ///< print each tensor's memoryview (the default)
  kHeader = 1U << 1,    ///< --header
  kList = 1U << 2,      ///< --list
  kMeta = 1U << 3,      ///< --meta
  kList0 = 1U << 4,     ///< --list0
  kOverview = 1U << 5,  ///< --overview
  kStats = 1U << 6,     ///< --stats, --hist, --plot, --fail-on
  kChecks = 1U << 7,    ///< --expect, --assert
};

/// The activities of a run (a set of Activity bits).
struct Mode {
  unsigned activities = 0;
  bool has(Activity a) const { return (activities & a) != 0; }
};

/// The mode the options ask for. Throws Error(Usage) naming the first two options that
/// contradict and what each does: two activities that do not run together, an option that
/// shapes none of the activities another asks for (--full with --stats), two answers to one
/// question (--all and --name, --json and --jsonl, --dtype and --raw); or an option that
/// changes nothing without another (--plot-kind without --plot).
Mode resolve_mode(const Options& o);

}  // namespace tensor_inspect::app
