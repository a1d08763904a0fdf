// input/warnings_once.cpp — what several opened files warn of, each warning once (input.hpp).
#include <algorithm>

#include "tensor_inspect/input.hpp"

namespace tensor_inspect {

std::vector<std::string> warnings_once(const std::vector<const LoadedFile*>& files) {
  std::vector<std::string> said;
  for (const LoadedFile* f : files)
    if (f)
      for (const std::string& w : f->warnings)
        if (std::find(said.begin(), said.end(), w) == said.end()) said.push_back(w);
  return said;
}

}  // namespace tensor_inspect
