// tensor_inspect/diff.hpp — two inputs compared tensor by tensor, as `tensor-inspect diff`
// does: tensors paired by name (renamed by exact names or regexes, or by position when each
// side holds one), each pair judged (shapes, dtypes, values through compare.hpp, or stored
// bytes where values are not decoded), and the report of the rows, a table for people or
// one "diff" JSON object for programs, with the same facts.
//
//   ti::DiffInput a = ..., b = ...;          // a file's tensors (LoadedFile::tensors) and label
//   ti::DiffOptions opt;  opt.rtol = 1e-3;
//   std::vector<ti::DiffRow> rows = ti::diff_tensors(a, b, opt, [](const ti::DiffRow& r) { /* streamed */ });
//   ti::OutBuffer out(stdout);  ti::write_diff_text(rows, a, b, out);
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tensor_inspect/compare.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/render.hpp"

namespace tensor_inspect {

/// One side of a diff: a file's tensors, or a literal as one unnamed tensor.
struct DiffInput {
  std::string label;                 ///< how messages and the report name the input ("a.safetensors", "[1, 2]")
  std::string format;                ///< the file's format ("gguf"), "literal" for a literal
  std::vector<TensorEntry> entries;  ///< the tensors, in file order
  std::optional<LoadedFile> file;    ///< keeps the mappings of lazy tensors alive; nullopt for a literal
};

/// A pair's verdict; the order is the order of the summary's counts. NotComparable: both
/// sides hold one stored type this tool does not decode, and their stored bytes do not lie
/// in the file as the tensor's (a strided PyTorch view): nothing could be compared.
enum class DiffStatus { Same, Differs, ShapeMismatch, DTypeMismatch, OnlyInA, OnlyInB, NotComparable, Count };

/// How many verdicts there are (the count sentinel of DiffStatus).
inline constexpr std::size_t kDiffStatusCount = static_cast<std::size_t>(DiffStatus::Count);

/// A verdict as the text table says it ("shape mismatch").
const char* diff_status_text(DiffStatus s);

/// A verdict as JSON's "status" says it ("shape_mismatch").
const char* diff_status_json(DiffStatus s);

/// One pair of tensors (or a tensor on one side only) and what comparing them found.
struct DiffRow {
  const TensorEntry* a = nullptr;  ///< A's tensor (null: only in B); points into DiffInput::entries
  const TensorEntry* b = nullptr;  ///< B's tensor (null: only in A)
  DiffStatus status = DiffStatus::Same;
  std::optional<Comparison> cmp;  ///< the figures, where values were compared
  /// Set where the values were not decoded: their stored bytes were compared (Same or
  /// Differs), one side's values cannot be decoded (DTypeMismatch), or neither values nor
  /// bytes could be compared (NotComparable); says which and why.
  std::string note;
  bool bytes_compared = false;  ///< Same/Differs come from the stored bytes, figures undefined
  double rtol = 0, atol = 0;    ///< the tolerance the pair was judged by (--tolerance torch: its own)
};

/// How tensors are paired and judged.
struct DiffOptions {
  std::vector<std::string> names;         ///< globs on A's names (or renamed names); partners in B come along
  std::vector<std::string> renames;       ///< FROM=TO: A's tensor FROM is B's TO
  std::vector<std::string> rename_regex;  ///< REGEX=REPLACEMENT on A's names, in order ($1 for groups)
  double rtol = 1e-05, atol = 1e-08;      ///< numpy.allclose's defaults: |a - b| <= atol + rtol * |b|
  bool nan_differs = false;               ///< NaN vs NaN is a difference (default: equal, as h5diff)
  bool exact = false;                     ///< compare bits (rtol and atol 0)
  bool ignore_dtype = false;              ///< values decide: a dtype mismatch within tolerance is "same"
  std::string tolerance;                  ///< "torch": assert_close's defaults per pair; "" numpy.allclose's
  std::string names_map;                  ///< "hf-gguf": llama.cpp converter's names and q/k permutation (B the GGUF)
};

/// Throws Error(Usage) for options that cannot hold together: an rtol or atol below 0 or NaN,
/// --exact with a tolerance, --tolerance torch with --exact or a tolerance. `tolerance_given`
/// names the tolerance option the command line gave ("--rtol", "--atol"; "" for none).
void check_diff_options(const DiffOptions& options, const std::string& tolerance_given);

/// One side of a diff from its argument: a literal (is_literal_input; not "-") as one unnamed
/// tensor of format "literal", else the file, folder, URL or standard input ("-") it names,
/// opened with open_file_logged (`role`, "A" or "B", names the side at -v) and with its
/// quantization schemes applied unless `stored`; labelled "<stdin>" or the input without a
/// URL's credentials. Throws what parsing the literal or opening the file throws.
DiffInput open_diff_input(const std::string& arg, bool stored, const std::string& role);

/// Progress of one pair on the calling thread: pair `index` of `count`, `done` of `total`
/// units, `unit` "elements" (values compared) or "stored bytes" (bytes compared).
using DiffProgress = std::function<void(std::size_t index, std::size_t count, std::uint64_t done, std::uint64_t total,
                                        const char* unit)>;

/// The rows of A's and B's tensors, each with status Same (to be compared), OnlyInA or
/// OnlyInB, in A's order then B's leftovers. Two single-tensor inputs pair by position.
/// Throws Error(Usage) for a malformed rename or two of A's tensors renamed onto one of B's,
/// Error(NotFound) for a `names` glob that matches no tensor of A or B.
std::vector<DiffRow> pair_tensors(const DiffInput& a, const DiffInput& b, const DiffOptions& options);

/// Judges row `index` of `count` (a row of pair_tensors; rows on one side only are left as
/// they are): sets its status, figures, tolerance and note. Throws what loading or
/// realizing a tensor throws (corrupt data), naming the tensor or the pair.
void compare_pair(DiffRow& row, std::size_t index, std::size_t count, const DiffInput& a, const DiffInput& b,
                  const DiffOptions& options, const DiffProgress& progress = {});

/// pair_tensors, then compare_pair on each row in order, calling `on_row` (may be empty)
/// with each row as soon as it is judged; returns every row.
std::vector<DiffRow> diff_tensors(const DiffInput& a, const DiffInput& b, const DiffOptions& options,
                                  const std::function<void(const DiffRow&)>& on_row, const DiffProgress& progress = {});

/// True when a row is not Same: diff's exit status 1.
bool diff_found_difference(const std::vector<DiffRow>& rows);

/// True where `e`'s stored bytes lie as they are in a file (`details().blocks_file`; TensorEntry::stored_blocks).
bool has_stored_bytes(const TensorEntry& e);

/// The first byte (counted from the tensor's first) at which the stored bytes of `a` and
/// `b` differ, or the shorter length when one is a prefix of the other; nullopt when they
/// are equal. Both must have stored bytes. `progress` (may be empty) gets the bytes done.
/// Throws Error(BadFile) for a tensor past the end of its file, Error(Io) when a remote
/// file's bytes cannot be fetched.
std::optional<std::uint64_t> first_differing_byte(const TensorEntry& a, const TensorEntry& b,
                                                  const std::function<void(std::uint64_t done)>& progress);

/// The table (text): a line per row, then the counts.
void write_diff_text(const std::vector<DiffRow>& rows, const DiffInput& a, const DiffInput& b, OutBuffer& out);

/// The members (no braces) of a row's JSON object: the keys of "tensors" items and of
/// --jsonl lines, the same whatever the row holds (null where there is no value).
std::string diff_row_json(const DiffRow& r);

/// The members "a", "b", "rtol", "atol", "nan_equal", "exact", "ignore_dtype", "tolerance"
/// and "names" of a diff's JSON.
std::string diff_inputs_json(const DiffInput& a, const DiffInput& b, const DiffOptions& o);

/// The member "summary": counts of the rows by status, and the whole model's NMSE and SQNR.
std::string diff_summary_json(const std::vector<DiffRow>& rows);

/// One "diff" JSON object holding every row and the summary, and a newline.
void write_diff_json(const std::vector<DiffRow>& rows, const DiffInput& a, const DiffInput& b, const DiffOptions& o,
                     OutBuffer& out);

}  // namespace tensor_inspect
