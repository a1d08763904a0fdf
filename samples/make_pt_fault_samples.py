#!/usr/bin/python3
"""Writes the PyTorch samples of issue 9's faults 8 and 18 (run: /usr/bin/python3 samples/make_pt_fault_samples.py).

Made with torch.save of Debian's python3-torch (PyTorch 1.13, zip format, pickle protocol 2):
  dotted_names.pt  {"a.b": t1, "a": {"b": t2}}: two tensors whose dotted names collide (fault 8)
  whole_model.pt   torch.save(model) of a whole nn.Module, not its state_dict (fault 18): a
                   Sequential of Linear and BatchNorm1d, with a non-persistent buffer that
                   state_dict leaves out
pt_fault_expected.json records, per file, the tensors torch.load gives back, keyed by the
name tensor-inspect lists them under, with dtype, shape and tolist(); for whole_model.pt
the names are model.state_dict()'s keys, in its order.
"""
import json
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))


def describe(t):
    return {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape), "tolist": repr(t.tolist())}


torch.manual_seed(0)
dotted = {"a.b": torch.tensor([1.5, -2.0]), "a": {"b": torch.tensor([3, 4, 5], dtype=torch.int32)}}
torch.save(dotted, os.path.join(HERE, "dotted_names.pt"))

model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3))
model[0].register_buffer("scratch", torch.zeros(2), persistent=False)
with torch.no_grad():
    model[0].weight.copy_(torch.tensor([[0.5, -1.0], [2.0, 0.25], [-0.125, 4.0]]))
    model[0].bias.copy_(torch.tensor([1.0, 2.0, 3.0]))
    model[1].running_mean.copy_(torch.tensor([0.1, 0.2, 0.3]))
torch.save(model, os.path.join(HERE, "whole_model.pt"))

loaded = torch.load(os.path.join(HERE, "dotted_names.pt"))
expected = {
    "dotted_names.pt": {"['a.b']": describe(loaded["a.b"]), "['a']['b']": describe(loaded["a"]["b"])},
    "whole_model.pt": {k: describe(v) for k, v in torch.load(os.path.join(HERE, "whole_model.pt")).state_dict().items()},
}
with open(os.path.join(HERE, "pt_fault_expected.json"), "w") as f:
    json.dump(expected, f, indent=1)
    f.write("\n")
print("wrote dotted_names.pt, whole_model.pt, pt_fault_expected.json")
