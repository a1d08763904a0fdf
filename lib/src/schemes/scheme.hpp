// schemes/scheme.hpp — one table row per quantization scheme: the parts it reads, the
// config.json keys it reads, and its decode (schemes/*.cpp). apply.cpp finds each scheme's
// groups of parts and swaps them for the logical entry the row builds.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

/// The stored tensors of one checkpoint by name, and the scheme config that applies.
struct SchemeInput {
  std::string file;  ///< the checkpoint's path, for messages
  std::map<std::string, const TensorEntry*> by_name;
  std::optional<nlohmann::json> config;  ///< quantization_config, when config.json has one
  std::string config_name;               ///< "config.json" path, for messages

  /// The part `name` of the logical tensor `logical`; throws Error(BadFile) naming both
  /// and the scheme when it is missing.
  const TensorEntry& part(const std::string& logical, const std::string& name, std::string_view scheme) const;
  /// Like part(), nullptr when missing or in a shard that cannot be read.
  const TensorEntry* find(const std::string& name) const;
  /// Error(BadFile) "FILE: tensor 'LOGICAL': part 'PART' (scheme): WHAT".
  [[noreturn]] void fail(const std::string& logical, const std::string& part, std::string_view scheme,
                         const std::string& what) const;
  /// `dim * factor` (a stored dimension times the values each element packs), or fail() naming
  /// the part when the logical dimension would overflow int64 (a header may declare a huge
  /// axis beside a zero one, which holds no bytes).
  std::int64_t scaled(const std::string& logical, const TensorEntry& part, std::string_view scheme, std::int64_t dim,
                      std::int64_t factor) const;
  /// Error(BadFile) "CONFIG: quantization_config.KEY: WHAT".
  [[noreturn]] void fail_config(const std::string& key, const std::string& what) const;
};

/// One group found: the logical entry and the names of the parts it replaces.
struct LogicalTensor {
  TensorEntry entry;
  std::vector<std::string> parts;
};

/// One quantization scheme.
struct SchemeRow {
  std::string_view name;                        ///< "fp8-block", "mxfp4"
  std::vector<std::string_view> quant_methods;  ///< config quant_method values that select it
  std::string_view key_suffix;                  ///< the part whose presence marks a group
  /// Whether a config with this quant_method selects the row (e.g. compressed-tensors' format).
  std::function<bool(const nlohmann::json& config)> selects;
  /// Builds the logical tensor of the group whose key part is `key_name` (prefix + key_suffix).
  /// nullopt when the group is another scheme's (without a config: e.g. NVFP4's
  /// `weight_scale`, which fp8's per-channel row also keys on). Throws for a broken group.
  std::function<std::optional<LogicalTensor>(const SchemeInput& in, const std::string& prefix)> build;
  /// With a config selecting the row: for a stored tensor no group claimed, the name of the
  /// key part it lacks when it looks like the row's main part (an F8_E4M3 `weight`).
  std::function<std::optional<std::string>(const TensorEntry& e)> orphan;
};

/// The rows, in the order detection tries them.
const std::vector<SchemeRow>& scheme_table();

// Rows, one file each.
SchemeRow scheme_fp8_block();
SchemeRow scheme_fp8_scale();
SchemeRow scheme_mxfp4();
SchemeRow scheme_nvfp4();
SchemeRow scheme_gptq();
SchemeRow scheme_awq();
SchemeRow scheme_mlx();
SchemeRow scheme_pack_quantized();
SchemeRow scheme_bnb();

/// apply_schemes with a given quantization config (nullopt: detect by the parts' names and
/// dtypes); `config_name` names it in messages. For tests and the fuzz harness.
void apply_schemes_with(LoadedFile& file, std::optional<nlohmann::json> config, const std::string& config_name);
/// config.json's `quantization_config` (or MLX's `quantization`, as quant_method "mlx"),
/// nullopt when it has neither; Error(BadFile) naming `config_name` when malformed.
std::optional<nlohmann::json> quantization_config_of(const nlohmann::json& config, const std::string& config_name);

/// Element k of a scale part: `kind` 0 F32, 1 F16, 2 BF16 (little-endian).
float read_scale(const std::byte* base, std::int64_t k, int kind);
/// The `kind` of read_scale for part `s`, or Error(BadFile) naming it when not F16/BF16/F32.
int scale_kind(const SchemeInput& in, const std::string& logical, const TensorEntry& s, std::string_view scheme);
/// The integer config key `key`, `fallback` when there is no config or no such key;
/// Error(BadFile) naming it when it is not an integer.
std::int64_t config_int(const SchemeInput& in, const char* key, std::int64_t fallback);

/// Shape helpers for the rows.
std::string shape_text(const Shape& s);
/// The sum of the parts' stored bytes, the first part's offset, a note listing the parts.
void set_stored(TensorEntry& e, const std::vector<const TensorEntry*>& parts, const std::vector<std::string>& roles);
/// The mapped bytes of a part for a decode, or Error(BadFile) naming it when they are not a
/// plain slice of a file (a missing shard).
std::shared_ptr<const MappedFile> part_file(const SchemeInput& in, const std::string& logical, const TensorEntry& part,
                                            std::string_view scheme);

}  // namespace tensor_inspect
