// fuzz/fuzz_safetensors_index.cpp — sharded checkpoints (loaders/safetensors_index.cpp):
// an index.json and its shards, written to a private temporary directory per input.
//   byte 0  number of shards (mod 5)
//   per shard: name_len u8, name (characters outside [A-Za-z0-9._-] become '_'),
//              data_len u16 LE, the shard's bytes
//   then    the index's JSON text
// The index may name any shard; the loader must keep to the index's directory, so the
// harness only ever writes inside its own.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "harness.hpp"
#include "loaders/formats.hpp"

namespace {

const std::filesystem::path& work_dir() {
  static const std::filesystem::path dir = [] {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ti-fuzz-index-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) std::abort();
    return std::filesystem::path(tmpl);
  }();
  return dir;
}

std::string safe_name(std::string name) {
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
  if (name.empty() || name == "." || name == "..") name = "shard";
  return name;
}

void write(const std::filesystem::path& p, const std::uint8_t* data, std::size_t n) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(n));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::filesystem::path& dir = work_dir();
  for (const auto& e : std::filesystem::directory_iterator(dir)) std::filesystem::remove(e.path());
  std::size_t at = 1;
  const unsigned shards = data[0] % 5u;
  for (unsigned i = 0; i < shards; ++i) {
    if (size - at < 1 || size - at - 1 < data[at]) return 0;
    std::string name = safe_name(std::string(reinterpret_cast<const char*>(data + at + 1), data[at]));
    at += 1 + data[at];
    if (size - at < 2) return 0;
    const std::size_t n = data[at] | std::size_t{data[at + 1]} << 8;
    at += 2;
    if (size - at < n) return 0;
    write(dir / name, data + at, n);
    at += n;
  }
  const std::filesystem::path index = dir / "model.safetensors.index.json";
  write(index, data + at, size - at);
  fuzz::guarded([&] { fuzz::inspect(ti::open_safetensors_index(ti::MappedFile::open(index.string()))); });
  return 0;
}
