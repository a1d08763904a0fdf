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
import quant_writers as qw  # noqa: E402

BIN = sys.argv[1]
failures = 0


def check(ok, what):
    global failures
    if not ok:
        failures += 1
        print("FAIL:", what)


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
    check(out.returncode == 0, f"--list: {out.stderr}")
    rows = {t["name"]: t for t in json.loads(out.stdout)["tensors"]} if out.returncode == 0 else {}
    for name, w in want.items():
        r = rows.get(name, {})
        check(r.get("shape") == [48, 128] and r.get("dtype") == "float32" and r.get("stored_type", "").startswith("mlx affine"),
              f"{name}: {r}")
        res = run(model, "--name", name, "--json")
        check(res.returncode == 0, f"{name}: {res.stderr}")
        if res.returncode == 0:
            got = np.array([float(v) for v in np.array(json.loads(res.stdout)["tolist"], dtype=object).ravel()]).reshape(w.shape)
            check(np.allclose(got, w, rtol=1e-6, atol=1e-7), f"{name}: values differ (max {np.abs(got - w).max()})")
    check(rows.get("model.layers.0.mlp.down_proj.weight", {}).get("stored_type") == "mlx affine int8, groups of 32",
          "per-module override")
    check("model.layers.0.mlp.up_proj.scales" not in rows and "model.norm.weight" in rows, "parts replaced, others kept")
    with open(os.path.join(model, "config.json"), "w") as f:
        json.dump({"quantization": {"group_size": 64}}, f)
    res = run(model, "--list")
    check(res.returncode == 2 and "bits" in res.stderr and "config.json" in res.stderr, f"missing bits: {res.stderr.strip()}")

print(f"schemes_mlx: {failures} failure(s)")
sys.exit(1 if failures else 0)
