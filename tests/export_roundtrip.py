"""export: every dtype to .npy read back equal by NumPy (also from big-endian and Fortran
order), a selection to .safetensors read back equal (parsed here by hand), an expression's
result equal to NumPy's, a dequantized GGUF tensor equal to the tool's own printed values,
an existing output refused without --force, an input never written.

Run: python3 tests/export_roundtrip.py build/tensor-inspect
"""
import ctypes, json, os, shutil, struct, subprocess, sys, tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
tmp = tempfile.mkdtemp(prefix="ti-export-")
def path(n): return os.path.join(tmp, n)


def run(args):
  p = subprocess.run([BIN] + args, capture_output=True, text=True)
  return p.returncode, p.stdout, p.stderr


def same_bits(a, b):
  return a.dtype == b.dtype and a.shape == b.shape and a.tobytes(order="C") == b.tobytes(order="C")


rng = np.random.default_rng(26)
arrays = {
    "bool": rng.random((3, 4)) > 0.5,
    "int8": rng.integers(-128, 128, (5,), dtype=np.int8),
    "uint8": rng.integers(0, 256, (2, 3), dtype=np.uint8),
    "int16": rng.integers(-2**15, 2**15, (4, 2), dtype=np.int16),
    "uint16": rng.integers(0, 2**16, (3,), dtype=np.uint16),
    "int32": rng.integers(-2**31, 2**31, (2, 2, 2), dtype=np.int32),
    "uint32": rng.integers(0, 2**32, (7,), dtype=np.uint32),
    "int64": np.array([[-2**63, 2**62], [1, -1]], np.int64),
    "uint64": np.array([2**64 - 1, 0, 12345], np.uint64),
    "float16": np.array([1.5, -0.0, np.inf, 65504], np.float16),
    "float32": np.array([[np.nan, -0.0, 1e-45], [3.4e38, -1.0, 0.1]], np.float32),
    "float64": rng.standard_normal((3, 3)),
    "0-d": np.array(7.25, np.float32),
    "empty": np.zeros((0, 3), np.int16)
}
for name, a in arrays.items():
  variants = {"": a, " big-endian": a.astype(a.dtype.newbyteorder(">")), " Fortran order": np.asfortranarray(a)}
  for how, v in variants.items():
    np.save(path("in.npy"), v)
    if os.path.exists(path("out.npy")): os.remove(path("out.npy"))
    rc, out, err = run(["export", path("in.npy"), "-o", path("out.npy")])
    try:
      back = np.load(path("out.npy"))
      ok = rc == 0 and same_bits(back, v.astype(v.dtype.newbyteorder("<")))
    except Exception as e:  # noqa: BLE001 - a failed check
      ok, back = False, e
    tally.check(f"{name}{how} {a.shape} to .npy: NumPy reads back the same bits", ok, f"{rc} {err!r} {back!r}")


def write_safetensors(p, tensors):
  header, data = {}, b""
  for n, (tag, raw, shape) in tensors.items():
    header[n] = {"dtype": tag, "shape": list(shape), "data_offsets": [len(data), len(data) + len(raw)]}
    data += raw
  h = json.dumps(header).encode()
  with open(p, "wb") as f: f.write(struct.pack("<Q", len(h)) + h + data)


def read_safetensors(p):
  with open(p, "rb") as f: b = f.read()
  n = struct.unpack("<Q", b[:8])[0]
  h = json.loads(b[8:8 + n])
  return h.pop("__metadata__", None), {
      k: (v["dtype"], b[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]], tuple(v["shape"]))
      for k, v in h.items()
  }


bf = (rng.standard_normal(6).astype(np.float32).view(np.uint32) >> 16).astype("<u2").tobytes()
src = {"layers.0.w": ("F32", rng.standard_normal((2, 3)).astype("<f4").tobytes(), (2, 3)),
       "layers.0.b": ("BF16", bf, (6,)), "layers.1.w": ("I64", np.arange(4, dtype="<i8").tobytes(), (2, 2)),
       "other": ("F16", np.ones(3, "<f2").tobytes(), (3,))}
write_safetensors(path("src.safetensors"), src)
rc, out, err = run(["export", path("src.safetensors"), "--name", "layers.*", "-o", path("sel.safetensors")])
meta, got = read_safetensors(path("sel.safetensors")) if rc == 0 else (None, {})
tally.check("--name 'layers.*' to .safetensors: the three tensors, bytes, tags and shapes as written (BF16 too)",
            got == {k: v for k, v in src.items() if k.startswith("layers.")}, f"{rc} {err!r} {sorted(got)}")
tally.check("... with a __metadata__ "
            "naming the source", meta is not None and meta.get("source") == path("src.safetensors"), repr(meta))

a = rng.standard_normal((4, 6)).astype(np.float32)
np.save(path("a.npy"), a)
rc, out, err = run(["export", path("a.npy"), "-e", "x[1:, ::2] * 2", "-o", path("expr.npy")])
tally.check("-e 'x[1:, ::2] * 2': "
            "NumPy's a[1:, ::2] * 2", rc == 0 and same_bits(np.load(path("expr.npy")), a[1:, ::2] * np.float32(2)), err)
rc, out, err = run(
    ["export", path("src.safetensors"), "--name", "layers.0.b", "--dtype", "float32", "-o",
     path("bf.npy")])
want = (np.frombuffer(bf, "<u2").astype(np.uint32) << 16).view(np.float32)
tally.check("bfloat16 --dtype float32 to "
            ".npy: the values widened", rc == 0 and same_bits(np.load(path("bf.npy")), want), err)
# --dtype reads the one table of names every option reads (docs/inspect.md): short names, torch's, tags.
for i, name in enumerate(["f32", "torch.float32", "F32", "np.float32"]):
  rc, out, err = run(
      ["export", path("src.safetensors"), "--name", "layers.0.b", "--dtype", name, "-o",
       path(f"bf_{i}.npy")])
  tally.check(f"--dtype {name}: float32 "
              f"as with --dtype float32", rc == 0 and same_bits(np.load(path(f"bf_{i}.npy")), want), err)
rc, out, err = run(
    ["export", path("src.safetensors"), "--name", "layers.0.b", "--dtype", "bogus", "-o",
     path("bf_x.npy")])
tally.check(
    "--dtype bogus: exit 2 naming the option and listing the names, nothing written", rc == 2 and "--dtype" in err and
    "bogus" in err and "bfloat16" in err and not os.path.exists(path("bf_x.npy")), err)
rc, out, err = run(["export", path("src.safetensors"), "--name", "layers.0.b", "-o", path("bf2.npy")])
tally.check("bfloat16 to .npy without --dtype: exit 2 (NumPy has no bfloat16), nothing written",
            rc == 2 and not os.path.exists(path("bf2.npy")) and "bfloat16" in err, err)

rc, out, err = run(
    ["export", path("src.safetensors"), "--name", "layers.*", "--dtype", "float32", "-o",
     path("sel.npz")])
try:
  with np.load(path("sel.npz")) as z:
    got = {k: z[k] for k in z.files}
  want = {"layers.0.w": np.frombuffer(src["layers.0.w"][1], "<f4").reshape(2, 3),
          "layers.0.b": (np.frombuffer(bf, "<u2").astype(np.uint32) << 16).view(np.float32),
          "layers.1.w": np.arange(4, dtype=np.float32).reshape(2, 2)}
  ok = rc == 0 and sorted(got) == sorted(want) and all(same_bits(got[k], want[k]) for k in want)
  import zipfile
  with zipfile.ZipFile(path("sel.npz")) as z: ok = ok and z.testzip() is None  # every member's CRC-32
except Exception as e:  # noqa: BLE001
  ok, got = False, e
tally.check("--name 'layers.*' --dtype float32 to .npz: np.load reads each member equal, zipfile finds every CRC right",
            ok, f"{rc} {err!r} {got!r}"[:300])

quants = os.path.join(ROOT, "samples", "quants.gguf")
for name in ["q4_0", "q4_k", "q8_0"]:
  rc, out, err = run(["export", quants, "--name", name, "-o", path(f"{name}.npy")])
  shown = json.loads(subprocess.run([BIN, quants, "--name", name, "--json"], capture_output=True, text=True).stdout)
  try:
    back = np.load(path(f"{name}.npy"))
    ok = rc == 0 and back.dtype == np.float32 and back.tolist() == shown["tolist"] and list(
        back.shape) == shown["shape"]
  except Exception as e:  # noqa: BLE001
    ok, back = False, e
  tally.check(f"GGUF {name} to .npy: float32, equal to "
              f"the tool's own printed (dequantized) values", ok, f"{rc} {err!r}")

with open(path("exists.npy"), "wb") as f: f.write(b"keep")
rc, out, err = run(["export", path("a.npy"), "-o", path("exists.npy")])
with open(path("exists.npy"), "rb") as f: kept = f.read()
tally.check("an existing output: exit 2 naming "
            "--force, the file untouched", rc == 2 and "--force" in err and kept == b"keep", err)
rc, out, err = run(["export", path("a.npy"), "-o", path("exists.npy"), "--force"])
tally.check("... replaced with --force", rc == 0 and same_bits(np.load(path("exists.npy")), a), err)
rc, out, err = run(["export", path("a.npy"), "-o", path("a.npy"), "--force"])
tally.check("the input as output, even with "
            "--force: exit 2, the input untouched", rc == 2 and same_bits(np.load(path("a.npy")), a), err)
rc, out, err = run(["export", path("src.safetensors"), "--all", "-o", path("two.npy")])
tally.check("several tensors to .npy: exit 2, nothing written", rc == 2 and not os.path.exists(path("two.npy")), err)
# A float -> int cast is Python's int() wrapped to the dtype, as tinygrad's DEV=PYTHON casts (the
# expected values computed by ctypes here); a nan cannot be converted: exit 2 naming the input, nothing written.
np.save(path("wide.npy"), np.array([1e10, -3e9, 300.7, -1.9], np.float64))
rc, out, err = run(["export", path("wide.npy"), "--dtype", "int32", "-o", path("wide_i32.npy")])
want = [ctypes.c_int32(int(v)).value for v in (1e10, -3e9, 300.7, -1.9)]
got = np.load(path("wide_i32.npy")).tolist() if rc == 0 else None
tally.check("--dtype int32 of out-of-range floats: Python's int() wrapped by ctypes", got == want,
            f"{got} {want} {err}")
np.save(path("nan.npy"), np.array([1.0, np.nan], np.float32))
rc, out, err = run(["export", path("nan.npy"), "--dtype", "int32", "-o", path("nan_i32.npy")])
tally.check("--dtype int32 of a nan: exit 2 naming the input and int(), nothing written", rc == 2 and
            path("nan.npy") in err and "cannot convert float NaN to integer" in err and
            not os.path.exists(path("nan_i32.npy")), f"rc={rc} {err}")
leftovers = [n for n in os.listdir(tmp) if ".tmp-" in n]
tally.check("no temporary file is left behind", not leftovers, repr(leftovers))

shutil.rmtree(tmp)
sys.exit(tally.summary())
