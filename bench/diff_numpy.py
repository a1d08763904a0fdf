#!/usr/bin/python3
"""Baseline: what a user runs today for `tensor-inspect diff A B` — NumPy's one-liners.

Usage: diff_numpy.py A.npy B.npy
       diff_numpy.py A.safetensors|INDEX.json B.safetensors|INDEX.json
Two .npy files: np.load both, then `(a != b).sum()` and `abs(a - b).max()`, the one-liner
a user writes. Two safetensors checkpoints (files or sharded indexes): the same per tensor
through np.memmap, matched by name, BF16 widened to float32 by shifting the bits
(uint16 -> uint32 << 16). Prints one line per tensor: name mismatched max_abs.
"""
import json
import os
import struct
import sys

import numpy as np

NP = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2",
      "I8": "i1", "U8": "u1", "BOOL": "?"}


def tensors(path):
    """name -> a function that memory-maps the tensor."""
    if path.endswith(".json"):
        with open(path) as f:
            shards = sorted(set(json.load(f)["weight_map"].values()))
        paths = [os.path.join(os.path.dirname(path), s) for s in shards]
    else:
        paths = [path]
    out = {}
    for p in paths:
        with open(p, "rb") as f:
            (n,) = struct.unpack("<Q", f.read(8))
            header = json.loads(f.read(n))
        for name, t in header.items():
            if name == "__metadata__":
                continue
            out[name] = (p, 8 + n + t["data_offsets"][0], t)
    return out


def load(entry):
    p, offset, t = entry
    begin, end = t["data_offsets"]
    raw = np.memmap(p, dtype=np.uint8, mode="r", offset=offset, shape=(end - begin,))
    if t["dtype"] == "BF16":
        return (raw.view("<u2").astype(np.uint32) << 16).view(np.float32)
    return raw.view(NP[t["dtype"]])


a_path, b_path = sys.argv[1], sys.argv[2]
if a_path.endswith(".npy"):
    a, b = np.load(a_path), np.load(b_path)
    print((a != b).sum(), abs(a - b).max())
else:
    ta, tb = tensors(a_path), tensors(b_path)
    for name, entry in ta.items():
        if name not in tb:
            print(name, "only in A")
            continue
        a, b = load(entry), load(tb[name])
        print(name, int((a != b).sum()), abs(a - b).max())
