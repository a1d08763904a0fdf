// tensor_inspect/export_plan.hpp — what `export` writes: the chosen tensors of a file built
// lazily (loader, expression, cast), checked against what the output format can hold, and
// written as .npy, .npz or .safetensors (export_writers.hpp).
//
//   ti::LoadedFile f = ti::open_file("model.safetensors");
//   auto tensors = ti::export_tensors(f, ti::select_entries(f, {"w*"}, false), std::nullopt, std::nullopt);
//   ti::refuse_numpy_less(tensors, "npz", "out.npz");
//   ti::write_export("npz", tensors, {}, "out.npz");
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tensor_inspect/export_writers.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

/// Tensors named as they are written.
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;

/// The format `output` is written in: `format` (--format: "npy", "npz" or "safetensors"), else
/// the output's extension (.npy, .npz, .safetensors); both given must agree. Throws
/// Error(Usage) for another format or extension, a contradiction, or "-" without `format`.
std::string export_format(const std::string& output, const std::optional<std::string>& format);

/// The entries of `file` (named `label` in messages) to write: those `names` (exact or globs)
/// or `all` select (select_entries), else a file's one tensor. Throws Error(Usage) for a file
/// of several tensors and no choice, and for "npy" `format` with other than one chosen; and
/// what select_entries throws.
std::vector<std::size_t> export_choice(const LoadedFile& file, const std::string& label,
                                       const std::vector<std::string>& names, bool all, const std::string& format);

/// The entries `chosen` (indices into file.tensors) as written: loaded (lazy, nothing read),
/// `expr` applied over each (named x), weak dtypes committed (float32, int32), then cast to
/// `cast` when given; an unnamed tensor (a lone .npy) is named "x". Throws what loading and
/// the expression throw.
NamedTensors export_tensors(const LoadedFile& file, const std::vector<std::size_t>& chosen,
                            const std::optional<std::string>& expr, std::optional<DType> cast);

/// For `format` "npy" or "npz": Error(Unsupported) naming `output` (the path the user gave, "-"
/// for standard output) and, in an .npz, the tensor, for a dtype NumPy has none of (bfloat16,
/// fp8). Nothing for "safetensors".
void refuse_numpy_less(const NamedTensors& tensors, const std::string& format, const std::string& output);

/// Error(Usage) when the file `output` exists and is `input` or, for a folder input, one of
/// its files: export never writes over an input. Nothing for "-" or a URL input.
void refuse_input_as_output(const std::string& input, const std::string& output);

/// Writes `tensors` to `path` as `format` says: "npy" (the first tensor), "npz" (zip64 from
/// `zip64_from` bytes) or "safetensors" (with `metadata` as its __metadata__). Throws what
/// the writers throw; an Error(BadExpression), a value a cast or the expression cannot
/// convert (a nan cast to an int), names the input, `metadata`'s "source".
void write_export(const std::string& format, const NamedTensors& tensors,
                  const std::vector<std::pair<std::string, std::string>>& metadata, const std::string& path,
                  std::uint64_t zip64_from = kZip64From);

}  // namespace tensor_inspect
