#!/usr/bin/python3
"""bitsandbytes 4-bit (NF4 and FP4, with and without nested absmax) as transformers saves a
Params4bit weight: `weight` U8 (two codes a byte, the first in the high nibble), `weight.absmax`,
`weight.quant_map`, nested `weight.nested_absmax` and `weight.nested_quant_map`, and
`weight.quant_state.bitsandbytes__nf4` (U8 bytes of json.dumps of the quant state), config
quant_method "bitsandbytes", load_in_4bit. Shown as the weight of the quant state's shape,
against bitsandbytes' formulas re-written here in NumPy (bitsandbytes/backends/default/ops.py
quantize_4bit / _dequantize_4bit_compute, functional.py quantize_4bit's compress_statistics
and dequantize_blockwise, create_dynamic_map; csrc/kernels.cu's NF4 and FP4 tables).

Usage: /usr/bin/python3 tests/schemes_bnb.py BUILD/tensor-inspect
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

NF4 = np.array([-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
                -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
                0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
                0.7229568362236023, 1.0], dtype=np.float32)
# get_4bit_type("fp4"): bit patterns' values divided by their absmax 12 (the quant_map saved).
FP4_MAP = (np.array([0, 0.0625, 8.0, 12.0, 4.0, 6.0, 2.0, 3.0, -0.0, -0.0625, -8.0, -12.0, -4.0, -6.0, -2.0, -3.0])
           / 12.0).astype(np.float32)
# csrc/kernels.cu fp4_dequantization_lut times the sign bit: what dequantize_4bit uses.
FP4_LUT = np.array([0.0, 0.005208333333, 0.66666667, 1.0, 0.33333333, 0.5, 0.16666667, 0.25], dtype=np.float32)
FP4 = np.concatenate([FP4_LUT, -FP4_LUT]).astype(np.float32)


def run(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True)


def dynamic_map():
    """functional.py create_dynamic_map(signed=True, max_exponent_bits=7, total_bits=8)."""
    data = []
    for i in range(7):
        b = np.linspace(0.1, 1, 2 ** i + 1, dtype=np.float32)
        means = (b[:-1] + b[1:]) / 2.0
        data += list(10.0 ** (-6 + i) * means) + list(-(10.0 ** (-6 + i)) * means)
    data += [0.0, 1.0]
    data += [0.0] * (256 - len(data))
    return np.array(sorted(data), dtype=np.float32)


def blockwise_absmax(flat, bs):
    n = flat.size
    return np.array([np.abs(flat[i:i + bs]).max() for i in range(0, n, bs)], dtype=np.float32)


def quantize_4bit(w, quant_type, bs):
    """backends/default/ops.py quantize_4bit: absmax per block (a partial last one too),
    nearest code by midpoints, packed (q[0::2] << 4) | q[1::2]."""
    flat = w.reshape(-1).astype(np.float32)
    absmax = blockwise_absmax(flat, bs)
    scaled = np.clip(flat / np.repeat(np.maximum(absmax, 1e-38), bs)[:flat.size], -1, 1)
    code = NF4 if quant_type == "nf4" else FP4_MAP
    order = np.argsort(code, kind="stable")
    bounds = (code[order[:-1]] + code[order[1:]]) / 2
    q = order[np.searchsorted(bounds, scaled, side="left")].astype(np.uint8)
    if q.size % 2:
        q = np.append(q, np.uint8(0))
    return ((q[0::2] << 4) | q[1::2]).astype(np.uint8), absmax


def quantize_blockwise(a, code, bs=256):
    absmax = blockwise_absmax(a, bs)
    scaled = np.clip(a / np.repeat(np.maximum(absmax, 1e-38), bs)[:a.size], -1, 1)
    bounds = (code[:-1] + code[1:]) / 2
    return np.searchsorted(bounds, scaled, side="left").astype(np.uint8), absmax


def dequantize(packed, absmax, quant_type, bs, shape, nested=None):
    """dequantize_4bit: nested absmax = dequantize_blockwise (float32) + offset, then
    table[code] * absmax[i // bs], high nibble first."""
    n = int(np.prod(shape))
    if nested is not None:
        nabs, nmap, nbs, offset = nested
        absmax = (nmap[absmax] * np.repeat(nabs, nbs)[:absmax.size]).astype(np.float32) + np.float32(offset)
    q = np.empty(packed.size * 2, dtype=np.uint8)
    q[0::2] = packed >> 4
    q[1::2] = packed & 0xF
    table = NF4 if quant_type == "nf4" else FP4
    return (table[q[:n]] * np.repeat(absmax.astype(np.float32), bs)[:n]).astype(np.float32).reshape(shape)


def write_model(folder, layers, quant_type, double):
    """layers: {prefix: (w, bs, dtype)}; returns {prefix + '.weight': reference values}."""
    os.makedirs(folder, exist_ok=True)
    tensors, want = {}, {}
    for prefix, (w, bs, dtype) in layers.items():
        name = prefix + ".weight"
        packed, absmax = quantize_4bit(w, quant_type, bs)
        state = {"quant_type": quant_type, "blocksize": bs, "dtype": dtype, "shape": list(w.shape)}
        parts = {name: ("U8", (packed.size, 1), packed.tobytes())}
        qmap = NF4 if quant_type == "nf4" else FP4_MAP
        if double:
            offset = float(absmax.mean())
            nmap = dynamic_map()
            qabs, nabs = quantize_blockwise((absmax - np.float32(offset)).astype(np.float32), nmap)
            state.update({"nested_blocksize": 256, "nested_dtype": "float32", "nested_offset": offset})
            parts[name + ".absmax"] = ("U8", qabs.shape, qabs.tobytes())
            parts[name + ".nested_absmax"] = ("F32", nabs.shape, nabs.tobytes())
            parts[name + ".nested_quant_map"] = ("F32", (256,), nmap.tobytes())
            want[name] = dequantize(packed, qabs, quant_type, bs, w.shape, (nabs, nmap, 256, offset))
        else:
            parts[name + ".absmax"] = ("F32", absmax.shape, absmax.tobytes())
            want[name] = dequantize(packed, absmax, quant_type, bs, w.shape)
        parts[name + ".quant_map"] = ("F32", (16,), qmap.tobytes())
        blob = np.frombuffer(json.dumps(state).encode(), dtype=np.uint8)
        parts[name + ".quant_state.bitsandbytes__" + quant_type] = ("U8", blob.shape, blob.tobytes())
        tensors.update(parts)
    norm = np.ones(8, dtype=np.float32)
    tensors["model.norm.weight"] = ("BF16", (8,), qw.bf16_bytes(norm))
    qw.write_safetensors(os.path.join(folder, "model.safetensors"), dict(sorted(tensors.items())))
    qw.write_config(folder, {"quant_method": "bitsandbytes", "load_in_4bit": True, "load_in_8bit": False,
                             "bnb_4bit_quant_type": quant_type, "bnb_4bit_use_double_quant": double,
                             "bnb_4bit_compute_dtype": "bfloat16", "bnb_4bit_quant_storage": "uint8"})
    return want


def values(path, name, shape):
    out = run(path, "--name", name, "--json")
    if out.returncode != 0:
        return None, out.stderr
    flat = np.array([float(v) for v in np.array(json.loads(out.stdout)["tolist"], dtype=object).ravel()])
    return flat.reshape(shape), ""


rng = np.random.default_rng(22)
checked = 0
with tempfile.TemporaryDirectory() as tmp:
    for quant_type in ("nf4", "fp4"):
        for double in (False, True):
            model = os.path.join(tmp, f"{quant_type}-{'double' if double else 'single'}")
            layers = {
                # 130 x 129: 16770 values, 263 blocks of 64 (the last of 2), 2 nested blocks of 256.
                "model.layers.0.mlp.up_proj": ((rng.standard_normal((130, 129)) * 0.02).astype(np.float32), 64,
                                               "bfloat16"),
                # 7 x 37: an odd count (the last byte half used), blocks of 128, the last partial.
                "model.layers.0.self_attn.o_proj": ((rng.standard_normal((7, 37)) * 0.05).astype(np.float32), 128,
                                                    "float16"),
            }
            want = write_model(model, layers, quant_type, double)
            out = run(model, "--list", "--json")
            rows = {t["name"]: t for t in json.loads(out.stdout)["tensors"]} if out.returncode == 0 else {}
            tally.check(f"{model}: parts still listed {sorted(rows)} {out.stderr}",
                        out.returncode == 0 and not any(".absmax" in n or "quant_state" in n for n in rows))
            for name, ref in want.items():
                r = rows.get(name, {})
                nparts = 6 if double else 4
                tally.check(f"{model} {name} listing: {r}",
                            r.get("shape") == list(ref.shape) and r.get("dtype") == "float32"
                            and r.get("stored_type", "").startswith("bitsandbytes " + quant_type)
                            and len(r.get("parts", [])) == nparts)
                hands = "float16" if "o_proj" in name else "bfloat16"
                tally.check(
                    f"{name} note: {r.get('note')}, producer_dtype {r.get('producer_dtype')}",
                    f"bitsandbytes hands back {hands}" in r.get("note", "") and r.get("producer_dtype") == hands)
                got, err = values(model, name, ref.shape)
                ok = got is not None and np.allclose(got, ref, rtol=1e-6, atol=0) and \
                    np.array_equal(np.signbit(got), np.signbit(ref))
                tally.check(f"{model} {name}: values differ from bitsandbytes' formula {err}", ok)
                checked += ref.size
            tally.check("unquantized norm kept", rows.get("model.norm.weight", {}).get("dtype") == "bfloat16")

            # diff --tolerance torch counts each as the dtype bitsandbytes hands back (its note).
            if quant_type == "fp4" and double:
                orig = os.path.join(tmp, "orig.safetensors")
                qw.write_safetensors(orig, {p + ".weight": ("F32", w.shape, w.tobytes()) for p, (w, _, _) in
                                            layers.items()})
                out = run("diff", orig, model, "--tolerance", "torch", "--json")
                pairs = {t["name_a"]: t for t in json.loads(out.stdout)["tensors"]} if out.returncode in (0, 1) else {}
                up = pairs.get("model.layers.0.mlp.up_proj.weight", {})
                o = pairs.get("model.layers.0.self_attn.o_proj.weight", {})
                tally.check(f"diff --tolerance torch: bfloat16 and float16 expected: {up.get('rtol')} {o.get('rtol')} "
                            f"{out.stderr}",
                            up.get("rtol") == 0.016 and o.get("rtol") == 0.001 and o.get("atol") == 1e-5)

    model = os.path.join(tmp, "nf4-double")
    # --stored: the parts as stored.
    out = run(model, "--list", "--stored", "--json")
    names = {t["name"]: t for t in json.loads(out.stdout)["tensors"]} if out.returncode == 0 else {}
    p = "model.layers.0.mlp.up_proj.weight"
    tally.check(f"--stored: {sorted(names)} {out.stderr}",
                names.get(p, {}).get("dtype") == "uint8" and names.get(p + ".absmax", {}).get("dtype") == "uint8"
                and p + ".quant_state.bitsandbytes__nf4" in names and p + ".nested_quant_map" in names)
    # A lone file (no config.json): the quant state's name marks it.
    out = run(os.path.join(model, "model.safetensors"), "--list", "--json")
    rows = {t["name"]: t for t in json.loads(out.stdout)["tensors"]} if out.returncode == 0 else {}
    tally.check(f"lone file: {out.stderr}",
                rows.get(p, {}).get("shape") == [130, 129] and rows[p].get("dtype") == "float32")

    # Broken parts: exit 2 naming the tensor and the part.
    def rewrite(folder, drop=(), change=None):
        path = os.path.join(folder, "model.safetensors")
        with open(path, "rb") as f:
            raw = f.read()
        hlen = int.from_bytes(raw[:8], "little")
        header = json.loads(raw[8:8 + hlen])
        header.pop("__metadata__", None)
        data = raw[8 + hlen:]
        tensors = {}
        for n, h in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0]):
            if n in drop:
                continue
            b = data[h["data_offsets"][0]:h["data_offsets"][1]]
            tensors[n] = (h["dtype"], tuple(h["shape"]), b)
        if change:
            change(tensors)
        qw.write_safetensors(path, tensors)

    rewrite(model, drop=(p + ".absmax",))
    out = run(model, "--list")
    tally.check(f"missing absmax: exit {out.returncode} {out.stderr.strip()}",
                out.returncode == 2 and "up_proj.weight'" in out.stderr and "up_proj.weight.absmax" in out.stderr
                and len(out.stdout) == 0)

    def bad_blob(t):
        name = "model.layers.0.self_attn.o_proj.weight.quant_state.bitsandbytes__nf4"
        state = json.loads(t[name][2])
        state["shape"] = [7, 39]
        b = json.dumps(state).encode()
        t[name] = ("U8", (len(b),), b)

    rewrite(os.path.join(tmp, "nf4-single"), change=bad_blob)
    out = run(os.path.join(tmp, "nf4-single"), "--list")
    tally.check(
        f"shape the bytes do not fit: exit {out.returncode} {out.stderr.strip()}", out.returncode == 2 and
        "o_proj.weight'" in out.stderr and "part "
        "'model.layers.0.self_attn.o_proj.weight'" in out.stderr)

    def garbage_blob(t):
        name = "model.layers.0.mlp.up_proj.weight.quant_state.bitsandbytes__fp4"
        t[name] = ("U8", (4,), b"{\"qu")

    rewrite(os.path.join(tmp, "fp4-single"), change=garbage_blob)
    out = run(os.path.join(tmp, "fp4-single"), "--list")
    tally.check(f"garbage quant state: exit {out.returncode} {out.stderr.strip()}",
                out.returncode == 2 and "bitsandbytes__fp4" in out.stderr and "not a JSON object" in out.stderr)

    # A quant_map other than bitsandbytes' table (dequantize_4bit would ignore it, gemv_4bit would not).
    write_model(os.path.join(tmp, "nf4-map"), {"l": ((rng.standard_normal((3, 70))).astype(np.float32), 64,
                                                     "bfloat16")}, "nf4", False)
    rewrite(os.path.join(tmp, "nf4-map"), change=lambda t: t.update(
        {"l.weight.quant_map": ("F32", (16,), (NF4 + np.float32(0.01) * (np.arange(16) == 3)).astype(np.float32)
                                .tobytes())}))
    out = run(os.path.join(tmp, "nf4-map"), "--list")
    tally.check(f"quant_map off the table: exit {out.returncode} {out.stderr.strip()}",
                out.returncode == 2 and "part 'l.weight.quant_map'" in out.stderr and "value 3" in out.stderr)

    # A quant state over kMaxQuantStateBytes (64 KiB), valid JSON padded with spaces: refused before parsing.
    def big_blob(t):
        name = "l.weight.quant_state.bitsandbytes__nf4"
        b = t[name][2] + b" " * 65536
        t[name] = ("U8", (len(b),), b)

    write_model(os.path.join(tmp, "nf4-big"), {"l": ((rng.standard_normal((3, 70))).astype(np.float32), 64,
                                                     "bfloat16")}, "nf4", False)
    rewrite(os.path.join(tmp, "nf4-big"), change=big_blob)
    out = run(os.path.join(tmp, "nf4-big"), "--list")
    tally.check(f"oversized quant state: exit {out.returncode} {out.stderr.strip()}",
                out.returncode == 2 and "bitsandbytes__nf4'" in out.stderr and "65536" in out.stderr)

print(f"{checked} values checked")
sys.exit(tally.summary())
