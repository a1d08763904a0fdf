// app/diff_rows.hpp — what `diff` found, pair by pair, and how it is written: the rows
// the comparison fills (diff.cpp) and the report of them (diff_report.cpp), a table for
// people or one "diff" JSON object for programs, with the same facts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "diff.hpp"
#include "tensor_inspect/compare.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/render.hpp"

namespace tensor_inspect::app {

/// One side of a diff: a file's tensors, or a literal as one unnamed tensor.
struct Input {
  std::string label, format;
  std::vector<TensorEntry> entries;
  std::optional<LoadedFile> file;  // keeps the mappings of lazy tensors alive
};

/// A pair's verdict; the order is the order of the summary's counts.
enum class Status { Same, Differs, ShapeMismatch, DTypeMismatch, OnlyInA, OnlyInB };
inline constexpr const char* kStatusText[] = {"same", "differs", "shape mismatch", "dtype mismatch", "only in A", "only in B"};
inline constexpr const char* kStatusJson[] = {"same", "differs", "shape_mismatch", "dtype_mismatch", "only_in_a", "only_in_b"};

/// One pair of tensors (or a tensor on one side only) and what comparing them found.
struct Row {
  const TensorEntry* a = nullptr;
  const TensorEntry* b = nullptr;
  Status status = Status::Same;
  std::optional<Comparison> cmp;
};

/// The table (text): a line per row, then the counts.
void write_diff_text(const std::vector<Row>& rows, const Input& a, const Input& b, OutBuffer& out);

/// One "diff" JSON object holding every row and the summary.
void write_diff_json(const std::vector<Row>& rows, const Input& a, const Input& b, const DiffOptions& o, OutBuffer& out);

}  // namespace tensor_inspect::app
