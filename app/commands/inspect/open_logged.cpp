// app/commands/inspect/open_logged.cpp — see open_logged.hpp.
#include "commands/inspect/open_logged.hpp"

#include <chrono>
#include <filesystem>
#include <set>

#include <spdlog/spdlog.h>

#include "tensor_inspect/counts.hpp"
#include "tensor_inspect/remote.hpp"
#include "tensor_inspect/render.hpp"

namespace tensor_inspect::app {

LoadedFile open_file_logged(const std::string& path, const std::optional<std::string>& format, const std::string& role,
                            bool listing) {
  const auto start = std::chrono::steady_clock::now();
  std::error_code ec;
  const bool folder = path != "-" && !format && std::filesystem::is_directory(path, ec);
  LoadedFile lf = listing ? open_listing(path, format) : open_file(path, format);
  if (folder && spdlog::should_log(spdlog::level::info)) {
    std::set<const MappedFile*> files;  // the shards the tensors lie in
    std::uint64_t stored = 0;
    for (const TensorEntry& e : lf.tensors) {
      stored += e.nbytes;
      if (e.file) files.insert(e.file.get());
    }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    spdlog::info("{}{}: folder opened as a {} checkpoint: {} in {}, {} stored; {:.3f} ms",
                 role.empty() ? "" : role + ": ", escape_untrusted(input_name(path), false), lf.format,
                 count_of(lf.tensors.size(), "tensor"), count_of(files.size(), "file"), count_of(stored, "byte"), ms);
  }
  return lf;
}

}  // namespace tensor_inspect::app
