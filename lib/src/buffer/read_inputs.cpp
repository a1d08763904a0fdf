// buffer/read_inputs.cpp — the files this run read as inputs, by device and inode, so that no
// output replaces one: a --plot or export path naming an ONNX model's external data, a shard
// of the folder being read, or a config.json the scheme layer read is refused like the input
// named on the command line (output/safe_write.cpp asks before staging and again at commit,
// when every file the run needed has been opened).
#include <sys/stat.h>

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

#include "tensor_inspect/buffer.hpp"

namespace tensor_inspect {

namespace {

std::mutex read_inputs_mutex;
std::vector<std::pair<std::uint64_t, std::uint64_t>> read_inputs;  // (st_dev, st_ino)

}  // namespace

void note_input_read(std::uint64_t dev, std::uint64_t ino) {
  const std::lock_guard<std::mutex> lock(read_inputs_mutex);
  const std::pair<std::uint64_t, std::uint64_t> key{dev, ino};
  if (std::find(read_inputs.begin(), read_inputs.end(), key) == read_inputs.end()) read_inputs.push_back(key);
}

void note_input_path(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
    note_input_read(static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino));
}

bool was_read_as_input(std::uint64_t dev, std::uint64_t ino) {
  const std::lock_guard<std::mutex> lock(read_inputs_mutex);
  return std::find(read_inputs.begin(), read_inputs.end(), std::make_pair(dev, ino)) != read_inputs.end();
}

}  // namespace tensor_inspect
