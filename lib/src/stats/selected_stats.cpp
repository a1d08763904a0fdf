// stats/selected_stats.cpp — statistics over several selected tensors (--name globs, --all):
// one picture path per tensor, and each tensor's row, a skipped one for values that cannot be
// shown (tensor_stats.hpp).
#include <filesystem>
#include <map>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/render.hpp"
#include "tensor_inspect/tensor_errors.hpp"
#include "tensor_inspect/tensor_stats.hpp"

namespace tensor_inspect {

std::vector<std::string> plot_paths_for(const std::string& pattern, const std::vector<SelectedTensor>& items) {
  const std::string count = std::to_string(items.size()) + (items.size() == 1 ? " tensor" : " tensors");
  if (items.size() > 1 && pattern.find("{name}") == std::string::npos)
    throw Error(ErrorCode::Usage,
                "--plot over " + count + ": put {name} in the path for one picture each (--plot 'hist-{name}.png')");
  std::vector<std::string> paths;
  for (const SelectedTensor& item : items) paths.push_back(plot_path_for(pattern, item.name.value_or("")));
  if (items.size() < 2) return paths;
  // Two names can give one path ("dir/a" and "dir_a": '/' is spelled '_'): the second PNG
  // would replace the first. Refused before a file is drawn, naming both tensors.
  std::map<std::string, const SelectedTensor*> taken;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto [at, fresh] = taken.emplace(std::filesystem::path(paths[i]).lexically_normal().string(), &items[i]);
    if (fresh) continue;
    auto quoted = [](const SelectedTensor& it) {
      return it.name ? "'" + escape_untrusted(*it.name, true) + "'" : std::string("(unnamed)");
    };
    throw Error(ErrorCode::Usage, "--plot '" + escape_untrusted(pattern, true) + "': tensors " + quoted(*at->second) +
                                      " and " + quoted(items[i]) + " both give the path " +
                                      escape_untrusted(paths[i], true) +
                                      " (a '/' or control character in a name becomes '_')");
  }
  return paths;
}

void refuse_unchecked(const std::vector<SelectedTensor>& items, const FailOn& fail_on, bool computed) {
  if (!fail_on.enabled() || computed) return;
  for (const SelectedTensor& item : items)
    if (!item.load_error.empty()) throw Error(ErrorCode::Unsupported, fail_on_unchecked(item.load_error));
}

TensorStatsResult selected_tensor_stats(const SelectedTensor& item, const TensorStatsRequest& request,
                                        const Defaults& defaults, PlotOutputs* plots) {
  const TensorEntry* entry = request.computed || !item.entry ? nullptr : &*item.entry;
  TensorStatsResult r;
  try {
    if (!item.load_error.empty()) throw Error(ErrorCode::Unsupported, item.load_error);
    r = for_tensor(item.label, [&] { return tensor_stats(item.tensor, entry, item.label, request, defaults, plots); });
  } catch (const Error& err) {
    // As for a whole file: a tensor whose values cannot be shown (a type we cannot
    // dequantize) is a skipped row, unless --fail-on was to check it; a corrupt file is
    // trouble and ends the run.
    if (!cannot_show(err) || !entry) throw;
    if (request.fail_on.enabled()) throw Error(err.code(), fail_on_unchecked(err.what()), err.place());
    r.row = stats_row_of(*entry);
    r.row.skipped = err.what();
  }
  if (r.row.name.empty() && item.name) r.row.name = *item.name;
  return r;
}

}  // namespace tensor_inspect
