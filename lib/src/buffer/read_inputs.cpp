// buffer/read_inputs.cpp — the files this run read as inputs, by device and inode, so that no
// output replaces one: a --plot or export path naming an ONNX model's external data, a shard
// of the folder being read, or a config.json the scheme layer read is refused like the input
// named on the command line (output/safe_write.cpp asks before staging and again at commit,
// when every file the run needed has been opened).
#include <sys/stat.h>

#include <algorithm>
#include <mutex>
#include <tuple>
#include <utility>
#include <vector>

#include "buffer/read_inputs.hpp"
#include "tensor_inspect/buffer.hpp"

namespace tensor_inspect {

namespace {

std::mutex read_inputs_mutex;
std::vector<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>> read_inputs;  // (st_dev, st_ino, ctime ns)

std::uint64_t ctime_ns(const struct stat& st) {
  const auto seconds = static_cast<std::uint64_t>(st.st_ctim.tv_sec);
  return seconds * 1'000'000'000U + static_cast<std::uint64_t>(st.st_ctim.tv_nsec);
}

}  // namespace

void note_input_stat(const struct stat& st) {
  if (S_ISREG(st.st_mode))
    note_input_read(static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino), ctime_ns(st));
}

bool was_read_as_input(const struct stat& st) {
  return was_read_as_input(static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino), ctime_ns(st));
}

void note_input_read(std::uint64_t dev, std::uint64_t ino, std::uint64_t ctime_ns) {
  const std::lock_guard<std::mutex> lock(read_inputs_mutex);
  const std::tuple<std::uint64_t, std::uint64_t, std::uint64_t> key{dev, ino, ctime_ns};
  if (std::find(read_inputs.begin(), read_inputs.end(), key) == read_inputs.end()) read_inputs.push_back(key);
}

void note_input_path(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) note_input_stat(st);
}

bool was_read_as_input(std::uint64_t dev, std::uint64_t ino, std::uint64_t ctime_ns) {
  const std::lock_guard<std::mutex> lock(read_inputs_mutex);
  return std::find(read_inputs.begin(), read_inputs.end(), std::make_tuple(dev, ino, ctime_ns)) != read_inputs.end();
}

}  // namespace tensor_inspect
