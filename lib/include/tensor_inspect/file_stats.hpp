// tensor_inspect/file_stats.hpp — the statistics of a file's tensors, as `--stats` and
// `--fail-on` give them: one row per tensor (header facts, statistics, --fail-on verdicts),
// scanned in place where the bytes allow and streamed through the executor otherwise, and
// their report as text (for people) and JSON (for programs): the same facts, JSON keys
// fixed whatever the file holds (absent values are null).
//
//   ti::FailOn f = ti::parse_fail_on("nan,inf");
//   std::vector<ti::StatsRow> rows = ti::file_stats(file, f, {}, {});   // file: a LoadedFile
//   ti::OutBuffer out(stdout);
//   ti::render_file_stats(file.path, file.format, rows, f, false, true, out);
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/render.hpp"
#include "tensor_inspect/stats.hpp"

namespace tensor_inspect {

/// One tensor's row: what the header says, and its statistics unless it was skipped.
struct StatsRow {
  std::string name;                  ///< the tensor's name ("" for an unnamed one: a lone .npy)
  std::optional<DType> dtype;        ///< the values' dtype; nullopt when they cannot be shown
  std::string stored_type;           ///< the file's type name ("BF16", "<f4", "Q4_K"); may be empty
  std::string group;                 ///< totals group: the dtype name, or the ggml type when quantized
  Shape shape;                       ///< the tensor's shape
  std::uint64_t nbytes = 0;          ///< stored bytes
  std::optional<TensorStats> stats;  ///< nullopt when skipped
  std::string skipped;               ///< why there are no statistics (empty when there are)
  std::vector<std::string> failed;   ///< --fail-on checks this tensor fails ("nan", "inf", "zero-tensor")
  std::string first_nan;  ///< where --fail-on nan found the first NaN, "[0, 2]" (row-major); empty when it did not
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

/// The row of a file entry from its header alone (no statistics yet).
StatsRow stats_row_of(const TensorEntry& entry);

/// The scan source of `t`, read where it lies (a GGUF entry's blocks, or its bytes in the
/// map); nullopt when the executor has to compute it (then compute_stats_streamed). `entry`
/// (may be null) is `t`'s file entry.
std::optional<StoredElements> in_place_source(const Tensor& t, const TensorEntry* entry, const Defaults& defaults);

/// The row-major index of element `flat` of `shape`, as "[1, 2]" ("[]" for a 0-d tensor).
std::string index_text(std::int64_t flat, const Shape& shape);

/// The row-major index of the first NaN of `t` ("[0, 2]"), "" when it holds none.
std::string first_nan_index(const Tensor& t, const Defaults& defaults);

/// What file_stats reports as it goes: each row once scanned, and the scan's progress.
struct FileStatsCallbacks {
  /// Called with each row as soon as it is complete (file order), and the label that
  /// names its tensor in messages ("model.safetensors: tensor 'w'").
  std::function<void(const StatsRow& row, const std::string& label)> on_row;
  /// Called on the calling thread with the tensors done and the stored bytes scanned so far.
  std::function<void(std::size_t tensors_done, std::uint64_t bytes_done)> progress;
};

/// Statistics of every tensor of `file`, one row each in file order, with `fail_on` applied.
/// A tensor whose values cannot be decoded is a row with `skipped` set, unless `fail_on` is
/// enabled: then it is Error(Unsupported) (fail_on_unchecked), raised before any tensor is
/// scanned where its entry says so at load. Other trouble (a corrupt tensor) throws, naming
/// the tensor. Memory stays flat: each tensor's pages are released behind the scan.
std::vector<StatsRow> file_stats(const LoadedFile& file, const FailOn& fail_on, const Defaults& defaults,
                                 const FileStatsCallbacks& callbacks);

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

}  // namespace tensor_inspect
