#!/usr/bin/python3
"""GPTQ (2/4/8-bit, grouped or not, act-order g_idx, checkpoint_format gptq and gptq_v2) and
AWQ GEMM (4-bit, interleaved nibble order) checkpoints shown as [out, in] float32 weights,
against AutoGPTQ's and AutoAWQ's formulas re-written in NumPy (tests/quant_writers.py), on
files packed as their QuantLinear.pack / WQLinear_GEMM write them.

Usage: /usr/bin/python3 tests/schemes_gptq_awq.py BUILD/tensor-inspect
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
        tally.check(f"{name}: exit {out.returncode} {out.stderr.strip()}", False)
        return None
    doc = json.loads(out.stdout)
    return np.array([float(v) for v in np.array(doc["tolist"], dtype=object).ravel()]).reshape(doc["shape"])


def same(got, want, what):
    if got is not None:
        tally.check(f"{what}: values differ",
                    got.shape == want.shape and np.allclose(got, want, rtol=1e-6, atol=0))


def listing(path, *extra):
    out = run(path, "--list", "--json", *extra)
    tally.check(f"--list {path}: {out.stderr.strip()}", out.returncode == 0)
    return {t["name"]: t for t in json.loads(out.stdout)["tensors"]} if out.returncode == 0 else {}


rng = np.random.default_rng(13)
with tempfile.TemporaryDirectory() as tmp:
    cases = [  # bits, group_size, act_order, sym, checkpoint_format, with config
        (4, 32, False, True, "gptq", True),
        (4, 16, True, False, "gptq_v2", True),
        (8, -1, False, False, "gptq", True),
        (2, 32, False, False, "gptq", False),
    ]
    for n, (bits, gs, act, sym, fmt, with_config) in enumerate(cases):
        folder = os.path.join(tmp, f"gptq{n}")
        os.mkdir(folder)
        inn, out = 128, 64
        group = inn if gs == -1 else gs
        groups = inn // group
        g_idx = np.arange(inn) // group
        if act:
            g_idx = rng.permutation(g_idx)  # desc_act: rows of a group scattered
        intweight = rng.integers(0, 1 << bits, size=(inn, out))
        zeros = np.full((groups, out), 1 << (bits - 1)) if sym else rng.integers(1, 1 << bits, size=(groups, out))
        # (gptq stores zeros - 1, so a zero of 0 does not survive it: AutoGPTQ reads it back as 2**bits)
        scales = (rng.random((groups, out)) * 0.01 + 0.001).astype(np.float32)
        qweight, qzeros, sc = qw.gptq_pack(intweight, zeros, scales, bits, v2=(fmt == "gptq_v2"))
        p = "model.layers.0.self_attn.q_proj"
        tensors = {p + ".g_idx": ("I32", (inn,), g_idx.astype("<i4").tobytes()),
                   p + ".qweight": ("I32", qweight.shape, qweight.tobytes()),
                   p + ".qzeros": ("I32", qzeros.shape, qzeros.tobytes()),
                   p + ".scales": ("F16", sc.shape, sc.tobytes())}
        qw.write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
        if with_config:
            qw.write_config(folder, {"quant_method": "gptq", "bits": bits, "group_size": gs, "desc_act": act,
                                     "sym": sym, "checkpoint_format": fmt})
        want = qw.gptq_dequant(qweight, qzeros, sc, g_idx, bits, v2=(fmt == "gptq_v2"))
        # The packing round-trips: the formula gives scale * (intweight - zero) back.
        tally.check(f"case {n}: the NumPy pack/unpack pair disagrees with itself",
                    np.allclose(want, (sc.astype(np.float32)[g_idx] * (intweight - zeros[g_idx])).T, rtol=1e-6))
        rows = listing(folder)
        r = rows.get(p + ".weight", {})
        tally.check(f"case {n}: listing {r}",
                    r.get("shape") == [out, inn] and r.get("dtype") == "float32" and
                    r.get("stored_type", "").startswith(f"gptq int{bits}") and len(r.get("parts", [])) == 4)
        same(values(folder, p + ".weight"), want, f"gptq case {n} {bits}-bit {fmt} act={act}")
        same(values(folder, p + ".weight", "-e", "x[5:9, 60:70]"), want[5:9, 60:70], f"gptq case {n} slice")
        if n == 0:
            stored = listing(folder, "--stored")
            tally.check("--stored shows the parts", p + ".qweight" in stored and p + ".weight" not in stored)
            del tensors[p + ".qzeros"]
            qw.write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
            res = run(folder, "--list")
            tally.check(f"missing qzeros: exit {res.returncode} {res.stderr.strip()}",
                        res.returncode == 2 and "q_proj.qzeros" in res.stderr and "q_proj.weight" in res.stderr)
        if n == 1:  # a g_idx naming a group that does not exist: exit 2 naming the part
            bad = g_idx.copy()
            bad[3] = groups
            tensors[p + ".g_idx"] = ("I32", (inn,), bad.astype("<i4").tobytes())
            qw.write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
            res = run(folder, "--name", p + ".weight")
            tally.check(f"bad g_idx: {res.stderr.strip()}",
                        res.returncode == 2 and "g_idx" in res.stderr and res.stdout == "")

    # AWQ GEMM, with config and as a lone file.
    folder = os.path.join(tmp, "awq")
    os.mkdir(folder)
    inn, out, gs = 128, 64, 32
    intweight = rng.integers(0, 16, size=(inn, out))
    zeros = rng.integers(0, 16, size=(inn // gs, out))
    scales = (rng.random((inn // gs, out)) * 0.01 + 0.001).astype(np.float16)
    qweight, qzeros = qw.awq_pack(intweight, zeros)
    p = "model.layers.0.mlp.down_proj"
    qw.write_safetensors(os.path.join(folder, "model.safetensors"), {
        p + ".qweight": ("I32", qweight.shape, qweight.tobytes()),
        p + ".qzeros": ("I32", qzeros.shape, qzeros.tobytes()),
        p + ".scales": ("F16", scales.shape, scales.tobytes()),
        "model.norm.weight": ("F16", (out,), np.ones(out, dtype=np.float16).tobytes())})
    qw.write_config(folder, {"quant_method": "awq", "bits": 4, "group_size": gs, "zero_point": True, "version": "gemm"})
    want = qw.awq_dequant(qweight, qzeros, scales, gs)
    tally.check(
        "AWQ: the NumPy pack/unpack pair disagrees with itself",
        np.allclose(want, ((intweight - np.repeat(zeros, gs, 0)) * np.repeat(scales.astype(np.float32), gs, 0)).T,
                    rtol=1e-6))
    r = listing(folder).get(p + ".weight", {})
    tally.check(f"awq listing {r}",
                r.get("shape") == [out, inn] and r.get("stored_type") == f"awq gemm int4, groups of {gs}")
    same(values(folder, p + ".weight"), want, "awq values")
    lone = os.path.join(folder, "model.safetensors")
    same(values(lone, p + ".weight"), want, "awq lone file (detected)")
    qw.write_config(folder, {"quant_method": "awq", "bits": 4, "group_size": 64, "version": "gemm"})
    res = run(folder, "--list")
    tally.check(f"awq group mismatch: {res.stderr.strip()}",
                res.returncode == 2 and "down_proj.scales" in res.stderr)
    qw.write_config(folder, {"quant_method": "awq", "bits": 4, "group_size": gs, "version": "gemv"})
    res = run(folder, "--list")
    tally.check(f"awq gemv: listed as stored with a warning: {res.stderr.strip()}",
                res.returncode == 0 and "not decoded" in res.stderr and p + ".qweight" in res.stdout)

    # Bit for bit, over more outputs than one strip of rows the decoders copy out of the
    # transposed qweight (GPTQ 32 rows, AWQ 64) and a ragged last strip, with a group run
    # across a block of 4096 values and act-order's per-input groups; whole and as --stats.
    for label, (bits, gs, act, fmt, inn, out) in {"gptq act-order v2": (4, 64, True, "gptq_v2", 512, 72),
                                                 "gptq 8-bit": (8, 128, False, "gptq", 768, 40),
                                                 "gptq 4-bit": (4, 128, False, "gptq", 1536, 104)}.items():
        folder = os.path.join(tmp, label.replace(" ", "_"))
        os.mkdir(folder)
        groups = inn // gs
        g_idx = np.arange(inn) // gs
        if act:
            g_idx = rng.permutation(g_idx)
        intweight = rng.integers(0, 1 << bits, size=(inn, out))
        zeros = rng.integers(1, 1 << bits, size=(groups, out))
        scales = (rng.random((groups, out)) * 0.01 + 0.001).astype(np.float32)
        qweight, qzeros, sc = qw.gptq_pack(intweight, zeros, scales, bits, v2=(fmt == "gptq_v2"))
        p = "model.layers.1.mlp.up_proj"
        qw.write_safetensors(os.path.join(folder, "model.safetensors"), {
            p + ".g_idx": ("I32", (inn,), g_idx.astype("<i4").tobytes()),
            p + ".qweight": ("I32", qweight.shape, qweight.tobytes()),
            p + ".qzeros": ("I32", qzeros.shape, qzeros.tobytes()),
            p + ".scales": ("F16", sc.shape, sc.tobytes())})
        qw.write_config(folder, {"quant_method": "gptq", "bits": bits, "group_size": gs, "desc_act": act, "sym": False,
                                 "checkpoint_format": fmt})
        wants = {label: (folder, p, qw.gptq_dequant(qweight, qzeros, sc, g_idx, bits, v2=(fmt == "gptq_v2")))}
        if label == "gptq 4-bit":  # and AWQ of the same size
            folder = os.path.join(tmp, "awq_wide")
            os.mkdir(folder)
            out = 200
            intweight = rng.integers(0, 16, size=(inn, out))
            zeros = rng.integers(0, 16, size=(inn // gs, out))
            scales = (rng.random((inn // gs, out)) * 0.01 + 0.001).astype(np.float16)
            qweight, qzeros = qw.awq_pack(intweight, zeros)
            qw.write_safetensors(os.path.join(folder, "model.safetensors"), {
                p + ".qweight": ("I32", qweight.shape, qweight.tobytes()),
                p + ".qzeros": ("I32", qzeros.shape, qzeros.tobytes()),
                p + ".scales": ("F16", scales.shape, scales.tobytes())})
            qw.write_config(folder, {"quant_method": "awq", "bits": 4, "group_size": gs, "version": "gemm"})
            wants["awq 200 outputs"] = (folder, p, qw.awq_dequant(qweight, qzeros, scales, gs))
        for what, (folder, p, want) in wants.items():
            got = values(folder, p + ".weight")
            tally.check(f"{what}: values not bit for bit the formula's",
                        got is not None and got.shape == want.shape and np.array_equal(got, want.astype(np.float64)))
            res = run(folder, "--name", p + ".weight", "--stats", "--json")
            st = json.loads(res.stdout) if res.returncode == 0 else {}
            w = want.astype(np.float64)
            tally.check(
                f"{what}: --stats {st.get('min')} {st.get('max')} "
                f"{st.get('mean')} {st.get('std')} against NumPy's",
                st.get("min") == w.min() and st.get("max") == w.max() and
                abs(st.get("mean", np.inf) - w.mean()) <= 1e-9 * w.std() and
                abs(st.get("std", np.inf) - w.std()) <= 1e-9 * w.std())

sys.exit(tally.summary())
