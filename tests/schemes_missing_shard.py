"""A quantization scheme's part in a shard of an index that cannot be read. Without a
config.json, the index still lists every tensor, the part's as unknown (as for any missing
shard): the parts stay as stored, exit 0. With a config.json naming the scheme the logical
tensor cannot be built: exit 2 with one line naming the part and its missing shard (it said
"dtype -, not F32 or BF16", the placeholder of an unknown dtype, before).

Run: python3 tests/schemes_missing_shard.py build/tensor-inspect
"""
import json, os, shutil, subprocess, sys, tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally
from quant_writers import write_config, write_safetensors

BIN = os.path.abspath(sys.argv[1])
tmp = tempfile.mkdtemp(prefix="ti-schemes-shard-")
model = os.path.join(tmp, "model")
os.mkdir(model)
write_safetensors(os.path.join(model, "model-00001-of-00002.safetensors"),
                  {"m.weight": ("F8_E4M3", (4, 4), np.zeros((4, 4), dtype=np.uint8).tobytes())})
with open(os.path.join(model, "model.safetensors.index.json"), "w") as f:
  json.dump(
      {
          "metadata": {
              "total_size": 20
          },
          "weight_map": {
              "m.weight": "model-00001-of-00002.safetensors",
              "m.weight_scale_inv": "model-00002-of-00002.safetensors"
          }
      }, f)


def run(args):
  p = subprocess.run([BIN] + args, capture_output=True, text=True, timeout=60)
  return p.returncode, p.stdout, p.stderr


rc, out, err = run([model, "--list", "--json"])
try:
  rows = {t["name"]: t for t in json.loads(out)["tensors"]}
  ok = rc == 0 and rows["m.weight"]["stored_type"] == "F8_E4M3" and rows["m.weight_scale_inv"]["shape"] is None
except Exception as e:  # noqa: BLE001
  ok, rows = False, repr(e)
tally.check("no config.json: the index lists both parts as stored, the missing shard's as unknown, exit 0", ok,
            f"rc={rc} {rows} {err[:300]}")

write_config(model, {"quant_method": "fp8", "weight_block_size": [128, 128]})
for mode in (["--list"], ["--name", "m.weight"]):
  rc, out, err = run([model] + mode)
  lines = err.strip().splitlines()
  tally.check(f"config.json names fp8 {' '.join(mode)}: exit 2, one line naming the part and its missing shard",
              rc == 2 and out == "" and len(lines) == 1 and "part 'm.weight_scale_inv'" in lines[0] and
              "missing shard model-00002-of-00002.safetensors" in lines[0] and "dtype -" not in lines[0],
              f"rc={rc} out={out[:200]!r} err={err[:400]!r}")

shutil.rmtree(tmp)
sys.exit(tally.summary())
