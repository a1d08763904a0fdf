#!/usr/bin/python3
"""MLX affine 4- and 8-bit checkpoints (`weight` U32 + `scales` + `biases`, config.json
"quantization" {"group_size", "bits"} with a per-module override) shown as [out, in] float32
weights, against mlx's scale * q + bias re-written in NumPy (tests/quant_writers.py).

Usage: /usr/bin/python3 tests/schemes_mlx.py BUILD/tensor-inspect
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


rng = np.random.default_rng(17)
with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "mlx-4bit")
    os.mkdir(model)
    tensors, want = {}, {}
    for name, bits, group in [("model.layers.0.mlp.up_proj", 4, 64), ("model.layers.0.mlp.down_proj", 8, 32)]:
        w = (rng.standard_normal((48, 128)) * 0.05).astype(np.float32)
        packed, scales, biases = qw.mlx_quantize(w, bits, group)
        tensors[name + ".biases"] = ("F16", biases.shape, biases.tobytes())
        tensors[name + ".scales"] = ("F16", scales.shape, scales.tobytes())
        tensors[name + ".weight"] = ("U32", packed.shape, packed.astype("<u4").tobytes())
        want[name + ".weight"] = qw.mlx_dequant(packed, scales, biases, bits, group)
    tensors["model.norm.weight"] = ("F16", (128,), np.ones(128, dtype=np.float16).tobytes())
    qw.write_safetensors(os.path.join(model, "model.safetensors"), tensors)
    quant = {"group_size": 64, "bits": 4, "model.layers.0.mlp.down_proj": {"group_size": 32, "bits": 8}}
    with open(os.path.join(model, "config.json"), "w") as f:
        json.dump({"model_type": "llama", "quantization": quant, "quantization_config": quant}, f)

    out = run(model, "--list", "--json")
    tally.check(f"--list: {out.stderr}", out.returncode == 0)
    rows = {t["name"]: t for t in json.loads(out.stdout)["tensors"]} if out.returncode == 0 else {}
    for name, w in want.items():
        r = rows.get(name, {})
        tally.check(
            f"{name}: {r}",
            r.get("shape") == [48, 128] and r.get("dtype") == "float32" and
            r.get("stored_type", "").startswith("mlx affine"))
        res = run(model, "--name", name, "--json")
        tally.check(f"{name}: {res.stderr}", res.returncode == 0)
        if res.returncode == 0:
            got = np.array([float(v) for v in np.array(json.loads(res.stdout)["tolist"], dtype=object).ravel()
                           ]).reshape(w.shape)
            tally.check(f"{name}: values differ (max {np.abs(got - w).max()})",
                        np.allclose(got, w, rtol=1e-6, atol=1e-7))
    tally.check(
        "per-module override",
        rows.get("model.layers.0.mlp.down_proj.weight", {}).get("stored_type") == "mlx affine int8, groups of 32")
    tally.check("parts replaced, others kept",
                "model.layers.0.mlp.up_proj.scales" not in rows and "model.norm.weight" in rows)
    with open(os.path.join(model, "config.json"), "w") as f:
        json.dump({"quantization": {"group_size": 64}}, f)
    res = run(model, "--list")
    # MLX's key is "quantization": the message names it, not transformers' quantization_config.
    tally.check(f"missing bits: {res.stderr.strip()}",
                res.returncode == 2 and "config.json: quantization.bits: missing" in res.stderr)

    # Without config.json: the shapes give bits * group_size = 32 * words / groups; MLX's
    # quantize allows bits 2, 3, 4, 5, 6, 8 and group sizes 32, 64, 128 (mlx/ops.cpp), so
    # 8-bit groups of 128 (product 1024) and 2-bit groups of 32 (64) are told by the shapes,
    # 4-bit groups of 64 (256, also 2 x 128 and 8 x 32) are not.
    alone = os.path.join(tmp, "alone")
    os.mkdir(alone)
    for bits, group in [(8, 128), (2, 32)]:
        w = (rng.standard_normal((6, 256)) * 0.05).astype(np.float32)
        packed, scales, biases = qw.mlx_quantize(w, bits, group)
        path = os.path.join(alone, f"mlx{bits}.safetensors")
        qw.write_safetensors(path, {"lm_head.biases": ("F16", biases.shape, biases.tobytes()),
                                    "lm_head.scales": ("F16", scales.shape, scales.tobytes()),
                                    "lm_head.weight": ("U32", packed.shape, packed.astype("<u4").tobytes())})
        want = qw.mlx_dequant(packed, scales, biases, bits, group)
        res = run(path, "--name", "lm_head.weight", "--json")
        tally.check(f"{bits}-bit alone: {res.stderr.strip()}", res.returncode == 0)
        if res.returncode == 0:
            got = np.array([float(v) for v in np.array(json.loads(res.stdout)["tolist"], dtype=object).ravel()
                           ]).reshape(w.shape)
            tally.check(f"{bits}-bit alone: values differ", np.allclose(got, want, rtol=1e-6, atol=1e-7))
        res = run(path, "--list", "--json")
        r = json.loads(res.stdout)["tensors"][0] if res.returncode == 0 else {}
        tally.check(
            f"{bits}-bit alone listed: {r}",
            r.get("stored_type") == f"mlx affine int{bits}, "
            f"groups of {group}" and "from the shapes" in (r.get("note") or ""))
    w = (rng.standard_normal((6, 256)) * 0.05).astype(np.float32)
    packed, scales, biases = qw.mlx_quantize(w, 4, 64)
    path = os.path.join(alone, "mlx4.safetensors")
    qw.write_safetensors(path, {"lm_head.biases": ("F16", biases.shape, biases.tobytes()),
                                "lm_head.scales": ("F16", scales.shape, scales.tobytes()),
                                "lm_head.weight": ("U32", packed.shape, packed.astype("<u4").tobytes())})
    res = run(path, "--list")
    tally.check(
        f"4-bit alone: exit {res.returncode} {res.stderr.strip()}", res.returncode == 2 and res.stdout == "" and
        "tensor 'lm_head.weight'" in res.stderr and "2-bit groups of 128, 4-bit groups "
        "of 64 and 8-bit groups of 32" in res.stderr and "config.json" in res.stderr)
    res = run(path, "--list", "--stored")
    tally.check(f"4-bit alone --stored: {res.stderr.strip()}",
                res.returncode == 0 and "lm_head.scales" in res.stdout)
    res = run("validate", path)  # consistent parts: what they mean is not told, nothing is wrong with the file
    tally.check(f"4-bit alone validate: exit {res.returncode} {res.stdout}",
                res.returncode == 0 and "note" in res.stdout and "safetensors.unsupported" in res.stdout)

sys.exit(tally.summary())
