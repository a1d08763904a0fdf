// input/open_logged.cpp — opening an input with what -v says about it: the loaders log each
// file they parse (format, counts, header time); a model folder, which open_file reads as one
// checkpoint without a line of its own, is logged here with its tensors and time.
#include "tensor_inspect/input.hpp"

#include <chrono>
#include <filesystem>
#include <set>

#include "log/log.hpp"
#include "tensor_inspect/counts.hpp"
#include "tensor_inspect/remote.hpp"
#include "tensor_inspect/render.hpp"

namespace tensor_inspect {

LoadedFile open_file_logged(const std::string& path, const std::optional<std::string>& format, const std::string& role,
                            bool listing) {
  const auto start = std::chrono::steady_clock::now();
  std::error_code ec;
  const bool folder = path != "-" && !format && std::filesystem::is_directory(path, ec);
  LoadedFile lf = listing ? open_listing(path, format) : open_file(path, format);
  if (folder && lib_log().should_log(spdlog::level::info)) {
    std::set<const MappedFile*> files;  // the shards the tensors lie in
    std::uint64_t stored = 0;
    for (const TensorEntry& e : lf.tensors) {
      stored += e.nbytes;
      if (e.file) files.insert(e.file.get());
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    lib_log().info("{}{}: folder opened as a {} checkpoint: {} in {}, {} stored; {:.3f} ms",
                   role.empty() ? "" : role + ": ", escape_untrusted(input_name(path), false), lf.format,
                   count_of(lf.tensors.size(), "tensor"), count_of(files.size(), "file"), count_of(stored, "byte"), ms);
  }
  return lf;
}

}  // namespace tensor_inspect
