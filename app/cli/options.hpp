// app/cli/options.hpp — everything the command line can say, filled by CLI11 in main.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/print_options.hpp"
#include "commands/stats/stats.hpp"

namespace tensor_inspect::app {

struct Options {
  std::string input;                      ///< literal, path, or "-"; empty with only -e
  std::optional<std::string> dtype;       ///< --dtype (literals), or the dtype of --raw
  std::optional<std::string> expr;        ///< -e/--expr
  bool json = false;
  bool strict = false;
  // Options with a default are optional here, so that a value given where it changes
  // nothing is refused (contradictions.hpp), never silently dropped.
  std::optional<std::string> default_float;   ///< --default-float (float32 when not given)
  std::optional<std::string> default_int;     ///< --default-int (int32 when not given)
  std::optional<std::string> json_nonfinite;  ///< "string" (RFC 8259, the default) or "python" (NaN/Infinity)
  // files
  std::vector<std::string> names;         ///< --name (repeatable): tensors of a file, exact or shell globs
  bool all = false;                       ///< --all: every tensor of a file
  bool jsonl = false;                     ///< --jsonl: one JSON object per tensor and line, streamed
  std::vector<std::string> expects;       ///< --expect KEY=VALUE (checks.cpp)
  std::vector<std::string> asserts;       ///< --assert EXPR over x (checks.cpp)
  bool list = false;                      ///< --list: the tensors, from the header only
  bool stored = false;  ///< --stored: quantization schemes' parts as stored, not their logical tensors
  bool meta = false;                      ///< --meta: the file's metadata
  bool overview = false;  ///< --overview: grouped tensors, totals and architecture facts, from headers only
  bool list0 = false;     ///< --list0: the tensors' names alone, each ended by a NUL byte (scripts, completion)
  std::optional<std::string> format;      ///< --format: force a loader
  std::optional<std::string> raw;         ///< --raw DTYPE: bytes as numpy.frombuffer
  std::optional<std::string> shape;       ///< --shape 2,3 (raw)
  std::optional<std::uint64_t> offset;    ///< --offset BYTES (raw; 0 when not given)
  std::optional<std::string> byte_order;  ///< --byte-order little|big (raw; little when not given)
  // engine
  std::optional<std::string> graph;       ///< --graph[=text|dot]: the lazy graph and schedule on stderr
  std::vector<std::string> view_as;       ///< --view-as FMT[:SHAPE], applied in order
  int verbosity = 0;                      ///< -v / -vv
  PrintFlags print;                       ///< --header, --full, --threshold, --edgeitems (print_options.hpp)
  std::vector<std::string> limits;        ///< --limit NAME=N: raise a resource cap (tensor_inspect/limits.hpp)
  StatsOptions stats;                     ///< --stats --hist --plot --fail-on (stats.hpp)
};

/// Runs the tool; returns the exit status. Throws tensor_inspect::Error for trouble.
int run(const Options& options);

}  // namespace tensor_inspect::app
