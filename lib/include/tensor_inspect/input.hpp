// tensor_inspect/input.hpp — a run's INPUT resolved to the tensors it shows: a Python literal,
// a file (path, folder, URL) or standard input, read whole (--raw's bytes as numpy.frombuffer
// reads them) or by its format, then the tensors chosen with --name/--all, or the file itself
// when it is to be listed. Nothing is realized: each tensor is lazy.
//
//   ti::InputRequest req;
//   req.input = "model.safetensors";
//   req.names = {"layers.*.mlp.*"};                     // a glob: several tensors, each under its name
//   ti::ResolvedInput in = ti::resolve_input(req, {});
//   for (const ti::SelectedTensor& t : in.items) std::puts(t.name->c_str());
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tensor_inspect/dtype.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/selection.hpp"

namespace tensor_inspect {

/// What a command line says about its INPUT and the tensors it wants of it (the options of
/// the same names in `tensor-inspect --help`).
struct InputRequest {
  std::string input;                      ///< literal, path, URL, or "-" (stdin); empty with an expression alone
  std::optional<std::string> dtype;       ///< --dtype: the dtype of a literal
  std::optional<std::string> format;      ///< --format: force a loader
  std::optional<std::string> raw;         ///< --raw DTYPE: the bytes as numpy.frombuffer reads them
  std::optional<std::string> shape;       ///< --shape of --raw data ("2,3"; default one axis)
  std::optional<std::uint64_t> offset;    ///< --offset: bytes skipped before --raw data
  std::optional<std::string> byte_order;  ///< --byte-order of --raw data: "little" (default) or "big"
  std::vector<std::string> names;         ///< --name: exact names or shell globs
  bool all = false;                       ///< --all: every tensor
  bool jsonl = false;                     ///< --jsonl: several tensors, one per line
  bool strict = false;                    ///< --strict: a file that warns is refused
  bool stored = false;                    ///< --stored: quantization schemes' parts, not their logical tensors
  bool list = false, meta = false, list0 = false, overview = false;  ///< the file itself is shown
  bool stats = false;   ///< a statistics run: a tensor whose values cannot be decoded is kept (a skipped row)
  bool checks = false;  ///< --expect/--assert: such a tensor is kept too (its header facts still hold)
  bool expr = false;    ///< -e: the chosen tensors are an expression's input
  bool describes_tensor = false;  ///< --header or --graph: one tensor's facts, so not a header-only listing
};

/// Where resolve_input leads: tensors to show, or a file to list.
struct ResolvedInput {
  std::vector<SelectedTensor> items;  ///< the tensors to show, before -e (empty: a file to list, or no INPUT)
  std::optional<LoadedFile> file;     ///< set when the input is a file to list (no tensor chosen, --list, ...)
  std::string format;                 ///< the file's format, when the items come from one
  std::vector<std::string> warnings;  ///< what the file warns of (missing shards, pickle globals)
  std::optional<bool> many;           ///< a file's tensors shown as several, each under its name; unset: many_mode
};

/// True when the command line asks for several tensors whatever the file holds: a glob, several
/// --name, --all or --jsonl (a --name that is a tensor's exact name is settled by resolve_input).
bool many_mode(const InputRequest& request);

/// True when `input` is read as a Python literal: no such file, and it starts like a value
/// (a bracket, a digit, a sign, a quote, True/False/None/nan/inf).
bool is_literal_input(const std::string& input);

/// The tensors `request` shows, lazily: a literal (typed by --dtype, its Python numbers
/// committed with `defaults`), a file or stdin read by its format (quantization schemes
/// applied unless --stored), or --raw bytes; then the entries --name/--all choose, the one
/// tensor of a single-tensor file, or the file itself to list. Reads headers only. Throws
/// Error(Usage) for options that do not fit the input (each message names them), Error(BadFile)
/// for a file that cannot be read (and under --strict for one that warns), Error(NotFound) for a
/// --name that matches nothing, and whatever loading throws.
ResolvedInput resolve_input(const InputRequest& request, const Defaults& defaults);

/// open_file(path, format), logging a folder at -v: "dir: folder opened as a safetensors
/// checkpoint: 3 tensors in 2 files, 64 bytes stored; 0.412 ms". `role` ("A", "B") names
/// the side of a diff; empty otherwise. With `listing`, open_listing instead of open_file
/// (for a run that only lists: the tensors may come as header rows). Throws what they throw.
LoadedFile open_file_logged(const std::string& path, const std::optional<std::string>& format,
                            const std::string& role = "", bool listing = false);

/// What `files` warn of (a missing shard, pickle globals), in order, each warning once: a file
/// compared with itself, or two shards of one index, say it once. Null entries are skipped.
std::vector<std::string> warnings_once(const std::vector<const LoadedFile*>& files);

}  // namespace tensor_inspect
