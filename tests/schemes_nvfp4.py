#!/usr/bin/python3
"""NVFP4 as TensorRT-Model-Optimizer exports it (`weight` U8 packed FP4, `weight_scale`
F8_E4M3 per 16 values, `weight_scale_2` F32 global; config quant_method "modelopt",
quant_algo "NVFP4") shown as the [out, in] float32 weight, against ModelOpt's
NVFP4QTensor.dequantize re-written in NumPy: e2m1_values[code] (code 8 is +0 there) times
float(weight_scale) * weight_scale_2.

Usage: /usr/bin/python3 tests/schemes_nvfp4.py BUILD/tensor-inspect
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
E2M1_MODELOPT = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, 0, -0.5, -1, -1.5, -2, -3, -4, -6], dtype=np.float32)


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True)


rng = np.random.default_rng(5)
OUT, IN = 24, 64
with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "nvfp4")
    os.mkdir(model)
    # ModelOpt's quantize: global = amax / (6 * 448), block scale = block amax / (6 * global) as e4m3.
    w = (rng.standard_normal((OUT, IN)) * 0.02).astype(np.float32)
    glob = np.float32(np.abs(w).max() / (6.0 * 448.0))
    blk = np.abs(w.reshape(OUT, IN // 16, 16)).max(axis=2) / (6.0 * glob)
    scale_codes = qw.fp8_e4m3_encode(blk)
    codes = rng.integers(0, 16, size=(OUT, IN), dtype=np.uint8)
    codes[0, :2] = [8, 0]  # ModelOpt's +0 for code 8
    packed = qw.fp4_pack(codes)
    qw.write_safetensors(os.path.join(model, "model.safetensors"), {
        "model.layers.0.mlp.gate_proj.input_scale": ("F32", (), np.float32(0.01).tobytes()),
        "model.layers.0.mlp.gate_proj.weight": ("U8", packed.shape, packed.tobytes()),
        "model.layers.0.mlp.gate_proj.weight_scale": ("F8_E4M3", scale_codes.shape, scale_codes.tobytes()),
        "model.layers.0.mlp.gate_proj.weight_scale_2": ("F32", (), glob.tobytes()),
    })
    qw.write_config(model, {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16})
    per_block = (qw.fp8_e4m3_decode(scale_codes) * glob).astype(np.float32)
    want = (E2M1_MODELOPT[codes].reshape(OUT, IN // 16, 16) * per_block[..., None]).reshape(OUT, IN).astype(np.float32)

    out = run(model, "--list", "--json")
    rows = {t["name"]: t for t in json.loads(out.stdout)["tensors"]} if out.returncode == 0 else {}
    r = rows.get("model.layers.0.mlp.gate_proj.weight", {})
    tally.check(
        f"listing: {r} {out.stderr}",
        r.get("shape") == [OUT, IN] and r.get("dtype") == "float32" and r.get("stored_type", "").startswith("nvfp4") and
        len(r.get("parts", [])) == 3)
    tally.check("input_scale kept", "model.layers.0.mlp.gate_proj.input_scale" in rows)
    out = run(model, "--name", "model.layers.0.mlp.gate_proj.weight", "--json")
    tally.check(f"values: {out.stderr}", out.returncode == 0)
    if out.returncode == 0:
        got = np.array([float(v) for v in np.array(json.loads(out.stdout)["tolist"], dtype=object).ravel()
                       ]).reshape(OUT, IN)
        tally.check("values differ from ModelOpt's formula",
                    np.allclose(got, want, rtol=1e-6, atol=0) and not np.signbit(got[0, 0]))
    # Without config.json: the parts' names and dtypes decide.
    out = run(os.path.join(model, "model.safetensors"), "--list", "--json")
    names = {t["name"]: t for t in json.loads(out.stdout)["tensors"]} if out.returncode == 0 else {}
    tally.check("lone file detected",
                names.get("model.layers.0.mlp.gate_proj.weight", {}).get("dtype") == "float32")
    # A group size the scales do not fit: exit 2 naming the part.
    qw.write_config(model, {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 32})
    out = run(model, "--list")
    tally.check(f"group size mismatch: exit {out.returncode} {out.stderr.strip()}",
                out.returncode == 2 and "weight_scale'" in out.stderr and "gate_proj.weight" in out.stderr)

sys.exit(tally.summary())
