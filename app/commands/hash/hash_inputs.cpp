// app/commands/hash/hash_inputs.cpp — the hash subcommand's inputs as one list of named tensors.
#include "commands/hash/hash_inputs.hpp"

#include <algorithm>
#include <map>

#include <spdlog/spdlog.h>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/remote.hpp"
#include "tensor_inspect/render.hpp"

namespace tensor_inspect::app {

HashInputs open_hash_inputs(const std::vector<std::string>& inputs) {
  if (std::count(inputs.begin(), inputs.end(), "-") > 1) throw Error(ErrorCode::Usage, "hash: standard input (-) can be given once");
  HashInputs in;
  std::map<std::string, std::string> seen;  // tensor name -> the input holding it
  for (const std::string& arg : inputs) {
    LoadedFile f = open_file(arg);
    const std::string label = arg == "-" ? "<stdin>" : input_name(arg);
    for (const TensorEntry& e : f.tensors) {
      const std::string name = e.name.empty() ? label : e.name;
      const auto [it, fresh] = seen.emplace(name, label);
      if (!fresh)
        throw Error(ErrorCode::Usage, "hash: tensor '" + name + "' is in " + it->second + " and in " + label +
                                          ": a tensor name can be given once among the inputs");
      in.entries.push_back(e);
      in.names.push_back(name);
    }
    in.labels.push_back(label);
    in.files.push_back(std::move(f));
  }
  return in;
}

void warn_of_inputs(const HashInputs& in) {
  std::vector<std::string> said;
  for (const LoadedFile& f : in.files)
    for (const std::string& w : f.warnings)
      if (std::find(said.begin(), said.end(), w) == said.end()) {
        said.push_back(w);
        spdlog::warn("{}", escape_untrusted(w, false));
      }
}

}  // namespace tensor_inspect::app
