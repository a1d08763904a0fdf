// compare/names_hf_gguf.cpp — llama.cpp's converter's names and q/k permutation (names_hf_gguf.hpp).
//
// The names are those gguf-py/gguf/tensor_mapping.py (ggml-org/llama.cpp) gives the
// Hugging Face llama names (TensorNameMap: MODEL_TENSOR.TOKEN_EMBD "model.embed_tokens",
// OUTPUT_NORM "model.norm", OUTPUT "lm_head", ATTN_NORM "model.layers.{bid}.input_layernorm",
// ATTN_Q/K/V/OUT "...self_attn.q_proj/k_proj/v_proj/o_proj", FFN_NORM
// "...post_attention_layernorm", FFN_GATE/UP/DOWN "...mlp.gate_proj/up_proj/down_proj"),
// spelled as gguf-py/gguf/constants.py's TENSOR_NAMES ("token_embd", "blk.{bid}.attn_q").
// The permutation is convert_hf_to_gguf.py's LlamaModel.permute, applied in
// LlamaModel.modify_tensors to q_proj (n_head, n_head) and k_proj (n_head, n_kv_head):
//   w.reshape(n, 2, rows // n // 2, *rest).swapaxes(1, 2).reshape(w.shape)
// where n is n_kv_head when it is given and differs from n_head.
#include "compare/names_hf_gguf.hpp"

#include <regex>
#include <vector>

#include "tensor_inspect/error.hpp"
#include "tensor_inspect/view.hpp"

namespace tensor_inspect {
namespace {

struct LayerName {
  const char* hf;
  const char* gguf;
};
constexpr LayerName kLayerNames[] = {
    {"input_layernorm", "attn_norm"}, {"self_attn.q_proj", "attn_q"},      {"self_attn.k_proj", "attn_k"},
    {"self_attn.v_proj", "attn_v"},   {"self_attn.o_proj", "attn_output"}, {"post_attention_layernorm", "ffn_norm"},
    {"mlp.gate_proj", "ffn_gate"},    {"mlp.up_proj", "ffn_up"},           {"mlp.down_proj", "ffn_down"},
};

}  // namespace

std::optional<std::string> hf_to_gguf_name(const std::string& hf_name) {
  static const std::regex layer(R"(^model\.layers\.(\d+)\.(.+)\.(weight|bias)$)");
  static const std::regex top(R"(^(model\.embed_tokens|model\.norm|lm_head)\.(weight|bias)$)");
  std::smatch m;
  if (std::regex_match(hf_name, m, top)) {
    const std::string base = m[1] == "model.embed_tokens" ? "token_embd"
                             : m[1] == "model.norm"       ? "output_norm"
                                                          : "output";
    return base + "." + m[2].str();
  }
  if (std::regex_match(hf_name, m, layer))
    for (const LayerName& n : kLayerNames)
      if (m[2] == n.hf) return "blk." + m[1].str() + "." + n.gguf + "." + m[3].str();
  return std::nullopt;
}

bool hf_permuted(const std::string& hf_name, bool& kv) {
  for (const char* suffix : {".self_attn.q_proj.weight", ".self_attn.q_proj.bias"})
    if (hf_name.ends_with(suffix)) {
      kv = false;
      return true;
    }
  for (const char* suffix : {".self_attn.k_proj.weight", ".self_attn.k_proj.bias"})
    if (hf_name.ends_with(suffix)) {
      kv = true;
      return true;
    }
  return false;
}

std::optional<std::int64_t> gguf_head_count(const LoadedFile& gguf, bool kv) {
  auto find = [&](const std::string& key) -> const nlohmann::ordered_json* {
    for (const MetaEntry& m : gguf.metadata)
      if (m.key == key) return &m.value;
    return nullptr;
  };
  const nlohmann::ordered_json* arch = find("general.architecture");
  if (!arch || !arch->is_string()) return std::nullopt;
  const std::string prefix = arch->get<std::string>() + ".attention.";
  const nlohmann::ordered_json* heads = find(prefix + "head_count");
  if (!heads || !heads->is_number_integer() || heads->get<std::int64_t>() <= 0) return std::nullopt;
  if (kv)  // the converter writes head_count_kv only where config.json has num_key_value_heads
    if (const nlohmann::ordered_json* h = find(prefix + "head_count_kv")) {
      if (!h->is_number_integer() || h->get<std::int64_t>() <= 0) return std::nullopt;
      return h->get<std::int64_t>();
    }
  return heads->get<std::int64_t>();
}

Tensor undo_llama_permute(const Tensor& g, std::int64_t n_head, const std::string& label) {
  const Shape& shape = g.shape();
  if (shape.empty() || n_head <= 0 || shape[0] % (2 * n_head) != 0)
    throw Error(ErrorCode::BadShape, label + ": shape " + shape_repr(shape) + " is not " + std::to_string(n_head) +
                                         " heads of an even number of rows (LlamaModel.permute cannot be undone)");
  // The GGUF's rows are (head, half-row, pair); the HF rows are (head, pair, half-row).
  Shape split{n_head, shape[0] / n_head / 2, 2};
  std::vector<std::int64_t> order{0, 2, 1};
  for (std::size_t ax = 1; ax < shape.size(); ++ax) {
    split.push_back(shape[ax]);
    order.push_back(static_cast<std::int64_t>(ax) + 2);
  }
  return g.reshape(split).permute(order).reshape(shape);
}

bool align_gguf_to_hf(DiffRow& r, const LoadedFile& gguf, Tensor& tb, const std::string& label_b) {
  bool kv = false;
  if (!hf_permuted(r.a->name, kv) || r.a->name == r.b->name) return true;
  const std::optional<std::int64_t> heads = gguf_head_count(gguf, kv);
  if (!heads) {
    r.status = DiffStatus::NotComparable;
    r.note =
        "llama.cpp's converter permuted its rows by head (LlamaModel.permute), and the GGUF does not state "
        "its head " +
        std::string(kv ? "counts (attention.head_count, .head_count_kv)" : "count (attention.head_count)") +
        ": values cannot be paired as stored";
    return false;
  }
  tb = undo_llama_permute(tb, *heads, label_b);
  return true;
}

}  // namespace tensor_inspect
