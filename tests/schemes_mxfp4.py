#!/usr/bin/python3
"""gpt-oss's MXFP4 experts (`*_blocks` U8 [E, R, G, 16] + `*_scales` U8 [E, R, G], config
quant_method "mxfp4") shown as the tensors transformers gives after dequantizing: named
without `_blocks`, laid out [experts, in, out], values by convert_moe_packed_tensors
re-written in NumPy (tests/quant_writers.py). --stored shows the parts; a missing part is
exit 2 naming both.

Usage: /usr/bin/python3 tests/schemes_mxfp4.py BUILD/tensor-inspect
"""
import json
import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally  # noqa: E402
tally.passes = False
import quant_writers as qw  # noqa: E402

BIN = sys.argv[1]
warnings.simplefilter("ignore")  # ldexp overflow of the 255 exponent is the point


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True)


def values(path, name, *extra):
    out = run(path, "--name", name, "--json", *extra)
    if out.returncode != 0:
        tally.check(f"{name}: exit {out.returncode} {out.stderr.strip()}", False)
        return None
    doc = json.loads(out.stdout)
    flat = [float(v) for v in np.array(doc["tolist"], dtype=object).ravel()]
    return np.array(flat, dtype=np.float64).reshape(doc["shape"])


def same(got, want, what):
    if got is None:
        return
    want = want.astype(np.float64)
    tally.check(f"{what}: values differ",
                got.shape == want.shape and np.allclose(got, want, rtol=1e-6, atol=0, equal_nan=True)
                and np.array_equal(np.signbit(got), np.signbit(want)))


rng = np.random.default_rng(11)
E, H, I = 2, 64, 96  # experts, hidden, intermediate
with tempfile.TemporaryDirectory() as tmp:
    model = os.path.join(tmp, "gpt-oss")
    os.mkdir(model)
    tensors, want = {}, {}
    for proj, rows, cols in [("gate_up_proj", 2 * I, H), ("down_proj", H, I)]:
        g = cols // 32
        blocks = rng.integers(0, 256, size=(E, rows, g, 16), dtype=np.uint8)
        scales = rng.integers(118, 130, size=(E, rows, g), dtype=np.uint8)
        scales[0, 0, 0], scales[1, 1, 0] = 255, 0  # ldexp's inf and a subnormal scale
        blocks[0, 0, 0, 0] = 0x80  # +0 then -0: ldexp keeps zeros
        base = f"model.layers.0.mlp.experts.{proj}"
        tensors[base + "_bias"] = ("F32", (E, rows), rng.standard_normal((E, rows)).astype("<f4").tobytes())
        tensors[base + "_blocks"] = ("U8", blocks.shape, blocks.tobytes())
        tensors[base + "_scales"] = ("U8", scales.shape, scales.tobytes())
        want[base] = qw.mxfp4_dequant(blocks, scales)
    tensors["model.layers.0.mlp.router.weight"] = ("BF16", (4, H), qw.bf16_bytes(rng.standard_normal((4, H))))
    qw.write_safetensors(os.path.join(model, "model.safetensors"), tensors)
    qw.write_config(model, {"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn",
                                                                                "model.layers.*.mlp.router"]})

    out = run(model, "--list", "--json")
    tally.check(f"--list: {out.stderr}", out.returncode == 0)
    rows = {t["name"]: t for t in json.loads(out.stdout)["tensors"]} if out.returncode == 0 else {}
    for base, w in want.items():
        r = rows.get(base, {})
        tally.check(f"{base}: {r}", r.get("shape") == list(w.shape) and r.get("dtype") == "float32")
        tally.check(f"{base}: stored {r}",
                    r.get("stored_type") == "mxfp4, 32-element groups with e8m0 scales"
                    and r.get("parts") == [base + "_blocks", base + "_scales"])
        tally.check(f"{base}: bias kept, parts replaced",
                    base + "_bias" in rows and base + "_blocks" not in rows)
        same(values(model, base), w, base)
    tally.check("down_proj is [experts, in, out]",
                list(want["model.layers.0.mlp.experts.down_proj"].shape) == [E, I, H])
    base = "model.layers.0.mlp.experts.gate_up_proj"
    same(values(model, base, "-e", "x[1, 3:40, 100:140]"), want[base][1, 3:40, 100:140], "slice")
    # The 255 exponent of expert 0, row 0, group 0 (columns 0..31 of output 0): ldexp by 128.
    col = want[base][0, 0:32, 0]
    tally.check("oracle: 255 gives inf and 2^127",
                np.isinf(col).any() and (np.abs(col[np.isfinite(col)]) <= 2.0 ** 127).all())
    same(values(model, base, "-e", "x[0, 0:32, 0]"), col, "the 255 exponent")

    out = run(model, "--list", "--stored", "--json")
    stored = {t["name"] for t in json.loads(out.stdout)["tensors"]} if out.returncode == 0 else set()
    tally.check("--stored shows the parts",
                base + "_blocks" in stored and base + "_scales" in stored and base not in stored)

    # A lone file, no config: detected by the U8 pair.
    out = run(os.path.join(model, "model.safetensors"), "--list", "--json")
    names = {t["name"] for t in json.loads(out.stdout)["tensors"]} if out.returncode == 0 else set()
    tally.check("lone file: logical tensor found by the parts' names", base in names)

    # A missing part with config.json: exit 2 naming the tensor and the part.
    del tensors[base + "_blocks"]
    qw.write_safetensors(os.path.join(model, "model.safetensors"), tensors)
    out = run(model, "--list")
    tally.check(f"missing blocks: exit {out.returncode} {out.stderr.strip()}",
                out.returncode == 2 and base + "_blocks" in out.stderr and out.stdout == "")

sys.exit(tally.summary())
