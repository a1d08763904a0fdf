#!/usr/bin/python3
"""Writes the PyTorch and raw samples (run: /usr/bin/python3 samples/make_pt_samples.py).

Made with torch.save of Debian's python3-torch (PyTorch 1.13, zip format, pickle
protocol 2). pt_expected.json records what torch.load gives back for each tensor
(dtype, shape, stride, storage offset, tolist()) and the other values of the checkpoint.
"""
import argparse
import collections
import json
import os

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))

# A state_dict: one tensor per dtype, a transposed view, a strided slice, a broadcast
# (stride 0) view, and two tensors over one storage at different offsets.
base = torch.arange(6, dtype=torch.float32).reshape(2, 3)
shared = torch.arange(10, dtype=torch.int32)
state = collections.OrderedDict()
state["w32"] = torch.tensor([[0.1, -0.2, 0.3], [1.5, -2.25, 1e-3]], dtype=torch.float32)
state["w16"] = torch.tensor([0.1, 1.5, -2.0, 65504.0], dtype=torch.float16)
state["idx"] = torch.tensor([[1, -2], [2**40, -(2**63)]], dtype=torch.int64)
state["mask"] = torch.tensor([True, False, True])
state["transposed"] = base.t()
state["every_other"] = base[:, ::2]
state["broadcast"] = torch.tensor([7.0, 8.0]).expand(3, 2)
state["shared_a"] = shared[2:5]
state["shared_b"] = shared[5:9].view(2, 2)
torch.save(state, os.path.join(HERE, "state_dict.pt"))

# A training checkpoint: a nested state dict, an int, a float list and objects the
# loader must show by name without importing them.
model = collections.OrderedDict()
model["layer.weight"] = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)
model["layer.bias"] = torch.tensor([0.5, -0.5], dtype=torch.bfloat16)
checkpoint = {
    "model": model,
    "epoch": 3,
    "args": argparse.Namespace(lr=0.1, name="run"),
    "history": [1.0, 2.5],
    "layers": [torch.tensor([1, 2], dtype=torch.int8), torch.tensor([3], dtype=torch.uint8)],
}
torch.save(checkpoint, os.path.join(HERE, "checkpoint.pt"))


# The same state_dict with pickle protocol 4 (FRAME, SHORT_BINUNICODE, MEMOIZE,
# STACK_GLOBAL), and in the legacy pre-1.6 format (loaders/pytorch_legacy.cpp).
small = collections.OrderedDict(a=base.t(), b=torch.tensor([True, False]))
torch.save(small, os.path.join(HERE, "protocol4.pt"), pickle_protocol=4)
torch.save(small, os.path.join(HERE, "legacy.pt"), _use_new_zipfile_serialization=False)


def describe(t):
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "stride": list(t.stride()),
            "storage_offset": t.storage_offset(), "tolist": repr(t.tolist())}


expected = {"state_dict.pt": {}, "checkpoint.pt": {}}
loaded = torch.load(os.path.join(HERE, "state_dict.pt"))
for k, t in loaded.items():
    assert torch.equal(t, state[k]) and t.stride() == state[k].stride()
    expected["state_dict.pt"][k] = describe(t)
loaded = torch.load(os.path.join(HERE, "checkpoint.pt"))
for k, t in loaded["model"].items():
    expected["checkpoint.pt"]["model." + k] = describe(t)
for i, t in enumerate(loaded["layers"]):
    expected["checkpoint.pt"]["layers.%d" % i] = describe(t)
expected["protocol4.pt"] = {k: describe(t) for k, t in torch.load(os.path.join(HERE, "protocol4.pt")).items()}
with open(os.path.join(HERE, "pt_expected.json"), "w") as f:
    json.dump(expected, f, indent=1)
    f.write("\n")

# Raw bytes: float32 little-endian, and int16 big-endian after an 8-byte preamble.
np.array([1.0, -2.5, 3.25, 0.1], dtype="<f4").tofile(os.path.join(HERE, "raw_f32.bin"))
with open(os.path.join(HERE, "raw_be_i16.bin"), "wb") as f:
    f.write(b"PREAMBLE")
    f.write(np.array([1, -2, 258, -32768, 32767, 0], dtype=">i2").tobytes())
print("wrote state_dict.pt, checkpoint.pt, protocol4.pt, legacy.pt, pt_expected.json, raw_f32.bin, raw_be_i16.bin")
