#!/usr/bin/python3
"""Writes the safetensors samples byte for byte from the format description
(huggingface/safetensors, "Format"), with NumPy for the tensor bytes and no safetensors
package:

  1. 8 bytes: N, the header length, unsigned little-endian,
  2. N bytes: a UTF-8 JSON object {name: {"dtype", "shape", "data_offsets": [begin, end]},
     "__metadata__": {str: str}}, padded with spaces (the reference writer pads to 8),
  3. the byte buffer; offsets are relative to its start and the tensors tile it.

Run from anywhere: /usr/bin/python3 samples/make_safetensors_samples.py
Makes samples/mixed.safetensors and samples/sharded/ (an index and two shards).
"""
import json
import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def bf16_bytes(values):
    """bfloat16 bytes of values exactly representable in bfloat16 (the top half of a float32)."""
    f = np.asarray(values, dtype="<f4")
    bits = f.view("<u4")
    assert np.all(bits & 0xFFFF == 0), "sample values must be exact in bfloat16"
    return (bits >> 16).astype("<u2").tobytes()


def write_safetensors(path, tensors, metadata=None, header_order=None):
    """tensors: list of (name, tag, shape, raw bytes) in data order."""
    header = {}
    offset = 0
    infos = {}
    for name, tag, shape, raw in tensors:
        infos[name] = {"dtype": tag, "shape": list(shape), "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
    if metadata is not None:
        header["__metadata__"] = metadata
    for name in header_order or [t[0] for t in tensors]:
        header[name] = infos[name]
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - (8 + len(text)) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, _, _, raw in tensors:
            f.write(raw)


def mixed():
    tensors = [
        ("weight", "F32", (2, 3), np.array([[1.5, -2.0, 0.25], [3.0, 4.0, -0.125]], "<f4").tobytes()),
        ("half", "F16", (4,), np.array([0.1, -1.0, 65504.0, 0.5], "<f2").tobytes()),
        ("bf16", "BF16", (2,), bf16_bytes([1.0, -3.5])),
        ("ids", "I64", (3,), np.array([-1, 0, 9007199254740993], "<i8").tobytes()),
        ("mask", "BOOL", (2, 2), np.array([[True, False], [False, True]], "?").tobytes()),
        ("scalar", "F32", (), np.array(7.0, "<f4").tobytes()),
        ("empty", "F32", (0, 3), b""),
    ]
    # The JSON lists the tensors alphabetically (as the reference writer does); the
    # listing must still follow the data order above.
    write_safetensors(os.path.join(HERE, "mixed.safetensors"), tensors,
                      metadata={"format": "pt", "source": "tensor-inspect samples"},
                      header_order=sorted(t[0] for t in tensors))


def sharded():
    d = os.path.join(HERE, "sharded")
    os.makedirs(d, exist_ok=True)
    shard1 = [
        ("embed.weight", "F32", (2, 2), np.array([[1, 2], [3, 4]], "<f4").tobytes()),
        ("layer.0.bias", "F16", (2,), np.array([0.5, -0.5], "<f2").tobytes()),
    ]
    shard2 = [
        ("layer.1.weight", "I32", (3,), np.array([7, -8, 9], "<i4").tobytes()),
        ("lm_head.weight", "F32", (1, 2), np.array([[0.25, -0.75]], "<f4").tobytes()),
    ]
    names = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
    write_safetensors(os.path.join(d, names[0]), shard1, metadata={"format": "pt"})
    write_safetensors(os.path.join(d, names[1]), shard2, metadata={"format": "pt"})
    total = sum(len(t[3]) for t in shard1 + shard2)
    weight_map = {t[0]: names[0] for t in shard1}
    weight_map.update({t[0]: names[1] for t in shard2})
    index = {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}
    with open(os.path.join(d, "model.safetensors.index.json"), "w") as f:
        json.dump(index, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    mixed()
    sharded()
