// app/diff_rows.hpp — what `diff` found, pair by pair, and how it is written: the rows
// the comparison fills (diff.cpp) and the report of them (diff_report.cpp), a table for
// people or one "diff" JSON object for programs, with the same facts.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "diff.hpp"
#include "diff_quant.hpp"
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

/// A pair's verdict; the order is the order of the summary's counts. NotComparable: both
/// sides hold one stored type this tool does not decode, and their stored bytes do not lie
/// in the file as the tensor's (a strided PyTorch view): nothing could be compared.
enum class Status { Same, Differs, ShapeMismatch, DTypeMismatch, OnlyInA, OnlyInB, NotComparable };
inline constexpr std::size_t kStatusCount = 7;
inline constexpr const char* kStatusText[kStatusCount] = {"same",      "differs",   "shape mismatch", "dtype mismatch",
                                                          "only in A", "only in B", "not comparable"};
inline constexpr const char* kStatusJson[kStatusCount] = {"same",      "differs",   "shape_mismatch", "dtype_mismatch",
                                                          "only_in_a", "only_in_b", "not_comparable"};

/// One pair of tensors (or a tensor on one side only) and what comparing them found.
struct Row {
  const TensorEntry* a = nullptr;
  const TensorEntry* b = nullptr;
  Status status = Status::Same;
  std::optional<Comparison> cmp;
  /// Set where the values were not decoded: their stored bytes were compared (Same or
  /// Differs), one side's values cannot be decoded (DTypeMismatch), or neither values nor
  /// bytes could be compared (NotComparable); says which and why.
  std::string note;
  bool bytes_compared = false;  ///< Same/Differs come from the stored bytes, figures undefined
  double rtol = 0, atol = 0;    ///< the tolerance the pair was judged by (--tolerance torch: its own)
};

/// True where `e`'s stored bytes lie as they are in a file (`details().blocks_file`; TensorEntry::stored_blocks).
bool has_stored_bytes(const TensorEntry& e);

/// The first byte (counted from the tensor's first) at which the stored bytes of `a` and
/// `b` differ, or the shorter length when one is a prefix of the other; nullopt when they
/// are equal. Both must have stored bytes. `progress` (may be empty) gets the bytes done.
/// Throws Error(BadFile) for a tensor past the end of its file, Error(Io) when a remote
/// file's bytes cannot be fetched.
std::optional<std::uint64_t> first_differing_byte(const TensorEntry& a, const TensorEntry& b,
                                                  const std::function<void(std::uint64_t done)>& progress);

/// --names hf-gguf: B's GGUF tensor `tb` with llama.cpp's q/k permutation undone where A's
/// name says the converter applied it (names_hf_gguf.hpp); true when `tb` can be compared.
/// False where the GGUF does not say its head counts: `r` is then not comparable, its note
/// saying why.
bool align_gguf_to_hf(Row& r, const LoadedFile& gguf, Tensor& tb, const std::string& label_b);

/// The table (text): a line per row, then the counts.
void write_diff_text(const std::vector<Row>& rows, const Input& a, const Input& b, OutBuffer& out);

/// The members (no braces) of a row's JSON object: the keys of "tensors" items and of
/// --jsonl lines, the same whatever the row holds (null where there is no value).
std::string diff_row_json(const Row& r);

/// The members "a", "b", "rtol", "atol", "nan_equal", "exact" of a diff's JSON.
std::string diff_inputs_json(const Input& a, const Input& b, const DiffOptions& o);

/// The member "summary": counts of the rows by status.
std::string diff_summary_json(const std::vector<Row>& rows);

/// One "diff" JSON object holding every row and the summary.
void write_diff_json(const std::vector<Row>& rows, const Input& a, const Input& b, const DiffOptions& o, OutBuffer& out);

}  // namespace tensor_inspect::app
