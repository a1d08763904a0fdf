"""Totals count bytes under the type that stores them. A safetensors F8_E8M0 or F4 tensor
(decoded to float32) and a quantization scheme's logical tensor (fp8 block codes and scales,
shown as float32) store no float32 bytes: `--list` totals (text and JSON `by_type`) and
whole-file `--stats` totals (`by_dtype`) must name their stored type, not say
"float32 261 B" for 261 bytes that hold no float32. The expected sizes are the bytes this
script writes (files made as the producers lay them out, tests/quant_writers.py).

Run: python3 tests/totals_stored_types.py build/tensor-inspect
"""
import json, os, shutil, subprocess, sys, tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally
from quant_writers import fp4_pack, fp8_block_quantize, write_config, write_safetensors

BIN = os.path.abspath(sys.argv[1])
tmp = tempfile.mkdtemp(prefix="ti-totals-types-")


def run(args):
  p = subprocess.run([BIN] + args, capture_output=True, text=True)
  return p.returncode, p.stdout, p.stderr


# One F8_E8M0 tensor of 256 codes (256 bytes), one F4 of 2x5 (5 bytes), one plain F32 of 3 (12 bytes).
mini = os.path.join(tmp, "mini.safetensors")
f4 = np.arange(10, dtype=np.uint8) % 16
write_safetensors(mini, {"e8": ("F8_E8M0", (256,), np.arange(256, dtype=np.uint8).tobytes()),
                         "f4": ("F4", (2, 5), fp4_pack(f4).tobytes()),
                         "w": ("F32", (3,), np.ones(3, dtype="<f4").tobytes())})
want = [{"type": "F8_E8M0", "tensors": 1, "parameters": 256, "nbytes": 256},
        {"type": "float32", "tensors": 1, "parameters": 3, "nbytes": 12},
        {"type": "F4", "tensors": 1, "parameters": 10, "nbytes": 5}]
rc, out, err = run([mini, "--list", "--json"])
got = json.loads(out)["totals"]["by_type"] if rc == 0 else err
tally.check("--list --json: F8_E8M0 and F4 count under their stored types, F32 under float32", got == want, str(got))
rc, out, err = run([mini, "--list"])
last = out.splitlines()[-1] if out else err
tally.check("--list text: the same totals", last == "269 parameters, 273 B: F8_E8M0 256 B "
            "(1 tensor), float32 12 B (1 tensor), "
            "F4 5 B (1 tensor)", last)
rc, out, err = run([mini, "--stats", "--json"])
got = json.loads(out)["totals"]["by_dtype"] if rc == 0 else err
key = lambda g: g["dtype"]  # noqa: E731  (statistics keep the groups in file order)
tally.check("--stats --json totals: the same groups",
            isinstance(got, list) and sorted(got, key=key) == sorted(
                [{"dtype": w["type"], "tensors": w["tensors"], "parameters": w["parameters"], "nbytes": w["nbytes"]}
                 for w in want], key=key), str(got))

# An fp8 block folder: 200x300 E4M3 codes (60000 bytes) and 2x3 float32 scales (24 bytes).
folder = os.path.join(tmp, "fp8")
os.mkdir(folder)
w = np.random.default_rng(0).standard_normal((200, 300)).astype(np.float32)
codes, scale, raw = fp8_block_quantize(w, (128, 128))
write_safetensors(os.path.join(folder, "model.safetensors"), {
    "m.weight": ("F8_E4M3", codes.shape, codes.tobytes()),
    "m.weight_scale_inv": ("F32", scale.shape, raw)
})
write_config(folder, {"quant_method": "fp8", "weight_block_size": [128, 128]})
rc, out, err = run([folder, "--list", "--json"])
try:
  listing = json.loads(out)
  t = listing["totals"]["by_type"]
  ok = t == [{"type": listing["tensors"][0]["stored_type"], "tensors": 1, "parameters": 60000, "nbytes": 60024}] and \
      t[0]["type"] != "float32"
except Exception as e:  # noqa: BLE001
  ok, t = False, repr(e) + err
tally.check("--list --json: an fp8 block weight counts under its scheme's stored type, not float32", ok, str(t))

shutil.rmtree(tmp)
sys.exit(tally.summary())
