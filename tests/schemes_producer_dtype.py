#!/usr/bin/python3
"""The listing says which dtype each quantization scheme's producer hands back (issue 22
part 3): the JSON key "producer_dtype" on every row (null on plain tensors and where it is
not known) and "PRODUCER hands back DTYPE" in the text listing's stored column.

The expected dtypes are the producers' rules, written here from their code, not from ours:
  fp8 block scales    transformers' FP8Linear returns the input's dtype, config.json's
                      torch_dtype; without config.json DeepSeek-V3's fp8_cast_bf16.py: bfloat16
  fp8 per-channel     compressed-tensors' dequantize: the scale's dtype; fbgemm_fp8 and
                      ModelOpt FP8: torch_dtype; without config.json: not known
  mxfp4               transformers' convert_moe_packed_tensors(dtype=torch.bfloat16)
  nvfp4               ModelOpt's NVFP4QTensor.dequantize: metadata["dtype"], torch_dtype
  gptq, awq, pack-quantized, mlx   the scales' dtype (scales * (q - zeros), mx.dequantize)
Each case's config uses a torch_dtype (float16) that differs from the scales' dtype where the
rule is the scales', so that the two rules cannot be confused. bitsandbytes: schemes_bnb.py.

Usage: /usr/bin/python3 tests/schemes_producer_dtype.py BUILD/tensor-inspect
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally  # noqa: E402
tally.passes = False
import quant_writers as qw  # noqa: E402

BIN = sys.argv[1]


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True)


def zeros(tag, shape):
    size = {"F32": 4, "I32": 4, "U32": 4, "I64": 8, "F16": 2, "BF16": 2, "U8": 1, "F8_E4M3": 1}[tag]
    return (tag, shape, bytes(int(np.prod(shape, dtype=np.int64)) * size))


def ones_f16(shape):
    return ("F16", shape, np.ones(shape, dtype="<f2").tobytes())


P = "model.layers.0.mlp.down_proj"
PLAIN = {"model.norm.weight": ones_f16((8,))}


def fp8_block(scale="F32"):
    return {P + ".weight": zeros("F8_E4M3", (8, 8)), P + ".weight_scale_inv": zeros(scale, (1, 1))}


def fp8_channel(scale):
    return {P + ".weight": zeros("F8_E4M3", (8, 8)), P + ".weight_scale": zeros(scale, (8, 1))}


def gptq(scale):  # 4-bit, 32 inputs in groups of 32, 16 outputs
    return {P + ".g_idx": ("I32", (32,), np.zeros(32, dtype="<i4").tobytes()), P + ".qweight": zeros("I32", (4, 16)),
            P + ".qzeros": zeros("I32", (1, 2)), P + ".scales": zeros(scale, (1, 16))}


def awq(scale):  # 4-bit, 32 inputs in groups of 32, 16 outputs
    return {
        P + ".qweight": zeros("I32", (32, 2)),
        P + ".qzeros": zeros("I32", (1, 2)),
        P + ".scales": zeros(scale, (1, 16))
    }


def pack_quantized(scale):  # int4, [8, 32] in groups of 32
    return {P + ".weight_packed": zeros("I32", (8, 4)), P + ".weight_scale": zeros(scale, (8, 1)),
            P + ".weight_shape": ("I64", (2,), np.array([8, 32], dtype="<i8").tobytes())}


def mlx(scale):  # 8-bit in groups of 128: the shapes alone tell
    return {
        P + ".biases": zeros(scale, (4, 1)),
        P + ".scales": zeros(scale, (4, 1)),
        P + ".weight": zeros("U32", (4, 32))
    }


EXPERTS = "model.layers.0.mlp.experts.down_proj"
MXFP4 = {EXPERTS + "_blocks": zeros("U8", (2, 4, 1, 16)), EXPERTS + "_scales": ("U8", (2, 4, 1), bytes([127]) * 8)}
NVFP4 = {P + ".weight": zeros("U8", (4, 8)), P + ".weight_scale": zeros("F8_E4M3", (4, 1)),
         P + ".weight_scale_2": ("F32", (), np.float32(1).tobytes())}

CT_FP8 = {"quant_method": "compressed-tensors", "format": "float-quantized"}
CT_PACK = {"quant_method": "compressed-tensors", "format": "pack-quantized",
           "config_groups": {"group_0": {"weights": {"num_bits": 4, "group_size": 32}}}}
# name, tensors, config.json ({} none; key "quantization" for MLX), logical name, producer, dtype (None: not known)
CASES = [
    ("fp8 block, torch_dtype float16", fp8_block(), {
        "quantization_config": {
            "quant_method": "fp8",
            "weight_block_size": [128, 128]
        },
        "torch_dtype": "float16"
    }, P + ".weight", "transformers", "float16"),
    ("fp8 block, dtype (transformers >= 4.56)", fp8_block("BF16"), {
        "quantization_config": {
            "quant_method": "fp8",
            "weight_block_size": [128, 128]
        },
        "dtype": "float32"
    }, P + ".weight", "transformers", "float32"),
    ("fp8 block, config without torch_dtype", fp8_block(), {
        "quantization_config": {
            "quant_method": "fp8"
        }
    }, P + ".weight", None, None),
    ("fp8 block, no config.json", fp8_block(), {}, P + ".weight", "fp8_cast_bf16.py", "bfloat16"),
    ("compressed-tensors fp8", fp8_channel("BF16"), {
        "quantization_config": CT_FP8,
        "torch_dtype": "float16"
    }, P + ".weight", "compressed-tensors", "bfloat16"),
    ("fbgemm fp8", fp8_channel("F32"), {
        "quantization_config": {
            "quant_method": "fbgemm_fp8"
        },
        "torch_dtype": "float16"
    }, P + ".weight", "transformers", "float16"),
    ("fp8 per-channel, no config.json", fp8_channel("F32"), {}, P + ".weight", None, None),
    ("mxfp4", MXFP4, {
        "quantization_config": {
            "quant_method": "mxfp4"
        },
        "torch_dtype": "float16"
    }, EXPERTS, "transformers", "bfloat16"),
    ("mxfp4, no config.json", MXFP4, {}, EXPERTS, "transformers", "bfloat16"),
    ("nvfp4", NVFP4, {
        "quantization_config": {
            "quant_method": "modelopt",
            "quant_algo": "NVFP4"
        },
        "torch_dtype": "float16"
    }, P + ".weight", "ModelOpt", "float16"),
    ("nvfp4, no config.json", NVFP4, {}, P + ".weight", None, None),
    ("gptq F16 scales", gptq("F16"), {
        "quantization_config": {
            "quant_method": "gptq",
            "bits": 4,
            "group_size": 32
        },
        "torch_dtype": "bfloat16"
    }, P + ".weight", "AutoGPTQ", "float16"),
    ("gptq F32 scales", gptq("F32"), {
        "quantization_config": {
            "quant_method": "gptq",
            "bits": 4,
            "group_size": 32
        },
        "torch_dtype": "float16"
    }, P + ".weight", "AutoGPTQ", "float32"),
    ("awq", awq("F16"), {
        "quantization_config": {
            "quant_method": "awq",
            "bits": 4,
            "group_size": 32,
            "version": "gemm"
        },
        "torch_dtype": "bfloat16"
    }, P + ".weight", "AutoAWQ", "float16"),
    ("pack-quantized", pack_quantized("BF16"), {
        "quantization_config": CT_PACK,
        "torch_dtype": "float16"
    }, P + ".weight", "compressed-tensors", "bfloat16"),
    ("mlx", mlx("BF16"), {
        "quantization": {
            "bits": 8,
            "group_size": 128
        },
        "torch_dtype": "float16"
    }, P + ".weight", "mlx", "bfloat16"),
    ("mlx, no config.json", mlx("F32"), {}, P + ".weight", "mlx", "float32"),
]

with tempfile.TemporaryDirectory() as tmp:
    for n, (what, tensors, config, logical, producer, dtype) in enumerate(CASES):
        folder = os.path.join(tmp, f"m{n}")
        os.mkdir(folder)
        qw.write_safetensors(os.path.join(folder, "model.safetensors"), {**tensors, **PLAIN})
        if config:
            with open(os.path.join(folder, "config.json"), "w") as f:
                json.dump(config, f)
        out = run(folder, "--list", "--json")
        tally.check(f"{what}: --list --json exit {out.returncode} {out.stderr.strip()}", out.returncode == 0)
        if out.returncode != 0:
            continue
        rows = {t["name"]: t for t in json.loads(out.stdout)["tensors"]}
        r = rows.get(logical, {})
        tally.check(f"{what}: {logical} is no scheme's logical tensor: {r}", r.get("parts") is not None)
        tally.check(f"{what}: producer_dtype {r.get('producer_dtype', '-')}, not {dtype}",
                    "producer_dtype" in r and r["producer_dtype"] == dtype)
        plain = rows.get("model.norm.weight", {})
        tally.check(f"{what}: plain row {plain}",
                    "producer_dtype" in plain and plain["producer_dtype"] is None)
        said = f"{producer} hands back {dtype}"
        tally.check(f"{what}: note {r.get('note')}",
                    (said in (r.get("note") or "")) if dtype else "hands back" not in (r.get("note") or ""))
        text = run(folder, "--list")
        line = next((x for x in text.stdout.splitlines() if x.startswith(logical + " ")), "")
        tally.check(f"{what}: text row {line!r}",
                    text.returncode == 0 and ((said in line) if dtype else "hands back" not in line))

print(f"{len(CASES)} cases")
sys.exit(tally.summary())
