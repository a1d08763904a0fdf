// fuzz/fuzz_schemes.cpp — quantization scheme detection and decode (schemes/): a config.json
// quantization config and safetensors parts that may disagree with it or with each other.
//
// Input: the config's JSON text up to the first '\n' (not an object, or a line without a
// quantization config: the parts' names and dtypes decide), then a safetensors file.
#include <algorithm>

#include "harness.hpp"
#include "loaders/formats.hpp"
#include "schemes/scheme.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::uint8_t* nl = std::find(data, data + size, static_cast<std::uint8_t>('\n'));
  const std::size_t head = static_cast<std::size_t>(nl - data);
  const std::size_t rest = head < size ? head + 1 : size;
  fuzz::guarded([&] {
    ti::LoadedFile f = ti::open_safetensors(fuzz::file_of(data + rest, size - rest, "fuzz.safetensors"));
    std::optional<nlohmann::json> config;
    const nlohmann::json j = nlohmann::json::parse(fuzz::text_of(data, head), nullptr, false);
    if (!j.is_discarded()) config = ti::quantization_config_of(j, "config.json");
    ti::apply_schemes_with(f, std::move(config), "config.json");
    fuzz::inspect(f);
  });
  return 0;
}
