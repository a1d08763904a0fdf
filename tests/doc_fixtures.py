"""The folder the examples of README.md and docs/*.md run in (tests/doc_examples.py).

Besides `samples/` (a link to the repository's samples), it holds small files under the names
the examples use, written here with NumPy and the standard library, values exact in every
dtype used (multiples of 1/64 up to 50/64, which bfloat16 holds exactly), so every printed
digit is deterministic:

- `model.safetensors`: a tiny llama-shaped checkpoint in bfloat16 (vocab 64, hidden 16,
  2 layers, 2 heads, feed-forward 32), the names transformers writes;
- `my-model/`: that file with its `config.json`, a Hugging Face model folder;
- `converted.safetensors`: the same tensors in float32, one value of `model.norm.weight` off
  by 1/64 (a conversion to check with diff);
- `x.npy` (float32, 3 x 4), `big.npy` (float32 arange of 5000), `a.npz`, `b.npz` (b's `w`
  differs from a's in one element), `broken.safetensors` (two tensors overlapping, a hole);
- `fp8-model/`: a quantized folder as DeepSeek-V3 and Qwen3-FP8 write it (fp8 e4m3 codes, one
  float32 scale per 128 x 128 block, `config.json`'s `quantization_config`).
"""
import json
import os
import shutil
import struct

import numpy as np

from quant_writers import bf16_bytes, fp8_block_quantize, write_config, write_safetensors

VOCAB, HIDDEN, LAYERS, HEADS, FFN = 64, 16, 2, 2, 32


def exact_values(n, seed):
    """n float32 values k/64 with |k| <= 50, a fixed pattern per seed (no RNG: same on every NumPy)."""
    k = (np.arange(n, dtype=np.int64) * 37 + seed * 11) % 101 - 50
    return (k / 64.0).astype(np.float32)


def llama_tensors():
    """{name: float32 array} in the order transformers' llama writes them."""
    shapes = {"model.embed_tokens.weight": (VOCAB, HIDDEN)}
    for i in range(LAYERS):
        p = f"model.layers.{i}."
        shapes[p + "input_layernorm.weight"] = (HIDDEN,)
        for proj in ("q_proj", "k_proj", "v_proj", "o_proj"):
            shapes[p + f"self_attn.{proj}.weight"] = (HIDDEN, HIDDEN)
        shapes[p + "mlp.gate_proj.weight"] = (FFN, HIDDEN)
        shapes[p + "mlp.up_proj.weight"] = (FFN, HIDDEN)
        shapes[p + "mlp.down_proj.weight"] = (HIDDEN, FFN)
        shapes[p + "post_attention_layernorm.weight"] = (HIDDEN,)
    shapes["model.norm.weight"] = (HIDDEN,)
    shapes["lm_head.weight"] = (VOCAB, HIDDEN)
    return {name: exact_values(int(np.prod(s)), seed).reshape(s) for seed, (name, s) in enumerate(shapes.items())}


def write_npy(path, a):
    np.save(path, a, allow_pickle=False)


def make(folder, repo_root):
    """Writes the example files into folder (which must exist)."""
    os.symlink(os.path.join(repo_root, "samples"), os.path.join(folder, "samples"))
    tensors = llama_tensors()
    write_safetensors(os.path.join(folder, "model.safetensors"),
                      {n: ("BF16", a.shape, bf16_bytes(a)) for n, a in tensors.items()})
    converted = dict(tensors)
    converted["model.norm.weight"] = tensors["model.norm.weight"].copy()
    converted["model.norm.weight"][3] += np.float32(1 / 64)
    write_safetensors(os.path.join(folder, "converted.safetensors"),
                      {n: ("F32", a.shape, a.astype("<f4").tobytes()) for n, a in converted.items()})
    model_dir = os.path.join(folder, "my-model")
    os.mkdir(model_dir)
    shutil.copy(os.path.join(folder, "model.safetensors"), model_dir)
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": HIDDEN,
              "intermediate_size": FFN, "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
              "num_key_value_heads": HEADS, "vocab_size": VOCAB, "max_position_embeddings": 128,
              "tie_word_embeddings": False, "torch_dtype": "bfloat16"}
    with open(os.path.join(model_dir, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    write_npy(os.path.join(folder, "x.npy"), (np.arange(12, dtype=np.float32) / 4 - 1).reshape(3, 4))
    write_npy(os.path.join(folder, "big.npy"), np.arange(5000, dtype=np.float32))
    w = exact_values(6, 1).reshape(2, 3)
    ids = np.arange(4, dtype=np.int64)
    np.savez(os.path.join(folder, "a.npz"), w=w, ids=ids)
    w_b = w.copy()
    w_b[1, 2] += np.float32(0.5)
    np.savez(os.path.join(folder, "b.npz"), w=w_b, ids=ids)
    write_broken(os.path.join(folder, "broken.safetensors"))
    write_fp8_model(os.path.join(folder, "fp8-model"))


def write_fp8_model(folder):
    """A DeepSeek-V3-style fp8 block checkpoint: one 256 x 128 weight in 128 x 128 blocks."""
    os.mkdir(folder)
    w = exact_values(256 * 128, 5).reshape(256, 128)
    codes, _, scale_raw = fp8_block_quantize(w)
    write_safetensors(os.path.join(folder, "model.safetensors"), {
        "model.layers.0.mlp.down_proj.weight": ("F8_E4M3", codes.shape, codes.tobytes()),
        "model.layers.0.mlp.down_proj.weight_scale_inv": ("F32", (2, 1), scale_raw)})
    write_config(folder, {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
                          "weight_block_size": [128, 128]})


def write_broken(path):
    """a [0, 8) and b [4, 12) overlap; c [16, 20) leaves [12, 16) to no tensor."""
    header = {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
              "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]},
              "c": {"dtype": "F32", "shape": [1], "data_offsets": [16, 20]}}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + bytes(20))
