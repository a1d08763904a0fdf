// select/selection.cpp — --name globs and --all over a file's tensors.
#include "tensor_inspect/selection.hpp"

#include <fnmatch.h>

#include <algorithm>

#include "tensor_inspect/counts.hpp"
#include "tensor_inspect/error.hpp"

namespace tensor_inspect {

bool is_glob(const std::string& pattern) { return pattern.find_first_of("*?[") != std::string::npos; }

bool glob_matches(const std::string& pattern, const std::string& name) {
  return pattern == name || ::fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

std::vector<std::string> close_matches(const std::string& want, const std::vector<TensorEntry>& entries) {
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
      cur[0] = i;
      for (std::size_t j = 1; j <= b.size(); ++j)
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      std::swap(prev, cur);
    }
    return prev[b.size()];
  };
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const auto& e : entries) {
    if (e.name.empty()) continue;
    std::size_t d = e.name.find(want) != std::string::npos ? 0 : distance(want, e.name);
    if (d <= std::max<std::size_t>(3, want.size() / 3)) scored.push_back({d, e.name});
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < 5; ++i) out.push_back(scored[i].second);
  return out;
}

bool names_a_tensor(const LoadedFile& file, const std::string& pattern) {
  for (const TensorEntry& e : file.tensors)
    if (e.name == pattern) return true;
  return false;
}

std::vector<std::size_t> select_entries(const LoadedFile& file, const std::vector<std::string>& patterns, bool all) {
  std::vector<std::size_t> out;
  std::vector<bool> used(patterns.size(), false), exact(patterns.size(), false);
  for (std::size_t p = 0; p < patterns.size(); ++p) exact[p] = names_a_tensor(file, patterns[p]);
  for (std::size_t i = 0; i < file.tensors.size(); ++i) {
    bool take = all;
    const std::string& name = file.tensors[i].name;
    for (std::size_t p = 0; p < patterns.size(); ++p)
      if (exact[p] ? name == patterns[p] : glob_matches(patterns[p], name)) take = used[p] = true;
    if (take) out.push_back(i);
  }
  for (std::size_t p = 0; p < patterns.size(); ++p) {
    if (used[p]) continue;
    std::string msg = file.path + ": no tensor " + (is_glob(patterns[p]) ? "matches '" : "named '") + patterns[p] + "'";
    auto near = close_matches(patterns[p], file.tensors);
    if (!near.empty()) {
      msg += "; close matches:";
      for (std::size_t i = 0; i < near.size(); ++i) msg += (i ? ", '" : " '") + near[i] + "'";
    } else if (file.tensors.size() == 1 && file.tensors[0].name.empty()) {
      msg += " (it holds one unnamed tensor: drop --name)";
    } else {
      msg += " (" + count_of(file.tensors.size(), "tensor") + "; --list shows them)";
    }
    throw Error(ErrorCode::NotFound, msg);
  }
  return out;
}

}  // namespace tensor_inspect
