#!/usr/bin/python3
"""Writes the ONNX samples (run: /usr/bin/python3 samples/make_onnx_samples.py).

Made with Debian's python3-onnx (onnx 1.12): onnx.helper and onnx.numpy_helper build the
graph, onnx.save_model writes it, as exporters do.
  model.onnx: initializers `conv.weight` float32 (2, 1, 2, 2) and `conv.bias` float16 (2,)
    in raw_data, `scale` bfloat16 (2,) and `steps` int64 (3,) in the typed fields
    (int32_data, int64_data), and a Constant node whose value is no weight.
  onnx_external/model.onnx + onnx_external/weights.bin: `embed.weight` float32 (8, 4) in
    external data (onnx.save_model(..., save_as_external_data=True)) and `tiny` int8 (3,) inline.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))

w = (np.arange(8, dtype=np.float32).reshape(2, 1, 2, 2) - 3.5) / 4
inits = [
    numpy_helper.from_array(w, "conv.weight"),
    numpy_helper.from_array(np.array([0.5, -1.25], dtype=np.float16), "conv.bias"),
    helper.make_tensor("scale", TensorProto.BFLOAT16, [2], [1.0, -0.5]),
    helper.make_tensor("steps", TensorProto.INT64, [3], [1, -2, 2**40]),
]
nodes = [
    helper.make_node("Conv", ["x", "conv.weight", "conv.bias"], ["y"]),
    helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(np.ones(2, np.float32), "c")),
]
graph = helper.make_graph(nodes, "sample", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 3, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 2, 2])], inits)
model = helper.make_model(graph, producer_name="tensor-inspect samples", opset_imports=[helper.make_opsetid("", 13)])
onnx.save_model(model, os.path.join(HERE, "model.onnx"))

ext = os.path.join(HERE, "onnx_external")
os.makedirs(ext, exist_ok=True)
embed = np.linspace(-1, 1, 32, dtype=np.float32).reshape(8, 4)
g = helper.make_graph([], "external", [], [], [numpy_helper.from_array(embed, "embed.weight"),
                                                numpy_helper.from_array(np.array([-3, 0, 3], np.int8), "tiny")])
onnx.save_model(helper.make_model(g, producer_name="tensor-inspect samples"), os.path.join(ext, "model.onnx"),
                save_as_external_data=True, location="weights.bin", size_threshold=64)
