// render/architecture.hpp — a checkpoint's architecture facts for --overview: from a model
// folder's config.json (Hugging Face's keys) or a GGUF file's metadata (llama.cpp's
// <arch>.* keys), and the parameter count they imply for the decoder families whose
// tensors follow from them (llama, mistral, qwen2).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tensor_inspect/loader.hpp"

namespace tensor_inspect {

/// What config.json or GGUF metadata says; every fact optional.
struct Architecture {
  std::string source;                     ///< "config.json" or "gguf"
  std::optional<std::string> name;        ///< model_type / general.architecture
  std::optional<std::uint64_t> layers;    ///< num_hidden_layers / <arch>.block_count
  std::optional<std::uint64_t> hidden;    ///< hidden_size / <arch>.embedding_length
  std::optional<std::uint64_t> heads;     ///< num_attention_heads / <arch>.attention.head_count
  std::optional<std::uint64_t> kv_heads;  ///< num_key_value_heads / <arch>.attention.head_count_kv
  std::optional<std::uint64_t> head_dim;  ///< head_dim / <arch>.attention.key_length
  std::optional<std::uint64_t> intermediate;  ///< intermediate_size / <arch>.feed_forward_length
  std::optional<std::uint64_t> vocab;     ///< vocab_size / <arch>.vocab_size or the tokenizer's token count
  std::optional<std::uint64_t> context;   ///< max_position_embeddings / <arch>.context_length
  std::optional<bool> tied_embeddings;    ///< tie_word_embeddings / no output.weight tensor
  std::optional<std::string> quantization;  ///< quantization_config.quant_method (config.json)
};

/// The facts of `input`: its config.json when it is a folder holding one, else the GGUF
/// metadata of `file`; nullopt when neither exists. Throws Error(BadFile) naming config.json
/// when it is not JSON or too large (index_bytes).
std::optional<Architecture> architecture_of(const std::string& input, const LoadedFile& file);

/// The parameters a llama-like decoder of these facts has (embeddings, output unless tied,
/// per layer q/k/v/o projections, gate/up/down MLP and two norms, the final norm; qwen2 adds
/// q/k/v biases); nullopt for another family or when a fact is missing.
std::optional<std::uint64_t> implied_parameters(const Architecture& a);

/// One line: "llama (config.json): 32 layers, hidden 4096, 32 heads (8 kv), vocab 128256, context 131072".
std::string architecture_text(const Architecture& a);
/// {"source", "name", "layers", "hidden_size", "heads", "kv_heads", "head_dim", "intermediate_size",
/// "vocab_size", "context_length", "tied_embeddings", "quantization"}, null where unknown.
nlohmann::ordered_json architecture_json(const std::optional<Architecture>& a);

}  // namespace tensor_inspect
