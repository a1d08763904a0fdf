// schemes/scheme.hpp — one table row per quantization scheme: the parts it reads, the
// config.json keys it reads, and its decode (schemes/*.cpp). apply.cpp finds each scheme's
// groups of parts and swaps them for the logical entry the row builds.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

/// A broken group or config: Error(BadFile) with the tensor and the part it names (both
/// empty for a config key), so that validate can place it without parsing the message.
struct SchemeError : Error {
  SchemeError(const std::string& message, std::string tensor_name, std::string part_name)
      : Error(ErrorCode::BadFile, message), tensor(std::move(tensor_name)), part(std::move(part_name)) {}
  std::string tensor;  ///< the logical tensor, "" for a config key
  std::string part;    ///< the stored part, "" for a config key
  /// The parts agree with each other, but what they mean is not told without config.json
  /// (MLX's bits and group size): a file this tool cannot decode, not a broken one.
  bool undecided = false;
};

/// config.json as the scheme layer reads it (transformers' save_pretrained, mlx-lm's save).
struct SchemeConfig {
  /// `quantization_config`, or MLX's `quantization` (with quant_method "mlx" added).
  std::optional<nlohmann::json> quantization;
  std::string key = "quantization_config";  ///< which of the two it came from, for messages
  /// The model's `torch_dtype` (transformers >= 4.56 writes `dtype`) when it names a float
  /// dtype: what transformers computes a dequantized weight in where the scales do not say.
  std::optional<std::string> model_dtype;
  std::string name;                       ///< config.json's path, for messages
  std::optional<std::string> unreadable;  ///< why config.json says nothing (not JSON), when so
};

/// The stored tensors of one checkpoint by name, and the scheme config that applies.
struct SchemeInput {
  std::string file;  ///< the checkpoint's path, for messages
  std::map<std::string, const TensorEntry*> by_name;
  std::optional<nlohmann::json> config;  ///< quantization_config, when config.json has one
  std::string config_name;               ///< "config.json" path, for messages
  std::string config_key = "quantization_config";  ///< or MLX's "quantization", for messages
  std::optional<std::string> model_dtype;          ///< SchemeConfig::model_dtype

  /// The part `name` of the logical tensor `logical`; throws Error(BadFile) naming both
  /// and the scheme when it is missing.
  const TensorEntry& part(const std::string& logical, const std::string& name, std::string_view scheme) const;
  /// Like part(), nullptr when missing or in a shard that cannot be read.
  const TensorEntry* find(const std::string& name) const;
  /// Error(BadFile) "FILE: tensor 'LOGICAL': part 'PART' (scheme): WHAT".
  [[noreturn]] void fail(const std::string& logical, const std::string& part, std::string_view scheme,
                         const std::string& what) const;
  /// fail(), with SchemeError::undecided set.
  [[noreturn]] void undecided(const std::string& logical, const std::string& part, std::string_view scheme,
                              const std::string& what) const;
  /// `dim * factor` (a stored dimension times the values each element packs), or fail() naming
  /// the part when the logical dimension would overflow int64 (a header may declare a huge
  /// axis beside a zero one, which holds no bytes).
  std::int64_t scaled(const std::string& logical, const TensorEntry& part, std::string_view scheme, std::int64_t dim,
                      std::int64_t factor) const;
  /// Error(BadFile) "CONFIG: quantization_config.KEY: WHAT" (MLX: "quantization.KEY").
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

/// Where a broken group goes: unset, apply_schemes_with throws the first; set (validate),
/// each is passed to it and the group's parts stay listed as stored.
using SchemeFaultSink = std::function<void(const SchemeError&)>;
/// apply_schemes with a given config (no quantization: detect by the parts' names and dtypes).
void apply_schemes_with(LoadedFile& file, SchemeConfig config, const SchemeFaultSink& sink = {});
/// The same with a quantization config alone; `config_name` names it in messages. For tests
/// and the fuzz harness.
void apply_schemes_with(LoadedFile& file, std::optional<nlohmann::json> config, const std::string& config_name);
/// What the scheme layer reads of config.json's object: its quantization config (nullopt
/// when it has none) and the model's dtype; Error(BadFile) naming `config_name` when malformed.
SchemeConfig scheme_config_of(const nlohmann::json& config, const std::string& config_name);
/// scheme_config_of(config).quantization.
std::optional<nlohmann::json> quantization_config_of(const nlohmann::json& config, const std::string& config_name);
/// `folder`/config.json read (an empty config when there is none; `unreadable` set when it
/// is not JSON); Error(BadFile) when it is over the cap or malformed, Error(Io) unreadable.
SchemeConfig read_scheme_config(const std::filesystem::path& folder);
/// The folder whose config.json applies to `f`: a model folder, or an index's folder.
std::optional<std::filesystem::path> scheme_config_folder(const LoadedFile& f);

/// Element k of a scale part: `kind` 0 F32, 1 F16, 2 BF16 (little-endian).
float read_scale(const std::byte* base, std::int64_t k, int kind);
/// The `kind` of read_scale for part `s`, or Error(BadFile) naming it when not F16/BF16/F32.
int scale_kind(const SchemeInput& in, const std::string& logical, const TensorEntry& s, std::string_view scheme);
/// The integer config key `key`, `fallback` when there is no config or no such key;
/// Error(BadFile) naming it when it is not an integer.
std::int64_t config_int(const SchemeInput& in, const char* key, std::int64_t fallback);

/// The dtype name ("float16", "bfloat16", "float32") of a scale part stored as F16, BF16
/// or F32; "" for any other.
std::string scale_dtype_name(const TensorEntry& s);
/// Records what the producer's dequantization hands back: EntryDetails::producer_dtype
/// (`dtype` a dtype name), and "; PRODUCER hands back DTYPE" in the note. An empty `dtype`
/// (not known) records nothing.
void set_producer_dtype(TensorEntry& e, std::string_view producer, const std::string& dtype);

/// Shape helpers for the rows.
std::string shape_text(const Shape& s);
/// The sum of the parts' stored bytes, the first part's offset, a note listing the parts.
void set_stored(TensorEntry& e, const std::vector<const TensorEntry*>& parts, const std::vector<std::string>& roles);
/// The mapped bytes of a part for a decode, or Error(BadFile) naming it when they are not a
/// plain slice of a file (a missing shard).
std::shared_ptr<const MappedFile> part_file(const SchemeInput& in, const std::string& logical, const TensorEntry& part,
                                            std::string_view scheme);

}  // namespace tensor_inspect
