// fuzz/fuzz_validate.cpp — `validate` (validate/): every checker and the loader it runs
// after them, over a file written to a private temporary directory.
//   byte 0  the file's extension, for inputs whose magic bytes match no format
//           (mod 6: .npy .npz .safetensors .gguf .pt .index.json)
//   then    the file's bytes
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "harness.hpp"
#include "tensor_inspect/validate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const std::filesystem::path dir = [] {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ti-fuzz-validate-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) std::abort();
    return std::filesystem::path(tmpl);
  }();
  static const char* const extensions[] = {".npy", ".npz", ".safetensors", ".gguf", ".pt", ".index.json"};
  const std::filesystem::path path = dir / (std::string("input") + extensions[data[0] % 6]);
  for (const auto& e : std::filesystem::directory_iterator(dir)) std::filesystem::remove(e.path());
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  }
  fuzz::guarded([&] { (void)ti::validate_file(path.string()); });
  return 0;
}
