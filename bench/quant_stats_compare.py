#!/usr/bin/python3
"""`--stats` of quantized tensors side by side with the Python route a user would take, in one run.

    /usr/bin/python3 bench/quant_stats_compare.py build/tensor-inspect [--pairs N] [--keep DIR] [--cases a,b]
    GGUF_PY=/path/to/llama.cpp/gguf-py /usr/bin/python3 bench/quant_stats_compare.py build/tensor-inspect

The cases of issue 22 part 6: one 4096x14336 tensor (58.7 M weights) stored as
- Q4_K, IQ4_XS and MXFP4 in a GGUF file: against gguf-py's `quants.dequantize` of the tensor's
  blocks (llama.cpp's own Python package; GGUF_PY names its folder, the one holding `gguf/`) and
  NumPy statistics. With gguf-py's GGUFReader the blocks come from it; with an excerpt that has
  only quants.py (as /work/ref/gguf-py) from an np.memmap at the tensor's offset. Without GGUF_PY
  the GGUF cases time tensor-inspect alone.
- GPTQ 4-bit (AutoGPTQ's layout, group size 128, config.json) and FP8 with 128x128 block scales
  (DeepSeek-V3's layout, config.json) in safetensors: against the NumPy formula of each producer
  (AutoGPTQ's unpack, shift and scale; DeepSeek-V3's weight_dequant) over np.memmap.
- AWQ GEMM 4-bit (AutoAWQ's layout, group size 128) and MLX affine 4-bit (mlx-lm's layout, group
  size 64), both with config.json: against AutoAWQ's unpack/dequantize_gemm and mlx's
  dequantize in NumPy.
The statistics on both sides: min, max, mean and std in float64 and the NaN count, as
bench/stats_file_numpy.py takes them.

Inputs are made in a temporary directory from a fixed seed (random codes with realistic scales,
as scripts/ggml_reference.py and tests/quant_writers.py make them; about 200 MB in all) and
deleted afterwards unless --keep. Each case runs baseline and product alternately, PAIRS times
(default 3), stdout to /dev/null, timed from spawn to reap, so start-up and imports count. The
table shows the median wall times, the weights per second of each, ratio = median baseline /
median product (higher: tensor-inspect is faster), the median CPU time (user + sys), and the peak
RSS of one run of each under GNU time; `same` says whether both gave the same min and max and a
mean and std equal to 1e-6 (NumPy's float64 sums are pairwise, ours blockwise).
Nothing is asserted: this is a measurement, not a test.
"""
import argparse
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

ROWS, COLS = 4096, 14336  # a Llama-3-8B down_proj.weight: [out, in]
WEIGHTS = ROWS * COLS
LAYER = "model.layers.0.mlp.down_proj"
SAFETENSORS_CASES = ("gptq", "fp8", "awq", "mlx")

# ggml's block layouts (ggml-common.h): elements, bytes, offsets of float16 scales.
GGML = {"Q4_K": (12, 256, 144, [0, 2]), "IQ4_XS": (23, 256, 136, [0]), "MXFP4": (39, 32, 17, [])}

STATS = """
def stats(w):
    print(repr(float(w.min())), repr(float(w.max())), repr(float(w.mean(dtype=np.float64))),
          repr(float(w.std(dtype=np.float64))), int(np.isnan(w).sum()))
"""

# gguf-py: GGUFReader when the package has it, else the tensor's blocks from an np.memmap.
GGUF_BASELINE = """import os, struct, sys
import numpy as np
sys.path.insert(0, os.environ["GGUF_PY"])
from gguf import quants
from gguf.constants import GGMLQuantizationType
""" + STATS + """
path = sys.argv[1]
try:
    from gguf import GGUFReader
    t = GGUFReader(path).tensors[0]
    blocks, qtype = t.data, t.tensor_type
except ImportError:  # an excerpt of gguf-py without its reader: the file of this bench, no metadata
    with open(path, "rb") as f:
        head = f.read(4096)
    (nlen,) = struct.unpack_from("<Q", head, 24)
    at = 32 + nlen
    (ndim,) = struct.unpack_from("<I", head, at)
    dims = struct.unpack_from(f"<{ndim}Q", head, at + 4)
    qtype, offset = struct.unpack_from("<IQ", head, at + 4 + 8 * ndim)
    data_start = (at + 16 + 8 * ndim + 31) // 32 * 32
    qtype = GGMLQuantizationType(qtype)
    elems, size = quants.GGML_QUANT_SIZES[qtype]
    rows = int(np.prod(dims[1:]))
    blocks = np.memmap(path, np.uint8, "r", data_start + offset, (rows, dims[0] // elems * size))
stats(quants.dequantize(blocks, qtype))
"""

SAFETENSORS_HEAD = """import json, struct, sys
import numpy as np
""" + STATS + """
def tensors(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    out = {}
    for name, t in header.items():
        if name != "__metadata__":
            b, e = t["data_offsets"]
            out[name] = (np.memmap(path, np.uint8, "r", 8 + n + b, (e - b,)), t["shape"])
    return out
t = tensors(sys.argv[1] + "/model.safetensors")
p = sys.argv[2]
"""

# AutoGPTQ qlinear_cuda_old.py forward, in NumPy: unpack qweight along the input axis and
# qzeros along the output axis, zeros + 1, scales[g_idx] * (q - zeros[g_idx]), as [out, in].
GPTQ_BASELINE = SAFETENSORS_HEAD + """
qw, (packed_in, out) = t[p + ".qweight"]
qw = qw.view("<u4").reshape(packed_in, out)
qz = t[p + ".qzeros"][0].view("<u4").reshape(t[p + ".qzeros"][1])
scales = t[p + ".scales"][0].view("<f2").reshape(t[p + ".scales"][1]).astype(np.float32)
g_idx = t[p + ".g_idx"][0].view("<i4")
shifts = np.arange(0, 32, 4, dtype=np.uint32)
q = ((qw[:, None, :] >> shifts[None, :, None]) & 15).reshape(-1, out)
z = ((qz[:, :, None] >> shifts[None, None, :]) & 15).reshape(qz.shape[0], -1) + 1
w = scales[g_idx] * (q.astype(np.int32) - z[g_idx].astype(np.int32)).astype(np.float32)
stats(w.T)
"""

# AutoAWQ awq/utils/packing_utils.py unpack_awq + reverse_awq_order + dequantize_gemm, in NumPy:
# qweight and qzeros unpacked along the output axis, fields reordered, (w - z) * scales per
# group of inputs, as [out, in].
AWQ_BASELINE = SAFETENSORS_HEAD + """
def unpack(part):
    raw, shape = t[part]
    words = raw.view("<u4").reshape(shape)
    v = ((words[:, :, None] >> np.arange(0, 32, 4, dtype=np.uint32)) & 15).reshape(shape[0], -1)
    order = np.arange(v.shape[1]).reshape(-1, 8)[:, [0, 4, 1, 5, 2, 6, 3, 7]].reshape(-1)
    return v[:, order]
w, z = unpack(p + ".qweight"), unpack(p + ".qzeros")
scales = t[p + ".scales"][0].view("<f2").reshape(t[p + ".scales"][1]).astype(np.float32)
group = w.shape[0] // z.shape[0]
v = (w.astype(np.int32) - np.repeat(z, group, axis=0).astype(np.int32)).astype(np.float32)
v *= np.repeat(scales, group, axis=0)
stats(v.T)
"""

# mlx.core.dequantize (affine), in NumPy: codes unpacked along the input axis, scales * q + biases
# per group of inputs.
MLX_BASELINE = SAFETENSORS_HEAD + """
raw, shape = t[p + ".weight"]
words = raw.view("<u4").reshape(shape)
q = ((words[:, :, None] >> np.arange(0, 32, 4, dtype=np.uint32)) & 15).reshape(shape[0], -1).astype(np.float32)
s = t[p + ".scales"][0].view("<f2").reshape(t[p + ".scales"][1]).astype(np.float32)
b = t[p + ".biases"][0].view("<f2").reshape(t[p + ".biases"][1]).astype(np.float32)
group = q.shape[1] // s.shape[1]
stats(np.repeat(s, group, axis=1) * q + np.repeat(b, group, axis=1))
"""

# DeepSeek-V3 inference/kernel.py weight_dequant, in NumPy: fp8 e4m3 codes through a table of
# their 256 values, times the scale of each 128x128 block.
FP8_BASELINE = SAFETENSORS_HEAD + """
c = np.arange(256)
e, m = (c >> 3) & 15, c & 7
lut = np.where(e == 0, m / 8 * 2.0 ** -6, (1 + m / 8) * 2.0 ** (e - 7)) * np.where(c & 0x80, -1, 1)
lut = np.where((e == 15) & (m == 7), np.nan, lut).astype(np.float32)
codes, shape = t[p + ".weight"]
s = t[p + ".weight_scale_inv"][0].view("<f4").reshape(t[p + ".weight_scale_inv"][1])
w = lut[codes.reshape(shape)] * np.repeat(np.repeat(s, 128, axis=0), 128, axis=1)[:shape[0], :shape[1]]
stats(w)
"""


def realistic_halves(rng, n):
    """float16 bits of n scales in 1e-4..1e-1 (log-uniform), a fifth negative (as scripts/ggml_reference.py)."""
    v = 10.0 ** rng.uniform(-4, -1, n) * np.where(rng.random(n) < 0.8, 1, -1)
    return v.astype(np.float16).view(np.uint16)


def write_gguf(path, type_name, rng):
    """A GGUF v3 file of one tensor `w` (ne = [COLS, ROWS]) of random blocks with realistic scales."""
    type_id, elems, size, halves = GGML[type_name]
    blocks = rng.integers(0, 256, size=(WEIGHTS // elems, size), dtype=np.uint8)
    for at in halves:
        blocks[:, at:at + 2] = realistic_halves(rng, blocks.shape[0]).view(np.uint8).reshape(-1, 2)
    if type_name == "MXFP4":  # E8M0 exponents 2^-10..2^3
        blocks[:, 0] = rng.integers(117, 131, blocks.shape[0])
    name = b"w"
    info = struct.pack("<Q", len(name)) + name + struct.pack("<I2Q", 2, COLS, ROWS) + struct.pack("<IQ", type_id, 0)
    header = b"GGUF" + struct.pack("<IQQ", 3, 1, 0) + info
    with open(path, "wb") as f:
        f.write(header + b"\0" * (-len(header) % 32))
        blocks.tofile(f)


def write_safetensors(path, tensors):
    """tensors: [(name, dtype tag, shape, array)], laid out in order (tests/quant_writers.py's layout)."""
    header, offset = {}, 0
    for name, tag, shape, arr in tensors:
        header[name] = {"dtype": tag, "shape": list(shape), "data_offsets": [offset, offset + arr.nbytes]}
        offset += arr.nbytes
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for *_, arr in tensors:
            np.ascontiguousarray(arr).tofile(f)


def write_folder(folder, quantization_config, tensors):
    os.makedirs(folder, exist_ok=True)
    write_safetensors(os.path.join(folder, "model.safetensors"), tensors)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump({"architectures": ["LlamaForCausalLM"], "torch_dtype": "bfloat16",
                   "quantization_config": quantization_config}, f, indent=2)


def write_gptq(folder, rng):
    """AutoGPTQ 4-bit, group size 128, sym, no act-order: codes 0..15, zeros 8 (stored as 7)."""
    groups = COLS // 128
    qweight = rng.integers(0, 2**32, size=(COLS // 8, ROWS), dtype=np.uint32)
    zeros = np.full((groups, ROWS // 8), 0x77777777, dtype=np.uint32)  # 7 = 8 - 1 in every field
    scales = (10.0 ** rng.uniform(-3.5, -2, (groups, ROWS))).astype(np.float16)
    g_idx = (np.arange(COLS) // 128).astype(np.int32)
    write_folder(folder, {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False, "sym": True,
                          "checkpoint_format": "gptq"},
                 [(LAYER + ".g_idx", "I32", [COLS], g_idx), (LAYER + ".qweight", "I32", qweight.shape, qweight),
                  (LAYER + ".qzeros", "I32", zeros.shape, zeros), (LAYER + ".scales", "F16", scales.shape, scales)])


def write_awq(folder, rng):
    """AutoAWQ GEMM 4-bit, group size 128: qweight [in, out/8] and qzeros in AWQ's field order."""
    groups = COLS // 128
    qweight = rng.integers(0, 2**32, size=(COLS, ROWS // 8), dtype=np.uint32)
    qzeros = rng.integers(0, 2**32, size=(groups, ROWS // 8), dtype=np.uint32)
    scales = (10.0 ** rng.uniform(-3.5, -2, (groups, ROWS))).astype(np.float16)
    write_folder(folder, {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True, "version": "gemm"},
                 [(LAYER + ".qweight", "I32", qweight.shape, qweight), (LAYER + ".qzeros", "I32", qzeros.shape, qzeros),
                  (LAYER + ".scales", "F16", scales.shape, scales)])


def write_mlx(folder, rng):
    """MLX affine 4-bit, group size 64 (mlx-lm's save): weight U32 [out, in/8], scales and biases F16."""
    weight = rng.integers(0, 2**32, size=(ROWS, COLS // 8), dtype=np.uint32)
    scales = (10.0 ** rng.uniform(-3.5, -2, (ROWS, COLS // 64))).astype(np.float16)
    biases = (-8 * scales.astype(np.float32)).astype(np.float16)
    os.makedirs(folder, exist_ok=True)
    write_safetensors(os.path.join(folder, "model.safetensors"),
                      [(LAYER + ".weight", "U32", weight.shape, weight),
                       (LAYER + ".scales", "F16", scales.shape, scales),
                       (LAYER + ".biases", "F16", biases.shape, biases)])
    with open(os.path.join(folder, "config.json"), "w") as f:  # mlx-lm's key
        json.dump({"model_type": "llama", "quantization": {"group_size": 64, "bits": 4}}, f, indent=2)


def write_fp8(folder, rng):
    """DeepSeek-V3 fp8: e4m3 codes of standard-normal weights in 128x128 blocks scaled to +-448."""
    finite = np.array([c for c in range(256) if c & 0x7F != 0x7F], dtype=np.uint8)
    e, m = (finite.astype(int) >> 3) & 15, finite & 7
    value = np.where(e == 0, m / 8 * 2.0 ** -6, (1 + m / 8) * 2.0 ** (e - 7)) * np.where(finite & 0x80, -1, 1)
    order = np.argsort(value)
    sorted_values, sorted_codes = value[order], finite[order]
    codes = np.empty((ROWS, COLS), dtype=np.uint8)
    for r in range(0, ROWS, 256):  # the nearest code below each value: close enough for a benchmark
        x = rng.standard_normal((256, COLS)) * 112  # about 4 sigma to 448
        k = np.clip(np.searchsorted(sorted_values, x), 0, len(sorted_values) - 1)
        codes[r:r + 256] = sorted_codes[k]
    scale_inv = (10.0 ** rng.uniform(-5, -4, (ROWS // 128, COLS // 128))).astype(np.float32)
    write_folder(folder, {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic",
                          "weight_block_size": [128, 128]},
                 [(LAYER + ".weight", "F8_E4M3", codes.shape, codes),
                  (LAYER + ".weight_scale_inv", "F32", scale_inv.shape, scale_inv)])


def make_inputs(d, cases):
    rng = np.random.default_rng(20261203)
    paths = {}
    for type_name in GGML:
        key = type_name.lower()
        if key in cases:
            paths[key] = os.path.join(d, key + ".gguf")
            write_gguf(paths[key], type_name, rng)
    if "gptq" in cases:
        paths["gptq"] = os.path.join(d, "gptq")
        write_gptq(paths["gptq"], rng)
    for key, write in (("fp8", write_fp8), ("awq", write_awq), ("mlx", write_mlx)):
        if key in cases:
            paths[key] = os.path.join(d, key)
            write(paths[key], rng)
    return paths


def run_timed(argv, env=None):
    """(wall seconds, cpu seconds) of one run with stdout/stderr to /dev/null, or None."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as null:
        p = subprocess.Popen(argv, stdout=null, stderr=null, env=env)
        _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        return None
    return wall, usage.ru_utime + usage.ru_stime


def peak_rss_and_output(argv, env=None):
    """Peak RSS in MiB (GNU time, so this Python's size does not count) and stdout."""
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], capture_output=True, env=env)
    if p.returncode != 0:
        sys.stderr.write(p.stderr.decode(errors="replace")[-400:])
        return None, None
    return int(p.stderr.decode().split()[-1]) / 1024, p.stdout


def same(base, prod):
    if base is None or prod is None:
        return "failed"
    b = base.split()
    p = json.loads(prod)
    got = [p["min"], p["max"], p["mean"], p["std"], p["nan"]]
    want = [float(b[0]), float(b[1]), float(b[2]), float(b[3]), int(b[4])]
    ok = got[0] == want[0] and got[1] == want[1] and got[4] == want[4]
    ok = ok and all(abs(g - w) <= 1e-6 * abs(w) for g, w in zip(got[2:4], want[2:4]))
    return "yes" if ok else f"NO {got} {want}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--keep", help="make the inputs in DIR (reused when there) and keep them")
    ap.add_argument("--cases", default="q4_k,iq4_xs,mxfp4,gptq,fp8,awq,mlx")
    args = ap.parse_args()
    ti = os.path.abspath(args.binary)
    py = sys.executable
    cases = args.cases.split(",")
    d = args.keep or tempfile.mkdtemp(prefix="ti-qbench-")
    os.makedirs(d, exist_ok=True)
    scripts = {}
    for name, text in (("gguf", GGUF_BASELINE), ("gptq", GPTQ_BASELINE), ("fp8", FP8_BASELINE),
                       ("awq", AWQ_BASELINE), ("mlx", MLX_BASELINE)):
        scripts[name] = os.path.join(d, "baseline_" + name + ".py")
        with open(scripts[name], "w") as f:
            f.write(text)
    gguf_py = os.environ.get("GGUF_PY")
    try:
        have = {k: os.path.join(d, k + ("" if k in SAFETENSORS_CASES else ".gguf")) for k in cases}
        if not all(os.path.exists(p) for p in have.values()):
            make_inputs(d, cases)
        rows = []
        for key in cases:
            path = have[key]
            if key in SAFETENSORS_CASES:
                prod = [ti, path, "--name", LAYER + ".weight", "--stats", "--json"]
                base = [py, scripts[key], path, LAYER]
            else:
                prod = [ti, path, "--name", "w", "--stats", "--json"]
                base = [py, scripts["gguf"], path] if gguf_py else None
            rows.append((key, base, prod))

        print(f"machine: {os.cpu_count()} cores, {os.uname().release}; load average {os.getloadavg()[0]:.1f} at start; "
              f"{WEIGHTS / 1e6:.1f} M weights per case")
        print(f"{'case':8} {'product s':>9} {'G w/s':>6} {'baseline s':>10} {'G w/s':>6} {'ratio':>7} {'cpu prod':>8} "
              f"{'cpu base':>8} {'RSS prod':>9} {'RSS base':>10}  same")
        for key, base, prod in rows:
            rss_p, out_p = peak_rss_and_output(prod)
            rss_b, out_b = peak_rss_and_output(base, os.environ) if base else (None, None)
            tb, tp = [], []
            for _ in range(args.pairs):
                if base:
                    tb.append(run_timed(base))
                tp.append(run_timed(prod))
            if any(t is None for t in tb + tp):
                print(f"{key:8} a run failed")
                continue
            mp, cp = statistics.median(t[0] for t in tp), statistics.median(t[1] for t in tp)
            line = f"{key:8} {mp:9.3f} {WEIGHTS / mp / 1e9:6.2f} "
            if base:
                mb, cb = statistics.median(t[0] for t in tb), statistics.median(t[1] for t in tb)
                line += (f"{mb:10.3f} {WEIGHTS / mb / 1e9:6.3f} {mb / mp:6.1f}x {cp:8.3f} {cb:8.3f} "
                         f"{rss_p:5.1f} MiB {rss_b:6.1f} MiB  {same(out_b, out_p)}")
            else:
                line += f"{'-':>10} {'-':>6} {'-':>7} {cp:8.3f} {'-':>8} {rss_p:5.1f} MiB {'-':>10}  (no GGUF_PY)"
            print(line, flush=True)
        print(f"load average {os.getloadavg()[0]:.1f} at the end (above the core count, wall ratios are suspect)")
    finally:
        if not args.keep:
            shutil.rmtree(d)


if __name__ == "__main__":
    main()
