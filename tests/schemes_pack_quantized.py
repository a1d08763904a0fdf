#!/usr/bin/python3
"""compressed-tensors "pack-quantized" int4/int8 (`weight_packed` I32, `weight_shape`,
`weight_scale`, asymmetric `weight_zero_point` packed along the outputs) shown as [out, in]
float32 weights, against compressed-tensors' pack_to_int32 / unpack_from_int32 and
dequantize ((x_q - zero_point) * scale) re-written in NumPy.

Usage: /usr/bin/python3 tests/schemes_pack_quantized.py BUILD/tensor-inspect
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


def pack_to_int32(value, bits, packed_dim=1):
    """compressed-tensors' pack_to_int32: + 2**(bits-1), pad, fields least significant first."""
    v = (value.astype(np.int64) + (1 << (bits - 1))).astype(np.uint32)
    pack = 32 // bits
    if packed_dim == 0:
        v = v.T
    n = -(-v.shape[1] // pack)
    v = np.pad(v, [(0, 0), (0, n * pack - v.shape[1])])
    packed = np.zeros((v.shape[0], n), dtype=np.uint32)
    for i in range(pack):
        packed |= v[:, i::pack] << (bits * i)
    if packed_dim == 0:
        packed = packed.T
    return np.ascontiguousarray(packed).view(np.int32)


def unpack_from_int32(packed, bits, n, packed_dim=1):
    u = packed.view(np.uint32)
    if packed_dim == 0:
        u = u.T
    pack, mask = 32 // bits, (1 << bits) - 1
    out = np.zeros((u.shape[0], u.shape[1] * pack), dtype=np.int64)
    for i in range(pack):
        out[:, i::pack] = (u >> (bits * i)) & mask
    out = out[:, :n] - (1 << (bits - 1))
    return out.T if packed_dim == 0 else out


rng = np.random.default_rng(19)
with tempfile.TemporaryDirectory() as tmp:
    for n, (bits, group, sym) in enumerate([(4, 32, True), (8, None, False)]):
        folder = os.path.join(tmp, f"ct{n}")
        os.mkdir(folder)
        out, inn = 20, 100  # inn not a multiple of 8: padded words
        if group is None:
            groups, gsz = 1, inn
        else:
            inn = 128
            groups, gsz = inn // group, group
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        xq = rng.integers(lo, hi + 1, size=(out, inn))
        scale = (rng.random((out, groups)) * 0.01 + 0.001).astype(np.float16)
        p = "model.layers.0.self_attn.o_proj"
        tensors = {p + ".weight_packed": ("I32", None, pack_to_int32(xq, bits)),
                   p + ".weight_scale": ("F16", scale.shape, scale.tobytes()),
                   p + ".weight_shape": ("I64", (2,), np.array([out, inn], dtype="<i8").tobytes())}
        tensors[p + ".weight_packed"] = ("I32", tensors[p + ".weight_packed"][2].shape,
                                         tensors[p + ".weight_packed"][2].tobytes())
        zp = np.zeros((out, groups), dtype=np.int64)
        if not sym:
            zp = rng.integers(lo, hi + 1, size=(out, groups))
            zpp = pack_to_int32(zp, bits, packed_dim=0)
            tensors[p + ".weight_zero_point"] = ("I32", zpp.shape, zpp.tobytes())
        qw.write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
        qw.write_config(
            folder, {
                "quant_method": "compressed-tensors",
                "format": "pack-quantized",
                "config_groups": {
                    "group_0": {
                        "targets": ["Linear"],
                        "weights": {
                            "num_bits": bits,
                            "type": "int",
                            "symmetric": sym,
                            "strategy": "group" if group else "channel",
                            "group_size": group
                        }
                    }
                }
            })
        packed = np.frombuffer(tensors[p + ".weight_packed"][2],
                               dtype=np.int32).reshape(tensors[p + ".weight_packed"][1])
        xq2 = unpack_from_int32(packed, bits, inn)
        zp2 = unpack_from_int32(zpp, bits, out, packed_dim=0) if not sym else zp
        tally.check(f"case {n}: NumPy pack/unpack disagree",
                    np.array_equal(xq2, xq) and np.array_equal(zp2, zp))
        g = np.arange(inn) // gsz
        want = ((xq2 - zp2[:, g]).astype(np.float32) * scale.astype(np.float32)[:, g]).astype(np.float32)
        res = subprocess.run([BIN, folder, "--list", "--json"], capture_output=True, text=True)
        rows = {t["name"]: t for t in json.loads(res.stdout)["tensors"]} if res.returncode == 0 else {}
        r = rows.get(p + ".weight", {})
        tally.check(f"case {n}: listing {r} {res.stderr}",
                    r.get("shape") == [out, inn] and r.get("stored_type", "").startswith(f"pack-quantized int{bits}"))
        res = subprocess.run([BIN, folder, "--name", p + ".weight", "--json"], capture_output=True, text=True)
        tally.check(f"case {n}: {res.stderr}", res.returncode == 0)
        if res.returncode == 0:
            got = np.array([float(v) for v in np.array(json.loads(res.stdout)["tolist"], dtype=object).ravel()
                           ]).reshape(out, inn)
            tally.check(f"case {n}: values differ", np.allclose(got, want, rtol=1e-6, atol=0))

sys.exit(tally.summary())
