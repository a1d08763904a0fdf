"""export read back by torch (Debian's python3-torch 1.13, when it imports; skipped with a
message otherwise): a state dict saved by torch.save — every dtype .safetensors and .npy carry,
bfloat16 and a transposed (non-contiguous) tensor among them — exported to .safetensors and
read back with torch.frombuffer from a header parsed here by hand, and to .npy read back
through NumPy into torch; each equal, bit for bit, to the tensor torch saved.

Run: python3 tests/export_torch.py build/tensor-inspect
"""
import json, os, shutil, struct, subprocess, sys, tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally

try:
  import torch
except Exception as e:  # noqa: BLE001 - not a test dependency: the NumPy checks cover the formats
  print(f"skip: torch does not import ({e.__class__.__name__}: {e})")
  sys.exit(tally.summary())

BIN = os.path.abspath(sys.argv[1])
tmp = tempfile.mkdtemp(prefix="ti-export-torch-")
def path(n): return os.path.join(tmp, n)


def run(args):
  p = subprocess.run([BIN] + args, capture_output=True)
  return p.returncode, p.stdout, p.stderr.decode(errors="replace")


# The safetensors tags of torch's dtypes, from the format's own table (safetensors' Dtype enum).
TAGS = {torch.bool: "BOOL", torch.uint8: "U8", torch.int8: "I8", torch.int16: "I16", torch.int32: "I32",
        torch.int64: "I64", torch.float16: "F16", torch.bfloat16: "BF16", torch.float32: "F32", torch.float64: "F64"}
BITS = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def same_bits(a, b):
  """Equal dtype, shape and bits (NaN payloads and -0.0 too)."""
  if a.dtype != b.dtype or a.shape != b.shape: return False
  if a.dtype == torch.bool: return torch.equal(a, b)
  size = a.element_size()
  return torch.equal(a.contiguous().view(BITS[size]), b.contiguous().view(BITS[size]))


g = torch.Generator().manual_seed(26)
sd = {"f32": torch.randn(3, 5, generator=g), "bf16": torch.randn(4, 6, generator=g).to(torch.bfloat16),
      "f16": torch.tensor([1.5, -0.0, float("inf"), 65504.0], dtype=torch.float16),
      "f64": torch.randn(2, 2, generator=g, dtype=torch.float64), "i64": torch.tensor([[-2**63, 2**62], [1, -1]]),
      "i32": torch.randint(-2**31, 2**31 - 1, (7,), generator=g, dtype=torch.int32),
      "i16": torch.randint(-2**15, 2**15 - 1, (3, 1), generator=g, dtype=torch.int16),
      "i8": torch.randint(-128, 127, (5,), generator=g, dtype=torch.int8),
      "u8": torch.randint(0, 255, (2, 3), generator=g, dtype=torch.uint8), "bool": torch.rand(3, 4, generator=g) > 0.5,
      "nan": torch.tensor([float("nan"), -1e-45, 3.4e38]), "scalar": torch.tensor(7.25),
      "transposed": torch.arange(12, dtype=torch.float32).reshape(3, 4).t()}
torch.save(sd, path("sd.pt"))

rc, _, err = run(["export", path("sd.pt"), "--all", "-o", path("all.safetensors")])
got = {}
if rc == 0:
  with open(path("all.safetensors"), "rb") as f: b = f.read()
  n = struct.unpack("<Q", b[:8])[0]
  header = json.loads(b[8:8 + n])
  header.pop("__metadata__", None)
  by_tag = {v: k for k, v in TAGS.items()}
  for name, h in header.items():
    start, end = h["data_offsets"]
    raw = bytearray(b[8 + n + start:8 + n + end])
    t = torch.frombuffer(raw, dtype=by_tag[h["dtype"]]) if raw else torch.empty(0, dtype=by_tag[h["dtype"]])
    got[name] = t.reshape(h["shape"])
tally.check("torch.save state dict -> "
            ".safetensors: the same names", rc == 0 and sorted(got) == sorted(sd), f"{rc} {err} {sorted(got)}")
for name, want in sd.items():
  tally.check(f"... {name} {str(want.dtype)[6:]} {tuple(want.shape)}: torch.frombuffer reads back the bits torch saved",
              name in got and same_bits(got[name], want), repr(got.get(name))[:200])

for name, want in sd.items():
  if want.dtype == torch.bfloat16: continue  # NumPy has no bfloat16 (export refuses it to .npy: export_roundtrip)
  rc, _, err = run(["export", path("sd.pt"), "--name", name, "-o", path(f"{name}.npy")])
  try:
    back = torch.from_numpy(np.load(path(f"{name}.npy")))
    ok = rc == 0 and same_bits(back, want)
  except Exception as e:  # noqa: BLE001 - a failed check
    ok, back = False, e
  tally.check(f"{name} -> .npy: NumPy into torch gives the tensor torch saved", ok, f"{rc} {err} {back!r}"[:200])

rc, _, err = run(["export", path("sd.pt"), "--name", "bf16", "--dtype", "float32", "-o", path("bf16.npy")])
tally.check("bf16 --dtype float32 -> .npy: torch's own bfloat16 -> float32 widening",
            rc == 0 and same_bits(torch.from_numpy(np.load(path("bf16.npy"))), sd["bf16"].float()), err)

shutil.rmtree(tmp)
sys.exit(tally.summary())
