// render/architecture.cpp — architecture facts from config.json or GGUF metadata, and the
// parameter count of a llama-like decoder (architecture.hpp).
#include "render/architecture.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tensor_inspect/buffer.hpp"
#include "tensor_inspect/error.hpp"
#include "tensor_inspect/limits.hpp"
#include "tensor_inspect/remote.hpp"
#include "tensor_inspect/render.hpp"

namespace tensor_inspect {
namespace {

using ArchJson = nlohmann::json;

std::optional<std::uint64_t> count_at(const ArchJson& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_unsigned()) return std::nullopt;
  return it->get<std::uint64_t>();
}

std::optional<Architecture> from_config(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  const auto size = std::filesystem::file_size(path, ec);
  // The same cap as the scheme layer's read of config.json (limits.hpp).
  if (ec || size > kMaxConfigJsonBytes)
    throw Error(ErrorCode::BadFile, path.string() + ": config.json of " + std::to_string(size) +
                                        " bytes is larger than " + std::to_string(kMaxConfigJsonBytes));
  note_input_path(path.string());  // no output may replace it (buffer.hpp)
  std::ifstream f(path, std::ios::binary);
  std::ostringstream text;
  text << f.rdbuf();
  ArchJson top = ArchJson::parse(text.str(), nullptr, false);
  if (top.is_discarded() || !top.is_object()) throw Error(ErrorCode::BadFile, path.string() + ": not a JSON object");
  // Multimodal configs hold the language model's keys in text_config.
  const ArchJson& j =
      top.contains("text_config") && top["text_config"].is_object() && !top.contains("num_hidden_layers")
          ? top["text_config"]
          : top;
  Architecture a;
  a.source = "config.json";
  const ArchJson* const both[] = {&j, &top};
  for (const ArchJson* c : both)
    if (!a.name && c->contains("model_type") && (*c)["model_type"].is_string())
      a.name = (*c)["model_type"].get<std::string>();
  a.layers = count_at(j, "num_hidden_layers");
  a.hidden = count_at(j, "hidden_size");
  a.heads = count_at(j, "num_attention_heads");
  a.kv_heads = count_at(j, "num_key_value_heads");
  if (!a.kv_heads) a.kv_heads = a.heads;  // transformers' default: no grouped-query attention
  a.head_dim = count_at(j, "head_dim");
  a.intermediate = count_at(j, "intermediate_size");
  a.vocab = count_at(j, "vocab_size");
  a.context = count_at(j, "max_position_embeddings");
  for (const ArchJson* c : both)
    if (!a.tied_embeddings && c->contains("tie_word_embeddings") && (*c)["tie_word_embeddings"].is_boolean())
      a.tied_embeddings = (*c)["tie_word_embeddings"].get<bool>();
  if (top.contains("quantization_config") && top["quantization_config"].is_object() &&
      top["quantization_config"].contains("quant_method") && top["quantization_config"]["quant_method"].is_string())
    a.quantization = top["quantization_config"]["quant_method"].get<std::string>();
  return a;
}

const MetaEntry* meta(const LoadedFile& f, const std::string& key) {
  for (const MetaEntry& m : f.metadata)
    if (m.key == key) return &m;
  return nullptr;
}

std::optional<std::uint64_t> meta_count(const LoadedFile& f, const std::string& key) {
  const MetaEntry* m = meta(f, key);
  if (!m || !m->value.is_number_unsigned()) return std::nullopt;
  return m->value.get<std::uint64_t>();
}

std::optional<Architecture> from_gguf(const LoadedFile& f) {
  const MetaEntry* arch = meta(f, "general.architecture");
  if (f.format != "gguf" || !arch || !arch->value.is_string()) return std::nullopt;
  Architecture a;
  a.source = "gguf";
  const std::string p = arch->value.get<std::string>();
  a.name = p;
  a.layers = meta_count(f, p + ".block_count");
  a.hidden = meta_count(f, p + ".embedding_length");
  a.heads = meta_count(f, p + ".attention.head_count");
  a.kv_heads = meta_count(f, p + ".attention.head_count_kv");
  if (!a.kv_heads) a.kv_heads = a.heads;  // llama.cpp's default when the key is absent
  a.head_dim = meta_count(f, p + ".attention.key_length");
  a.intermediate = meta_count(f, p + ".feed_forward_length");
  a.context = meta_count(f, p + ".context_length");
  a.vocab = meta_count(f, p + ".vocab_size");
  // A GGUF array stays in the file (MetaEntry::array): its count is read, no token decoded.
  if (const MetaEntry* tokens = meta(f, "tokenizer.ggml.tokens"); !a.vocab && tokens && tokens->array)
    a.vocab = tokens->array->size();
  else if (tokens && !a.vocab && tokens->value.is_array())
    a.vocab = tokens->value.size();
  bool output = false;
  for (const TensorEntry& e : f.tensors) output |= e.name == "output.weight";
  a.tied_embeddings = !output;
  return a;
}

std::string fact(const std::optional<std::uint64_t>& v) { return v ? std::to_string(*v) : "?"; }

}  // namespace

std::optional<Architecture> architecture_of(const std::string& input, const LoadedFile& file) {
  std::error_code ec;
  if (!is_url(input) && input != "-" && std::filesystem::is_directory(input, ec))
    if (auto a = from_config(std::filesystem::path(input) / "config.json")) return a;
  return from_gguf(file);
}

std::optional<std::uint64_t> implied_parameters(const Architecture& a) {
  if (!a.name || (*a.name != "llama" && *a.name != "mistral" && *a.name != "qwen2")) return std::nullopt;
  if (!a.layers || !a.hidden || !a.heads || !a.kv_heads || !a.intermediate || !a.vocab || *a.heads == 0)
    return std::nullopt;
  const std::uint64_t h = *a.hidden, hd = a.head_dim.value_or(h / *a.heads);
  const std::uint64_t q = *a.heads * hd, kv = *a.kv_heads * hd;
  std::uint64_t layer = h * q + 2 * h * kv + q * h  // q, k, v, o projections
                        + 3 * h * *a.intermediate    // gate, up, down
                        + 2 * h;                     // input and post-attention norms
  if (*a.name == "qwen2") layer += q + 2 * kv;       // q, k, v biases
  const std::uint64_t embeddings = *a.vocab * h * (a.tied_embeddings.value_or(false) ? 1 : 2);
  return embeddings + *a.layers * layer + h;  // + the final norm
}

std::string architecture_text(const Architecture& a) {
  std::string s = (a.name ? escape_untrusted(*a.name, true) : "?") + " (" + a.source + "): " + fact(a.layers) +
                  " layers, hidden " + fact(a.hidden) + ", " + fact(a.heads) + " heads (" + fact(a.kv_heads) +
                  " kv), vocab " + fact(a.vocab) + ", context " + fact(a.context);
  if (a.intermediate) s += ", feed-forward " + std::to_string(*a.intermediate);
  if (a.quantization) s += ", quantization " + escape_untrusted(*a.quantization, true);
  return s;
}

nlohmann::ordered_json architecture_json(const std::optional<Architecture>& a) {
  if (!a) return nullptr;
  const auto opt = [](const auto& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr); };
  nlohmann::ordered_json j;
  j["source"] = a->source;
  j["name"] = opt(a->name);
  j["layers"] = opt(a->layers);
  j["hidden_size"] = opt(a->hidden);
  j["heads"] = opt(a->heads);
  j["kv_heads"] = opt(a->kv_heads);
  j["head_dim"] = opt(a->head_dim);
  j["intermediate_size"] = opt(a->intermediate);
  j["vocab_size"] = opt(a->vocab);
  j["context_length"] = opt(a->context);
  j["tied_embeddings"] = opt(a->tied_embeddings);
  j["quantization"] = opt(a->quantization);
  return j;
}

}  // namespace tensor_inspect
