// app/commands/hash/hash_inputs.hpp — what the hash subcommand's two modes share: its inputs opened
// as one list of tensors with the names they are shown under, and the --check mode.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "commands/hash/hash.hpp"
#include "tensor_inspect/hash.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect::app {

/// The tensors of every input, in input and file order.
struct HashInputs {
  std::vector<std::string> labels;      ///< each input as shown (a URL without credentials, <stdin>)
  std::vector<LoadedFile> files;        ///< kept open: the entries' bytes live in them
  std::vector<TensorEntry> entries;     ///< every tensor of every input
  std::vector<std::string> names;       ///< entries[i]'s name, or its input's label for an unnamed tensor
};

/// Opens every input (standard input at most once). Throws Error(Usage) when two inputs
/// hold a tensor of one name, and what opening a file throws.
HashInputs open_hash_inputs(const std::vector<std::string>& inputs);

/// Logs what the files warn of (a missing shard, pickle globals), once each, on stderr.
void warn_of_inputs(const HashInputs& in);

/// `hash --check`: see run_hash.
int run_hash_check(const HashOptions& o);

}  // namespace tensor_inspect::app
