// tensor_inspect/hash_check.hpp — what `hash` does with several inputs and a manifest: the
// inputs' tensors as one named list, a manifest read from its file, its tensors paired with
// the inputs' (by name; one each: whatever their names) and judged as `sha256sum -c` judges a
// file, and the reports: sha256sum-style lines, the manifest (schemas/hash.schema.json) and the
// check report (schemas/hash_check.schema.json).
//
//   ti::HashInputs in = ti::open_hash_inputs({"model.safetensors"});
//   ti::Manifest m = ti::read_manifest("model.manifest.json");
//   std::vector<ti::HashCheckRow> rows = ti::check_manifest(m, in);   // hashes what pairs
//   ti::OutBuffer out(stdout);
//   ti::write_hash_check(rows, m, "model.manifest.json", in, false, false, out);   // "w: OK" lines
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "tensor_inspect/hash.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/render.hpp"

namespace tensor_inspect {

/// The tensors of every input, in input and file order.
struct HashInputs {
  std::vector<std::string> labels;   ///< each input as shown (a URL without credentials, <stdin>)
  std::vector<LoadedFile> files;     ///< kept open: the entries' bytes live in them
  std::vector<TensorEntry> entries;  ///< every tensor of every input
  std::vector<std::string> names;    ///< entries[i]'s name, or its input's label for an unnamed tensor
};

/// Opens every input (paths, folders, URLs, "-" for standard input at most once). Throws
/// Error(Usage) when "-" is given twice or two inputs hold a tensor of one name, and what
/// opening a file throws.
HashInputs open_hash_inputs(const std::vector<std::string>& inputs);

/// The manifest of the file `path` (parse_manifest). Throws Error(LimitExceeded) for a file
/// larger than Limits::manifest_bytes, Error(Io) for one that cannot be read (a folder), and
/// what parse_manifest throws.
Manifest read_manifest(const std::string& path);

/// What became of one tensor of a manifest or an input, as `sha256sum -c` words it.
enum class HashCheckStatus {
  Ok,       ///< same type, shape and digest ("OK")
  Changed,  ///< paired, and any of them differs ("FAILED")
  Missing,  ///< in the manifest, in no input ("MISSING")
  Added,    ///< in an input, not in the manifest ("ADDED")
};

/// One row of a check: a manifest tensor in manifest order, then the inputs' unpaired ones.
struct HashCheckRow {
  std::string name;
  HashCheckStatus status = HashCheckStatus::Ok;
  const ManifestTensor* expected = nullptr;  ///< into the manifest; null for an added tensor
  std::optional<TensorHash> actual;          ///< the input's hash; nullopt when missing or added
};

/// Pairs the manifest's tensors with the inputs' entries by name (a manifest and inputs of
/// one tensor each: by position), hashes the paired entries with the manifest's algorithm
/// (hash_tensors) and judges each. Throws what hash_tensors throws.
std::vector<HashCheckRow> check_manifest(const Manifest& manifest, const HashInputs& inputs);

/// `hashes` (of inputs.entries, in order) as sha256sum lines "DIGEST  NAME" (names escaped),
/// or with `json` one "hash" manifest object; each ends with a newline.
void write_hashes(const std::vector<TensorHash>& hashes, const HashInputs& inputs, HashAlgorithm algorithm, bool json,
                  OutBuffer& out);

/// The rows as "NAME: OK" lines and a counts line, or with `json` one "hash_check" object
/// naming `manifest_path`; `quiet` leaves out the rows that are OK (not from the counts).
void write_hash_check(const std::vector<HashCheckRow>& rows, const Manifest& manifest,
                      const std::string& manifest_path, const HashInputs& inputs, bool quiet, bool json,
                      OutBuffer& out);

}  // namespace tensor_inspect
