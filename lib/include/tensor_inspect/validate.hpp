// tensor_inspect/validate.hpp — checks a tensor file against every rule of its format's
// specification that the loaders know, and reports all findings, not only the first.
//
// Rules by format: safetensors (header length and JSON, duplicate keys, entry keys, dtype
// tags, shapes, data_offsets inside the data, overlaps and holes), GGUF (magic, version,
// metadata types, duplicate keys and tensor names, general.alignment, tensor types, dims,
// offsets aligned and inside the file, overlaps), .npy (magic, version, header keys,
// newline and 64-byte alignment, data length), zip archives of .npz and PyTorch (central
// directory, local headers, CRC of every member, duplicate names; each .npy member; the
// pickle's opcodes and globals outside PyTorch's weights_only allow-list), PyTorch's legacy
// layout (magic number, protocol version, its five pickles, each storage's count and bytes), ONNX
// (protobuf wire format, each initializer's name, data type, dims, data field and size,
// external data's location and length). A file that
// passes every rule is then opened by its loader, so a file the tool cannot read is never
// reported clean. Findings come in three classes: errors (the file breaks its spec),
// warnings (legal but unusual) and notes (what this tool cannot decode).
//
//   ti::ValidationReport r = ti::validate_file("model.safetensors");
//   for (const ti::Finding& f : r.findings) std::cout << f.place << ": " << f.message << '\n';
//   bool clean = r.findings.empty();
#pragma once

#include <cstdint>
#include <optional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tensor_inspect/buffer.hpp"

namespace tensor_inspect {

/// How bad a finding is: only errors make `validate` fail, warnings too under --strict,
/// notes never (they say what this tool cannot do, nothing about the file).
enum class Severity {
  Error,    ///< the file breaks its format's spec or cannot be read: readers may refuse it or misread it
  Warning,  ///< legal but unusual or risky: misaligned data, trailing bytes, globals that run code
  Note,     ///< legal, but this tool cannot decode it (a ggml type, a NumPy descr): rule <format>.unsupported
};

/// "error", "warning" or "note".
std::string_view severity_name(Severity s);

/// One broken rule, at one place of the file.
struct Finding {
  Severity severity = Severity::Error;
  std::string rule;                     ///< stable id, "<format>.<rule>": "safetensors.overlap"
  std::string place;                    ///< where: "tensor 'w'", "key 'general.alignment'", "member 'a.npy'"
  std::optional<std::uint64_t> offset;  ///< byte offset in the file, when the rule has one
  std::string message;                  ///< one line with the values: "data_offsets [0, 8) overlap 'b' [4, 12)"
};

/// All findings of one file.
struct ValidationReport {
  std::string file;               ///< the path as given
  std::string format;             ///< registry name ("safetensors", "npz", ...) of what the file looks like
  std::vector<Finding> findings;  ///< in file order within each format's checks
};

/// What else one run validates, so that each fact is reported once per run.
struct ValidateScope {
  /// Paths validated on their own in the same run (as given): an index checks such a shard
  /// for its mapping and total_size only, and leaves the shard's own faults to its report.
  std::vector<std::string> also_validated;
};

/// Detects the format of `path` by magic bytes (then extension) and checks every rule
/// listed above. Throws Error(Io) when the file cannot be read and Error(BadFile) when it
/// matches no known format; everything wrong inside a recognised file is a Finding.
ValidationReport validate_file(const std::string& path, const ValidateScope& scope = {});

/// The same over bytes already opened (standard input: MappedFile::read_fd), reported
/// under `file->name()` ("<stdin>"); the format comes from the magic bytes alone. Throws
/// as validate_file.
ValidationReport validate_file(const std::shared_ptr<const MappedFile>& file, const ValidateScope& scope = {});

/// The files a model folder is read from (loaders/checkpoint_dir.cpp), which validate
/// checks one by one: full paths, sorted; its *.safetensors.index.json and *.safetensors
/// files, else its *.bin.index.json and torch.save *.bin weights (pytorch_model.bin); a
/// torch.distributed.checkpoint's .metadata alone (its rules check the .distcp files). Throws Error(BadFile) when it
/// holds none, Error(Io) when it cannot be listed.
std::vector<std::string> checkpoint_dir_files(const std::string& path);

}  // namespace tensor_inspect
