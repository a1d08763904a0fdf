#!/usr/bin/python3
"""Files a run reads besides the one it is named (an ONNX model's external data, a shard of a
model folder, a scheme's config.json) are never replaced by an output of the same run:
`--plot` and `export -o` naming one exit 2 with one line naming it, and the file keeps its
bytes, so the model still reads back the values onnx and NumPy give. An output beside them
is written as before.

    /usr/bin/python3 tests/side_inputs_unwritten.py path/to/tensor-inspect
"""
import hashlib, json, os, struct, subprocess, sys, tempfile

import numpy as np
import onnx  # python3-onnx: scripts/setup.sh installs it with the test packages
from onnx import helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally

BIN = os.path.abspath(sys.argv[1])
tmp = tempfile.mkdtemp(prefix="ti-side-")


def run(*args):
  p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120)
  return p.returncode, p.stdout, p.stderr


def digest(path):
  with open(path, "rb") as f: return hashlib.sha256(f.read()).hexdigest()


def refused(label, target, *args):
  before = digest(target)
  rc, out, err = run(*args)
  tally.check(f"{label}: exit 2, one line naming {os.path.basename(target)} as an input, the file unchanged",
              rc == 2 and err.count("\n") == 1 and target in err and "is an input" in err
              and digest(target) == before, f"rc={rc} {out[-200:]!r} {err!r}")


# ONNX: the external data file, given a name a picture or an export could have.
d = os.path.join(tmp, "onnx")
os.makedirs(d)
w = np.arange(10, dtype=np.float32)
model = helper.make_model(helper.make_graph([], "g", [], [], initializer=[numpy_helper.from_array(w, "w")]))
onnx_path = os.path.join(d, "m.onnx")
onnx.save_model(model, onnx_path, save_as_external_data=True, location="w.png", size_threshold=0)
ext = os.path.join(d, "w.png")
refused("--plot over the model's external data", ext, onnx_path, "--plot", ext)
refused("--plot-kind heatmap over it", ext, onnx_path, "--name", "w", "-e", "x.reshape(2, 5)", "--plot", ext,
        "--plot-kind", "heatmap")
refused("export -o over it (--force)", ext, "export", onnx_path, "--all", "-o", ext, "--format", "npz", "--force")
rc, out, err = run(onnx_path, "--name", "w", "--json")
got = json.loads(out)["tolist"] if rc == 0 else None
want = numpy_helper.to_array(onnx.load(onnx_path).graph.initializer[0]).tolist()
tally.check("the model still reads onnx's values", got == want, f"rc={rc} {got} {want} {err[:200]}")
beside = os.path.join(d, "h.png")
rc, out, err = run(onnx_path, "--plot", beside)
tally.check("--plot beside it: written", rc == 0 and open(beside, "rb").read(8) == b"\x89PNG\r\n\x1a\n",
            f"rc={rc} {err}")


def safetensors(path, name, a):
  raw = np.ascontiguousarray(a, dtype="<f4").tobytes()
  h = json.dumps({name: {"dtype": "F32", "shape": list(a.shape), "data_offsets": [0, len(raw)]}}).encode()
  with open(path, "wb") as f: f.write(struct.pack("<Q", len(h)) + h + raw)


# A model folder: its shards, and its config.json (read for the architecture line).
folder = os.path.join(tmp, "hf")
os.makedirs(folder)
safetensors(os.path.join(folder, "model-00001-of-00002.safetensors"), "a", np.ones((2, 3)))
safetensors(os.path.join(folder, "shard-2.png"), "b", np.zeros((4,)))
with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
  json.dump({"metadata": {"total_size": 40}, "weight_map": {"a": "model-00001-of-00002.safetensors",
                                                           "b": "shard-2.png"}}, f)
shard = os.path.join(folder, "shard-2.png")
refused("--plot over a shard of the folder read", shard, folder, "--name", "a", "--stats", "--plot", shard)
refused("export -o over a shard (--force)", shard, "export", folder, "--all", "-o", shard, "--format", "safetensors",
        "--force")
with open(os.path.join(folder, "config.json"), "w") as f:
  json.dump({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 3}, f)
config = os.path.join(folder, "config.json")
refused("export -o over the folder's config.json (--force)", config, "export", folder, "--all", "-o", config,
        "--format", "safetensors", "--force")

sys.exit(tally.summary())
