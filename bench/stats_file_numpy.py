#!/usr/bin/python3
"""Baseline: what a user runs today for `tensor-inspect FILE --stats` — statistics of every
tensor of a safetensors file (or a sharded checkpoint's index) with NumPy, from np.memmap.

Usage: stats_file_numpy.py FILE.safetensors|model.safetensors.index.json [NAME]
With NAME, that tensor alone (`tensor-inspect FILE --name NAME --stats`: the memmap one-liner).
Prints one line per tensor: name dtype shape min max mean std nan, and a total line.
BF16 is widened to float32 by shifting the bits (uint16 -> uint32 << 16), as users do;
mean and std are taken in float64 (np.mean/np.std with dtype=np.float64).
"""
import json
import os
import struct
import sys

import numpy as np

NP = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2",
      "I8": "i1", "U8": "u1", "BOOL": "?"}


def files(path):
    if path.endswith(".json"):
        with open(path) as f:
            shards = sorted(set(json.load(f)["weight_map"].values()))
        return [os.path.join(os.path.dirname(path), s) for s in shards]
    return [path]


params = 0
for path in files(sys.argv[1]):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
    for name, t in header.items():
        if name == "__metadata__" or (len(sys.argv) > 2 and name != sys.argv[2]):
            continue
        begin, end = t["data_offsets"]
        raw = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n + begin, shape=(end - begin,))
        if t["dtype"] == "BF16":
            a = (raw.view("<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            a = raw.view(NP[t["dtype"]])
        nan = int(np.isnan(a).sum()) if a.dtype.kind == "f" else 0
        print(name, t["dtype"], t["shape"], repr(a.min().item()), repr(a.max().item()),
              repr(a.mean(dtype=np.float64).item()), repr(a.std(dtype=np.float64).item()), nan)
        params += a.size
print("total", params)
