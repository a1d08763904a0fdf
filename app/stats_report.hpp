// app/stats_report.hpp — statistics as text (for people) and JSON (for programs): the
// same facts, JSON keys fixed whatever the file holds (absent values are null).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tensor_inspect/render.hpp"
#include "tensor_inspect/stats.hpp"

namespace tensor_inspect::app {

/// One tensor's row: what the header says, and its statistics unless it was skipped.
struct StatsRow {
  std::string name;
  std::optional<DType> dtype;      ///< the values' dtype; nullopt when they cannot be shown
  std::string stored_type;         ///< the file's type name ("BF16", "<f4", "Q4_K"); may be empty
  std::string group;               ///< totals group: the dtype name, or the ggml type when quantized
  Shape shape;
  std::uint64_t nbytes = 0;        ///< stored bytes
  std::optional<TensorStats> stats;
  std::string skipped;             ///< why there are no statistics (empty when there are)
  std::vector<std::string> failed; ///< --fail-on checks this tensor fails ("nan", "inf", "zero-tensor")
  std::string first_nan;           ///< where --fail-on nan found the first NaN, "[0, 2]" (row-major); empty when it did not
};

/// The --fail-on checks asked for, in the order given.
struct FailOn {
  std::vector<std::string> checks;  ///< of "nan", "inf", "zero-tensor"
  bool enabled() const { return !checks.empty(); }
};

/// Parses "nan,inf,zero-tensor"; throws Error(Usage) for anything else.
FailOn parse_fail_on(const std::string& text);
/// Fills row.failed from its statistics.
void apply_fail_on(const FailOn& fail_on, StatsRow& row);
/// The error of a tensor --fail-on cannot check, its values being undecodable (`reason`,
/// naming the file and the tensor): trouble (exit 2), as a check that passed what it could
/// not look at would let a CI job through.
std::string fail_on_unchecked(const std::string& reason);

/// Where one tensor's statistics come from, as the tensor kind names it: the input file
/// ("<stdin>"; nullopt for a literal or an expression alone) and the tensor's name in it
/// (nullopt when unnamed: a lone .npy), also after -e; `label` is how messages name it
/// ("model.safetensors: tensor 'w'", "" for a literal), JSON's "input".
struct StatsSource {
  std::optional<std::string> file, name;
  std::string label;
};

/// One tensor: `key: value` lines (text) or one JSON object; `hist` may be null.
void render_tensor_stats(const StatsRow& row, const StatsSource& source, const Histogram* hist, const FailOn& fail_on,
                         bool json, bool show_stats, OutBuffer& out);
/// A whole file: a table (text) or {"tensors": [...], "totals": {...}} (JSON).
void render_file_stats(const std::string& path, const std::string& format, const std::vector<StatsRow>& rows,
                       const FailOn& fail_on, bool json, bool show_stats, OutBuffer& out);

}  // namespace tensor_inspect::app
