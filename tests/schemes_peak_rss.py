#!/usr/bin/python3
"""`--stats` of quantization-scheme tensors keeps the resident set flat (issue 22 part 6).

    /usr/bin/python3 tests/schemes_peak_rss.py build/tensor-inspect

A scheme's logical tensor is decoded from its stored parts through the file's memory map;
the scan now drops the pages of the big code part behind it (decoded_tensor.hpp): FP8
weights, read in the logical order, in runs as they are scanned; GPTQ's qweight, which
every output row reads across, when the tensor is done. Before, every scanned part stayed
resident until exit: a whole-file --stats peaked at the file's size.

The files are sparse (their codes mostly a hole, so they take little disk and time):
- FP8 with 128x128 block scales (DeepSeek-V3's layout, config.json): 4 tensors of
  8192x8192 codes (64 MiB each, the first 1024 rows random codes, the rest code 0);
- GPTQ 4-bit, groups of 128 (AutoGPTQ's layout): 4 tensors of qweight [1024, 8192] (32 MiB
  each, code 0 everywhere) beside random float16 scales, so every value is -8 * scale.
The statistics are checked against NumPy's over the values each producer's formula gives
(min and max exact, mean and std to 1e-6), and the peak RSS (GNU time, the tool alone)
against bounds far below the files' sizes: one FP8 tensor (64 MiB) under 40 MiB, the whole
FP8 file (256 MiB) under 48 MiB, the whole GPTQ file (128 MiB) under 72 MiB (one tensor's
qweight is read whole by its first output rows, so a GPTQ tensor's own peak is its
qweight's size). OMP_NUM_THREADS=2 fixes the threads' share of the bound (each holds at
most one unreleased run of 8 M elements). Sanitizer builds skip the bounds.

Prints one line per check and a closing `N passed, M failed`; exit 0 when all passed.
"""
import json
import os
import struct
import sys
import tempfile

import numpy as np

import tally
from peak_rss import run_measured
from tally import check

tally.pass_details = True
MiB = 1 << 20
FP8_ROWS = FP8_COLS = 8192
FP8_DENSE_ROWS = 1024
GPTQ_OUT, GPTQ_IN = 8192, 8192
TENSORS = 4


def e4m3_table():
    """The float value of each E4M3 (fn) code, as the OCP spec defines it; NaN for 0x7F/0xFF."""
    c = np.arange(256)
    e, m = (c >> 3) & 15, c & 7
    v = np.where(e == 0, m / 8 * 2.0 ** -6, (1 + m / 8) * 2.0 ** (e - 7.0)) * np.where(c & 0x80, -1, 1)
    v[(c & 0x7F) == 0x7F] = np.nan
    return v


def write_sparse_safetensors(path, parts):
    """parts: [(name, tag, shape, nbytes, [(offset in part, bytes)])], laid out in order; bytes
    not given are a hole (zeros)."""
    header, offset = {}, 0
    for name, tag, shape, nbytes, _ in parts:
        header[name] = {"dtype": tag, "shape": list(shape), "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    start = 8 + len(text)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        at = 0
        for _, _, _, nbytes, pieces in parts:
            for where, data in pieces:
                f.seek(start + at + where)
                f.write(data)
            at += nbytes
        f.truncate(start + at)


def write_config(folder, quantization_config):
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump({"torch_dtype": "bfloat16", "quantization_config": quantization_config}, f)


def make_fp8(folder, rng):
    """The FP8 folder, and each tensor's float64 values of its dense rows (the rest is 0.0)."""
    os.makedirs(folder)
    finite = np.array([c for c in range(256) if c & 0x7F != 0x7F], dtype=np.uint8)
    table = e4m3_table()
    parts, dense = [], []
    for t in range(TENSORS):
        codes = rng.choice(finite, size=(FP8_DENSE_ROWS, FP8_COLS))
        scale_inv = (10.0 ** rng.uniform(-5, -4, (FP8_ROWS // 128, FP8_COLS // 128))).astype(np.float32)
        prefix = f"model.layers.{t}.mlp.down_proj"
        parts.append((prefix + ".weight", "F8_E4M3", [FP8_ROWS, FP8_COLS], FP8_ROWS * FP8_COLS, [(0, codes.tobytes())]))
        parts.append((prefix + ".weight_scale_inv", "F32", list(scale_inv.shape), scale_inv.nbytes,
                      [(0, scale_inv.tobytes())]))
        # DeepSeek-V3's weight_dequant: float32 code value times its 128x128 block's scale_inv.
        s = np.repeat(np.repeat(scale_inv, 128, axis=0), 128, axis=1)[:FP8_DENSE_ROWS]
        dense.append((table[codes].astype(np.float32) * s).astype(np.float64))
    write_sparse_safetensors(os.path.join(folder, "model.safetensors"), parts)
    write_config(folder, {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
                          "weight_block_size": [128, 128]})
    return dense


def make_gptq(folder, rng):
    """The GPTQ folder, and each tensor's scales (float16 [groups, out])."""
    os.makedirs(folder)
    groups = GPTQ_IN // 128
    parts, scales = [], []
    for t in range(TENSORS):
        sc = (10.0 ** rng.uniform(-3.5, -2, (groups, GPTQ_OUT))).astype(np.float16)
        zeros = np.full((groups, GPTQ_OUT // 8), 0x77777777, dtype=np.uint32)  # 7 = 8 - 1 in every field
        prefix = f"model.layers.{t}.mlp.down_proj"
        parts.append((prefix + ".qweight", "I32", [GPTQ_IN // 8, GPTQ_OUT], GPTQ_IN // 8 * GPTQ_OUT * 4, []))
        parts.append((prefix + ".qzeros", "I32", list(zeros.shape), zeros.nbytes, [(0, zeros.tobytes())]))
        parts.append((prefix + ".scales", "F16", list(sc.shape), sc.nbytes, [(0, sc.tobytes())]))
        scales.append(sc)
    write_sparse_safetensors(os.path.join(folder, "model.safetensors"), parts)
    write_config(folder, {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False, "sym": True,
                          "checkpoint_format": "gptq"})
    return scales


def moments(values, count):
    """(min, max, mean, std) of `values` (float64) padded with zeros to `count` elements."""
    zeros = count - values.size
    total = values.sum()
    mean = total / count
    var = (((values - mean) ** 2).sum() + zeros * mean * mean) / count
    lo, hi = values.min(), values.max()
    if zeros:
        lo, hi = min(lo, 0.0), max(hi, 0.0)
    return lo, hi, mean, np.sqrt(var)


def rows_of(out):
    """The statistics rows of --stats --json output, by tensor name."""
    doc = json.loads(out)
    rows = doc if isinstance(doc, list) else doc.get("tensors", [doc])
    return {r.get("name"): r.get("stats", r) for r in rows}


def check_stats(label, got, want):
    lo, hi, mean, std = want
    ok = (got is not None and got.get("min") == lo and got.get("max") == hi and
          abs(got.get("mean", np.inf) - mean) <= 1e-6 * max(abs(mean), std) and
          abs(got.get("std", np.inf) - std) <= 1e-6 * std)
    shown = {k: got.get(k) for k in ("min", "max", "mean", "std")} if got else got
    check(f"{label}: min, max, mean, std as NumPy's", ok, f"got {shown}, want {want}")


def main():
    binary = os.path.abspath(sys.argv[1])
    with open(binary, "rb") as f:
        sanitized = b"__asan_init" in f.read()
    os.environ["OMP_NUM_THREADS"] = "2"
    rng = np.random.default_rng(22)
    with tempfile.TemporaryDirectory() as d:
        fp8, gptq = os.path.join(d, "fp8"), os.path.join(d, "gptq")
        dense = make_fp8(fp8, rng)
        scales = make_gptq(gptq, rng)
        fp8_file, gptq_file = os.path.join(fp8, "model.safetensors"), os.path.join(gptq, "model.safetensors")
        fp8_want = [moments(v.ravel(), FP8_ROWS * FP8_COLS) for v in dense]
        # GPTQ: every value is scale * (0 - 8) in float32, each scale repeated for its 128 inputs.
        gptq_want = [moments((s.astype(np.float32) * np.float32(-8)).astype(np.float64).ravel(), s.size)
                     for s in scales]

        name = "model.layers.0.mlp.down_proj.weight"
        status, out, err, rss = run_measured(binary, [fp8, "--name", name, "--stats", "--json"], 300)
        check_stats("FP8 one tensor", rows_of(out).get(name) if status == 0 else None, fp8_want[0])
        check(f"FP8 one 64 MiB tensor: peak RSS under 40 MiB", status == 0 and (sanitized or 0 < rss < 40 * MiB),
              f"peak RSS {rss / MiB:.1f} MiB, exit {status} {err.strip()}")

        for label, folder, path, want, bound in (("FP8", fp8, fp8_file, fp8_want, 48),
                                                  ("GPTQ", gptq, gptq_file, gptq_want, 72)):
            status, out, err, rss = run_measured(binary, [folder, "--stats", "--json"], 300)
            rows = rows_of(out) if status == 0 else {}
            for t in range(TENSORS):
                got = rows.get(f"model.layers.{t}.mlp.down_proj.weight")
                check_stats(f"{label} whole file, tensor {t}", got, want[t])
            size = os.path.getsize(path)
            check(f"{label} whole file ({size / MiB:.0f} MiB): peak RSS under {bound} MiB",
                  status == 0 and (sanitized or 0 < rss < bound * MiB),
                  f"peak RSS {rss / MiB:.1f} MiB, exit {status} {err.strip()}")
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
