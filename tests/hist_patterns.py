#!/usr/bin/env python3
"""--stats --hist of 1- and 2-byte elements in one pass: the statistics pass counts each stored bit
pattern (at most 65,536 of them), and the histogram is made from the counts
(stats/bit_patterns.cpp), so a remote tensor is fetched once, not twice.

    /usr/bin/python3 tests/hist_patterns.py build/tensor-inspect

Over .npy files of float16 (NumPy's standard-normal values with a nan, +inf, -inf and -0.0),
big-endian float16, int8, uint8, bool and int16, and a .safetensors file of bfloat16 (torch's values),
float8_e4m3fn and float8_e5m2 tensors (every byte value, random): `--stats --hist=7` and `--hist=100`
give NumPy's np.histogram of the finite values over the printed range (whose ends are NumPy's min and
max), and NumPy's nan, +inf and -inf counts. The fp8 values are decoded here from the OCP FP8 formats
(sign, 4 or 5 exponent bits of bias 7 or 15, 3 or 2 mantissa bits; e4m3fn has no inf and one nan
pattern a sign). Served by a local nginx, the same files print the same histograms, and the server
sends each file once (a second pass fetched it again: 2.0 times). A float32 file, whose patterns are
too many to count, keeps its two passes and prints the same histogram remote as local.
Prints one line per check and `N passed, M failed`.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

import tally
from tally import check
from nginx_server import servers


def fp8(raw, exp_bits):
    """The float64 values of fp8 bytes: e4m3fn (exp_bits 4) or e5m2 (5), from the OCP formats."""
    man_bits = 7 - exp_bits
    bias = (1 << (exp_bits - 1)) - 1
    b = raw.astype(np.int64)
    sign = np.where(b & 0x80, -1.0, 1.0)
    e = (b >> man_bits) & ((1 << exp_bits) - 1)
    m = b & ((1 << man_bits) - 1)
    normal = (1 + m / (1 << man_bits)) * np.power(2.0, e - bias)
    sub = (m / (1 << man_bits)) * 2.0 ** (1 - bias)
    v = sign * np.where(e == 0, sub, normal)
    top = (1 << exp_bits) - 1
    if exp_bits == 4:
        v = np.where((e == top) & (m == 7), np.nan, v)
    else:
        v = np.where((e == top) & (m == 0), sign * np.inf, v)
        v = np.where((e == top) & (m != 0), np.nan, v)
    return v


def make(tmp):
    """{file name: {tensor name or None: float64 values}}."""
    rng = np.random.default_rng(31)
    files = {}
    a = rng.standard_normal(3_000_000).astype(np.float16)
    a[5], a[7], a[9], a[11] = np.nan, np.inf, -np.inf, -0.0
    arrays = {"f16.npy": a, "be16.npy": rng.standard_normal(2_000_000).astype(">f2"),
              "i8.npy": rng.integers(-128, 128, size=4_000_000).astype(np.int8),
              "u8.npy": rng.integers(0, 256, size=4_000_000).astype(np.uint8),
              "bool.npy": rng.integers(0, 2, size=4_000_000).astype(bool),
              "i16.npy": rng.integers(-30000, 30000, size=3_000_000).astype(np.int16),
              "f32.npy": rng.standard_normal(2_000_000).astype(np.float32)}
    for name, arr in arrays.items():
        np.save(os.path.join(tmp, name), arr)
        files[name] = {None: arr.astype(np.float64)}
    import torch  # bfloat16 as torch rounds it
    bf = torch.randn(1_500_000, generator=torch.Generator().manual_seed(3)).to(torch.bfloat16)
    bf_raw = bf.view(torch.int16).numpy().tobytes()
    e4 = rng.integers(0, 256, size=1_000_000).astype(np.uint8)
    e5 = rng.integers(0, 256, size=1_000_000).astype(np.uint8)
    items = [("bf", "BF16", bf_raw, bf.to(torch.float64).numpy()), ("e4", "F8_E4M3", e4.tobytes(), fp8(e4, 4)),
             ("e5", "F8_E5M2", e5.tobytes(), fp8(e5, 5))]
    head, body = {}, b""
    for name, dtype, raw, _ in items:
        head[name] = {"dtype": dtype, "shape": [len(raw) // (2 if dtype == "BF16" else 1)],
                      "data_offsets": [len(body), len(body) + len(raw)]}
        body += raw
    h = json.dumps(head).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(os.path.join(tmp, "mixed.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + body)
    files["mixed.safetensors"] = {name: values for name, _, _, values in items}
    return files


def histograms(binary, source, bins):
    """{tensor name: its stats object} from --stats --hist=bins --all --jsonl, or an error text."""
    p = subprocess.run([binary, source, "--stats", f"--hist={bins}", "--all", "--jsonl"], capture_output=True,
                       text=True, timeout=300)
    if p.returncode != 0:
        return p.stderr.strip()
    rows = [json.loads(line) for line in p.stdout.splitlines() if line.strip()]
    return {row["name"]: row for row in rows}


def numpy_matches(row, values, bins):
    """Whether a stats row's histogram is NumPy's over `values` (float64), with its range."""
    finite = values[np.isfinite(values)]
    h = row["histogram"]
    counts, _ = np.histogram(finite, bins, range=(h["lo"], h["hi"]))
    return (h["lo"] == finite.min() and h["hi"] == finite.max() and h["counts"] == counts.tolist()
            and row["nan"] == int(np.isnan(values).sum()) and row["posinf"] == int(np.isposinf(values).sum())
            and row["neginf"] == int(np.isneginf(values).sum()))


def main():
    binary = os.path.abspath(sys.argv[1])
    with servers("ti-hist-") as (tmp, www, nginx, _fault_url):
        files = make(tmp)
        for name, tensors in files.items():
            path = os.path.join(tmp, name)
            os.symlink(path, os.path.join(www, name))
            url = nginx.url("files", name)
            size = os.path.getsize(path)
            for bins in (7, 100):
                local = histograms(binary, path, bins)
                mark = nginx.mark()
                remote = histograms(binary, url, bins)
                sent = sum(int(line.split()[2]) for line in nginx.lines_since(mark))
                if isinstance(local, str) or isinstance(remote, str):
                    check(f"{name} --hist={bins}: runs", False, f"{local!r} {remote!r}")
                    continue
                for tensor, values in tensors.items():
                    key = tensor if tensor is not None else next(iter(local))
                    check(f"{name}{'' if tensor is None else ':' + tensor} --hist={bins}: NumPy's histogram",
                          numpy_matches(local[key], values, bins), f"{local[key].get('histogram')}")
                check(f"{name} --hist={bins}: remote prints the local histograms",
                      [r.get("histogram") for r in local.values()] == [r.get("histogram") for r in remote.values()])
                once = name != "f32.npy"
                check(f"{name} --hist={bins}: the server sent the file {'once' if once else 'twice (two passes)'}",
                      sent <= size * 1.02 if once else size * 1.9 <= sent <= size * 2.1,
                      f"{sent / size:.2f} times its {size} bytes")
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
