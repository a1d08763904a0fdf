#!/usr/bin/python3
"""Checks `tensor-inspect --stats` on the repository's samples against NumPy, computed here
independently (tests/stats_expect.py): every samples/*.npy, the safetensors samples (bfloat16
widened by uint16 << 16), .npz through np.load, PyTorch files against samples/pt_expected.json,
and the GGUF sample's quantized tensors against samples/gguf_expected.json (NumPy's
dequantization from the block formulas). Files made here are in tests/stats_made_inputs.py.

Usage: /usr/bin/python3 tests/stats_vs_numpy.py BUILD/tensor-inspect
"""
import glob
import json
import os
import sys

import numpy as np


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats_expect import (check_file, check_npy, compare, expected_stats, failures, kind_of,
    safetensors_values, stats_json)  # noqa: E402
import stats_expect  # noqa: E402

BIN = stats_expect.BIN = sys.argv[1]


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    for path in sorted(glob.glob("samples/*.npy")):
        check_npy(path)
    check_file("samples/mixed.safetensors", safetensors_values("samples/mixed.safetensors"))
    shards = {}
    for shard in sorted(glob.glob("samples/sharded/*.safetensors")):
        shards.update(safetensors_values(shard))
    check_file("samples/sharded/model.safetensors.index.json", shards)

    # .npz members through NumPy's own np.load; PyTorch files against samples/pt_expected.json
    # (tolist() reprs PyTorch printed when the samples were made).
    for path in ("samples/arrays.npz", "samples/arrays_compressed.npz"):
        with np.load(path) as z:
            check_file(path, {k: (z[k], kind_of(z[k].dtype)) for k in z.files})
    with open("samples/pt_expected.json") as f:
        pt = json.load(f)
    for fname, tensors in pt.items():
        values = {}
        for name, t in tensors.items():
            text = t["tolist"].replace("nan", "float('nan')").replace("inf", "float('inf')")
            v = eval(text, {"__builtins__": {}, "float": float})  # the repr of nested lists of numbers
            kind = "f" if "float" in t["dtype"] else "b" if t["dtype"] == "bool" else "u" if t["dtype"].startswith(
                "uint") else "i"
            values[name] = (np.array(v, dtype=np.float64 if kind == "f" else object), kind)
        check_file("samples/" + fname, values)

    # GGUF: quantized tensors against NumPy's dequantization (samples/make_gguf_samples.py).
    with open("samples/gguf_expected.json") as f:
        gguf = json.load(f)
    got = stats_json(["samples/quants.gguf"])
    if got is not None:
        rows = {r["name"]: r for r in got["tensors"]}
        for name, t in gguf.items():
            compare(f"quants.gguf:{name}", rows[name], expected_stats(np.array(t["values"], np.float32), "f"))
        if rows["q8_1"]["skipped"] is None or rows["q8_1"]["count"] is not None:
            failures.append(f"quants.gguf: q8_1 should be skipped: {rows['q8_1']}")
        one = stats_json(["samples/quants.gguf", "--name", "q4_k"])
        if one is not None:
            compare("quants.gguf --name q4_k", one, expected_stats(np.array(gguf["q4_k"]["values"], np.float32), "f"))
    for f in failures:
        print("FAIL:", f)
    print(f"stats_vs_numpy: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
