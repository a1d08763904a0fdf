#!/usr/bin/python3
"""fp8 checkpoints shown as the weights they stand for: DeepSeek-V3/Qwen3-FP8 block scales
(`weight` F8_E4M3 + `weight_scale_inv`, config quant_method "fp8") and per-channel or
per-tensor `weight_scale` (compressed-tensors float-quantized, fbgemm_fp8). Values are
checked against the producers' formulas re-written in NumPy (tests/quant_writers.py);
--stored shows the parts; a missing part or a broken config is exit 2 naming both.

Usage: /usr/bin/python3 tests/schemes_fp8.py BUILD/tensor-inspect
"""
import json
import os
import shutil
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


def values(path, name, *extra):
    out = run(path, "--name", name, "--json", *extra)
    if out.returncode != 0:
        return None, out.stderr.strip()
    doc = json.loads(out.stdout)
    conv = lambda v: float(v) if isinstance(v, str) else v
    return np.array(json.loads(json.dumps(doc["tolist"]), parse_float=float), dtype=object), doc


def same(got, want, what):
    if got is None:
        tally.check(f"{what}: no values", False)
        return
    got = np.array([float(v) if not isinstance(v, str) else float(v.replace("inf", "inf")) for v in got.ravel()],
                   dtype=np.float64).reshape(got.shape)
    want = want.astype(np.float64)
    ok = got.shape == want.shape and np.allclose(got, want, rtol=1e-6, atol=0, equal_nan=True)
    tally.check(f"{what}: values differ from the formula (max |d| "
                f"{np.nanmax(np.abs(got - want)) if got.shape == want.shape else 'shape ' + str(got.shape)})",
                ok)


SCHEMA = json.load(
    open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "schemas", "listing.schema.json")))


def listing(path, *extra):
    out = run(path, "--list", "--json", *extra)
    tally.check(f"--list {path}: exit {out.returncode} {out.stderr.strip()}", out.returncode == 0)
    if out.returncode != 0:
        return {}
    doc = json.loads(out.stdout)
    try:  # the listing, logical tensors' "parts" included, follows schemas/listing.schema.json
        import jsonschema
        jsonschema.Draft202012Validator(SCHEMA).validate(doc)
    except ImportError as e:
        tally.check(f"python3-jsonschema missing ({e})", False)
    except Exception as e:  # noqa: BLE001 (jsonschema.ValidationError)
        tally.check(f"listing does not follow its schema: {str(e)[:300]}", False)
    return {t["name"]: t for t in doc["tensors"]}


rng = np.random.default_rng(7)
with tempfile.TemporaryDirectory() as tmp:
    # A Qwen3-FP8-shaped folder: two shards and an index, blocks of 128x128 with partial edges.
    model = os.path.join(tmp, "qwen3-fp8")
    os.mkdir(model)
    want = {}
    shard1, shard2 = {}, {}
    for name, shape, sdtype in [("model.layers.0.mlp.down_proj", (160, 272), "F32"),
                                ("model.layers.0.self_attn.q_proj", (256, 128), "BF16")]:
        w = (rng.standard_normal(shape) * 0.05).astype(np.float32)
        w[3, 5] = 2.5  # an outlier sets its block's scale
        codes, scale, raw = qw.fp8_block_quantize(w, scale_dtype=sdtype)
        want[name + ".weight"] = qw.fp8_block_dequant(codes, scale)
        shard1[name + ".weight"] = ("F8_E4M3", shape, codes.tobytes())
        shard2[name + ".weight_scale_inv"] = (sdtype, scale.shape, raw)  # a scale in the other shard
    norm = rng.standard_normal(256).astype(np.float32)
    shard2["model.norm.weight"] = ("BF16", (256,), qw.bf16_bytes(norm))
    qw.write_safetensors(os.path.join(model, "model-00001-of-00002.safetensors"), shard1)
    qw.write_safetensors(os.path.join(model, "model-00002-of-00002.safetensors"), shard2)
    weight_map = {n: "model-00001-of-00002.safetensors" for n in shard1}
    weight_map.update({n: "model-00002-of-00002.safetensors" for n in shard2})
    with open(os.path.join(model, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f)
    qw.write_config(model, {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
                            "weight_block_size": [128, 128]})

    rows = listing(model)
    tally.check(f"logical names: {sorted(rows)}",
                sorted(rows) == sorted(["model.layers.0.mlp.down_proj.weight", "model.layers.0.self_attn.q_proj.weight",
                                        "model.norm.weight"]))
    r = rows.get("model.layers.0.mlp.down_proj.weight", {})
    tally.check(f"logical dtype/shape: {r}", r.get("dtype") == "float32" and r.get("shape") == [160, 272])
    tally.check(f"stored type: {r.get('stored_type')}",
                r.get("stored_type") == "fp8 e4m3, 128x128 block scales")
    tally.check(
        f"parts: {r.get('parts')}",
        r.get("parts") == ["model.layers.0.mlp.down_proj.weight", "model.layers.0.mlp.down_proj.weight_scale_inv"])
    plain = rows.get("model.norm.weight", {})
    tally.check(f"a plain tensor's row has the keys of a logical tensor's (parts null): {sorted(plain)} vs {sorted(r)}",
                sorted(plain) == sorted(r) and "parts" in plain and plain["parts"] is None)
    text = run(model, "--list").stdout
    tally.check("text listing names the scheme and parts:\n" + text,
                "fp8 e4m3, 128x128 block scales (weight, weight_scale_inv" in text)
    for name, w in want.items():
        got, _ = values(model, name)
        same(got, w, name)
    # A slice reads only its blocks, across a block edge.
    got, _ = values(model, "model.layers.0.mlp.down_proj.weight", "-e", "x[126:131, 250:272]")
    same(got, want["model.layers.0.mlp.down_proj.weight"][126:131, 250:272], "slice across blocks")
    # --stats over the decoded values.
    out = run(model, "--name", "model.layers.0.mlp.down_proj.weight", "--stats", "--json")
    if out.returncode == 0:
        st = json.loads(out.stdout)
        st = st.get("stats", st)
        mean = st.get("mean")
        w = want["model.layers.0.mlp.down_proj.weight"].astype(np.float64)
        tally.check(f"--stats mean {mean} vs {w.mean()}",
                    mean is not None and abs(mean - w.mean()) <= 1e-6 * abs(w).mean())
    else:
        tally.check(f"--stats: exit {out.returncode} {out.stderr.strip()}", False)
    # --stored: the parts exactly as stored.
    stored = listing(model, "--stored")
    tally.check("--stored lists the parts",
                "model.layers.0.mlp.down_proj.weight_scale_inv" in stored and
                stored.get("model.layers.0.mlp.down_proj.weight", {}).get("stored_type") == "F8_E4M3")

    # The sharded folder reads its config.json too: a block size the scales do not fit is exit 2.
    qw.write_config(model, {"quant_method": "fp8", "weight_block_size": [64, 128]})
    out = run(model, "--list")
    tally.check(f"sharded folder's config.json: {out.stderr.strip()}",
                out.returncode == 2 and "weight_scale_inv" in out.stderr)
    out = run(os.path.join(model, "model.safetensors.index.json"), "--list")
    tally.check(f"index's config.json: {out.stderr.strip()}",
                out.returncode == 2 and "weight_scale_inv" in out.stderr)
    qw.write_config(model, {"quant_method": "fp8", "weight_block_size": [128, 128]})

    # A missing part with config.json naming the scheme: exit 2 naming tensor and part.
    broken = os.path.join(tmp, "broken")
    os.mkdir(broken)
    qw.write_safetensors(os.path.join(broken, "model.safetensors"), shard1)
    shutil.copy(os.path.join(model, "config.json"), broken)
    out = run(broken, "--list")
    tally.check(
        f"missing part: exit {out.returncode}, {out.stderr.strip()}", out.returncode == 2 and
        "model.layers.0.mlp.down_proj.weight" in out.stderr and "weight_scale_inv" in out.stderr and out.stdout == "")
    # A broken config: exit 2 naming config.json and the key.
    qw.write_safetensors(os.path.join(broken, "model.safetensors"), {**shard1, **shard2})
    qw.write_config(broken, {"quant_method": "fp8", "weight_block_size": "128"})
    out = run(broken, "--list")
    tally.check(f"broken config: exit {out.returncode}, {out.stderr.strip()}",
                out.returncode == 2 and "config.json" in out.stderr and "weight_block_size" in out.stderr)
    # Scales that do not fit the weight: exit 2 naming the part.
    qw.write_config(broken, {"quant_method": "fp8", "weight_block_size": [64, 64]})
    out = run(broken, "--list")
    tally.check(f"mismatched scales: exit {out.returncode}, {out.stderr.strip()}",
                out.returncode == 2 and "down_proj.weight_scale_inv" in out.stderr and "shape" in out.stderr)
    # One file without config.json: detected by the parts' names, 128x128 assumed and said.
    lone = os.path.join(tmp, "lone.safetensors")
    qw.write_safetensors(lone, {**shard1, **shard2})
    rows = listing(lone)
    r = rows.get("model.layers.0.self_attn.q_proj.weight", {})
    tally.check(f"lone file: {r}",
                r.get("stored_type") == "fp8 e4m3, 128x128 block scales" and "assumed" in r.get("note", ""))
    got, _ = values(lone, "model.layers.0.self_attn.q_proj.weight")
    same(got, want["model.layers.0.self_attn.q_proj.weight"], "lone file values")

    # Per-channel (compressed-tensors float-quantized) and per-tensor (fbgemm_fp8) scales.
    for method, per_channel in [("compressed-tensors", True), ("fbgemm_fp8", False)]:
        folder = os.path.join(tmp, method)
        os.mkdir(folder)
        w = (rng.standard_normal((48, 40)) * 0.1).astype(np.float32)
        if per_channel:
            scale = (np.abs(w).max(axis=1, keepdims=True) / 448.0).astype(np.float32)  # [out, 1]
        else:
            scale = np.array([np.abs(w).max() / 448.0], dtype=np.float32)  # [1]
        codes = qw.fp8_e4m3_encode(w / scale)
        qw.write_safetensors(os.path.join(folder, "model.safetensors"), {
            "model.layers.0.mlp.up_proj.weight": ("F8_E4M3", w.shape, codes.tobytes()),
            "model.layers.0.mlp.up_proj.weight_scale": ("F32", scale.shape, scale.astype("<f4").tobytes()),
            "model.layers.0.mlp.up_proj.input_scale": ("F32", (1,), np.float32(0.5).tobytes()),
        })
        qw.write_config(folder, {"quant_method": method, "format": "float-quantized"} if per_channel
                        else {"quant_method": method, "activation_scale_ub": 1200.0})
        rows = listing(folder)
        r = rows.get("model.layers.0.mlp.up_proj.weight", {})
        kind = "per-channel scales" if per_channel else "per-tensor scale"
        tally.check(f"{method}: stored type {r.get('stored_type')}",
                    r.get("stored_type") == "fp8 e4m3, " + kind)
        tally.check(f"{method}: input_scale stays listed", "model.layers.0.mlp.up_proj.input_scale" in rows)
        got, _ = values(folder, "model.layers.0.mlp.up_proj.weight")
        # compressed-tensors' dequantize: x_q.to(float) * scale (broadcast over a row).
        same(got, (qw.fp8_e4m3_decode(codes) * scale).astype(np.float32), f"{method} values")

sys.exit(tally.summary())
