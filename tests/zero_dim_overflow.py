"""A shape with a zero dimension whose other dimensions multiply past int64, such as
(0, 2**62, 2**62): NumPy refuses to make it ("array is too big"), and so does the tool in every
format that states a shape (.npy, safetensors, GGUF), with one line and exit 2, and validate
with an error (exit 1) — where it once overflowed computing the strides (found by fuzz_validate
on a GGUF file). A zero dimension beside small ones still opens as an empty tensor.

Run: python3 tests/zero_dim_overflow.py build/tensor-inspect
"""
import json, os, shutil, struct, subprocess, sys, tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally

BIN = os.path.abspath(sys.argv[1])
tmp = tempfile.mkdtemp(prefix="ti-zero-dim-")
def path(n): return os.path.join(tmp, n)


def run(args):
  p = subprocess.run([BIN] + args, capture_output=True, text=True)
  return p.returncode, p.stdout, p.stderr


def gguf(p, dims):
  """GGUF v3 (ggml's docs/gguf.md): one F32 tensor 't' with `dims` (ne, fastest first), no metadata."""
  info = struct.pack("<Q", 1) + b"t" + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
  info += struct.pack("<IQ", 0, 0)  # GGML_TYPE_F32, offset 0
  head = b"GGUF" + struct.pack("<IQQ", 3, 1, 0) + info
  with open(p, "wb") as f: f.write(head + b"\0" * ((32 - len(head) % 32) % 32))


def safetensors(p, shape):
  h = json.dumps({"t": {"dtype": "F32", "shape": shape, "data_offsets": [0, 0]}}).encode()
  h += b" " * ((8 - len(h) % 8) % 8)
  with open(p, "wb") as f: f.write(struct.pack("<Q", len(h)) + h)


def npy(p, shape):
  header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % ", ".join(map(str, shape))
  header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
  with open(p, "wb") as f: f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())


big = [0, 2**62, 2**62]
try:
  np.empty(big, np.float32)
  numpy_refuses = False
except ValueError:
  numpy_refuses = True
tally.check("NumPy refuses np.empty((0, 2**62, 2**62)) (the reference)", numpy_refuses)

gguf(path("big.gguf"), [0, 0, 2**62, 2**62])
safetensors(path("big.safetensors"), big)
npy(path("big.npy"), big)
for name in ["big.gguf", "big.safetensors", "big.npy"]:
  rc, out, err = run([path(name)])
  tally.check(f"{name}: exit 2, one line saying the size overflows, nothing on stdout", rc == 2 and out == "" and
              len(err.splitlines()) == 1 and ("overflow" in err or "too large" in err), f"{rc} {err!r}")
  rc, out, err = run(["validate", path(name)])
  tally.check(f"validate {name}: an error (exit 1)", rc == 1 and "error" in out, f"{rc} {out!r} {err!r}")

gguf(path("empty.gguf"), [3, 0, 5])
safetensors(path("empty.safetensors"), [5, 0, 3])
npy(path("empty.npy"), [5, 0, 3])
for name in ["empty.gguf", "empty.safetensors", "empty.npy"]:
  rc, out, err = run([path(name), "--list", "--json"])
  shapes = [t.get("shape") for t in json.loads(out)["tensors"]] if rc == 0 else []
  rc2, out2, err2 = run([path(name), "--json"])
  doc = json.loads(out2) if rc2 == 0 else {}
  # Tensor.data() of an empty tensor is a flat memoryview of no element (tinygrad's tensor.py).
  tally.check(f"{name}: a zero dimension beside small ones opens: listed (5, 0, 3), its data empty",
              rc == 0 and shapes == [[5, 0, 3]] and rc2 == 0 and doc.get("tolist") == [] and doc.get("nbytes") == 0,
              f"{rc} {err!r} {shapes} {rc2} {err2!r}")

shutil.rmtree(tmp)
sys.exit(tally.summary())
