// compare/names_hf_gguf.hpp — `diff --names hf-gguf`: a llama-style Hugging Face model's tensor
// names as llama.cpp's converter writes them to a GGUF, and the converter's permutation of
// the q/k projections undone, so that a GGUF pairs with its original in one command.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "tensor_inspect/diff.hpp"
#include "tensor_inspect/loader.hpp"
#include "tensor_inspect/tensor.hpp"

namespace tensor_inspect {

/// The GGUF name of a llama-style Hugging Face tensor ("model.layers.3.self_attn.q_proj.weight"
/// -> "blk.3.attn_q.weight"), as gguf-py's tensor_mapping.py maps it for MODEL_ARCH.LLAMA;
/// nullopt for a name it does not map.
std::optional<std::string> hf_to_gguf_name(const std::string& hf_name);

/// Whether the converter (LlamaModel.modify_tensors) permuted this HF tensor's rows:
/// q_proj and k_proj weights and biases. `kv` is set for k_proj (the kv head count applies).
bool hf_permuted(const std::string& hf_name, bool& kv);

/// The head count LlamaModel.permute used for a q (kv false) or k (kv true) tensor, from a
/// GGUF's metadata (`{general.architecture}.attention.head_count` and `.head_count_kv`);
/// nullopt where the file does not say (or says it per layer).
std::optional<std::int64_t> gguf_head_count(const LoadedFile& gguf, bool kv);

/// `g` (a GGUF tensor) with LlamaModel.permute(w, n_head, n_head) undone: rows back in the
/// Hugging Face order, a lazy view (nothing read). Throws Error(BadShape) naming `label`
/// when its first axis is not a multiple of 2 * n_head.
Tensor undo_llama_permute(const Tensor& g, std::int64_t n_head, const std::string& label);

/// B's GGUF tensor `tb` with llama.cpp's q/k permutation undone where A's name says the
/// converter applied it; true when `tb` can be compared. False where the GGUF does not say
/// its head counts: `r` is then not comparable, its note saying why.
bool align_gguf_to_hf(DiffRow& r, const LoadedFile& gguf, Tensor& tb, const std::string& label_b);

}  // namespace tensor_inspect
