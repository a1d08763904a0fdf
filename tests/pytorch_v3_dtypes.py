"""The dtypes PyTorch 2.x saves through torch._utils._rebuild_tensor_v3 over an UntypedStorage
(torch/storage.py's _new_dtypes: uint16, uint32, uint64, float8_e4m3fn, float8_e5m2, ...),
which torch 1.13 cannot write: each archive is made here as torch 2.x's torch.save lays it out
(torch/serialization.py, _save: "archive/data.pkl", "archive/data/<key>", "archive/byteorder",
"archive/version"), its pickle written opcode by opcode (protocol 2, as torch.save) and shown
by pickletools, which runs nothing: ('storage', torch.UntypedStorage, key, 'cpu', nbytes) as
the persistent id, then _rebuild_tensor_v3(storage, offset, size, stride, False,
OrderedDict(), torch.<dtype>). Values are checked against NumPy's reading of the same bytes
(uint16/32/64) and against the OCP float8 formulas (E4M3FN: bias 7, no infinity, S.1111.111 is
nan; E5M2: bias 15, IEEE-like), written out below.

Run: python3 tests/pytorch_v3_dtypes.py build/tensor-inspect
"""
import io, json, math, os, pickletools, struct, subprocess, sys, tempfile, zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally

import numpy as np

BIN = os.path.abspath(sys.argv[1])
tmp = tempfile.mkdtemp(prefix="ti-v3-")


def uni(s):
  b = s.encode()
  return b"X" + struct.pack("<I", len(b)) + b


def v3_pickle(tensors):
  """{name: (dtype name, shape, storage key, nbytes)} as torch 2.x pickles a dict of tensors."""
  out = b"\x80\x02}("
  for name, (dtype, shape, key, nbytes) in tensors.items():
    stride, acc = [], 1
    for d in reversed(shape):
      stride.insert(0, acc)
      acc *= d
    out += uni(name) + b"ctorch._utils\n_rebuild_tensor_v3\n("
    out += b"(" + uni("storage") + b"ctorch\nUntypedStorage\n" + uni(key) + uni("cpu")
    out += b"J" + struct.pack("<i", nbytes)
    out += b"tQ" + b"J\x00\x00\x00\x00"
    out += b"(" + b"".join(b"J" + struct.pack("<i", d) for d in shape) + b"t"
    out += b"(" + b"".join(b"J" + struct.pack("<i", s) for s in stride) + b"t"
    out += b"\x89ccollections\nOrderedDict\n)R" + b"ctorch\n" + dtype.encode() + b"\ntR"
  return out + b"u."


def write_archive(path, tensors, blobs):
  with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
    z.writestr("archive/data.pkl", v3_pickle(tensors))
    for key, raw in blobs.items():
      z.writestr(f"archive/data/{key}", raw)
    z.writestr("archive/byteorder", "little")
    z.writestr("archive/version", "3\n")


def e4m3fn(b):
  s, e, m = b >> 7, (b >> 3) & 15, b & 7
  if e == 15 and m == 7:
    return math.nan
  v = (m / 8) * 2.0**-6 if e == 0 else (1 + m / 8) * 2.0**(e - 7)
  return -v if s else v


def e5m2(b):
  s, e, m = b >> 7, (b >> 2) & 31, b & 3
  if e == 31:
    v = math.inf if m == 0 else math.nan
  else:
    v = (m / 4) * 2.0**-14 if e == 0 else (1 + m / 4) * 2.0**(e - 15)
  return -v if s and not math.isnan(v) else v


rng = np.random.default_rng(5)
u16 = rng.integers(0, 2**16, size=(3, 4), dtype=np.uint16)
u32 = np.array([0, 1, 2**31, 2**32 - 1], dtype=np.uint32)
u64 = np.array([0, 2**63, 2**64 - 1], dtype=np.uint64)
f8 = bytes(range(256))
tensors = {"u16": ("uint16", [3, 4], "0", u16.nbytes), "u32": ("uint32", [4], "1", u32.nbytes),
           "u64": ("uint64", [3], "2", u64.nbytes), "e4m3": ("float8_e4m3fn", [16, 16], "3", 256),
           "e5m2": ("float8_e5m2", [256], "4", 256)}
path = os.path.join(tmp, "v3.pt")
write_archive(path, tensors, {"0": u16.astype("<u2").tobytes(), "1": u32.astype("<u4").tobytes(),
                              "2": u64.astype("<u8").tobytes(), "3": f8, "4": f8})
text = io.StringIO()
pickletools.dis(v3_pickle(tensors), out=text)
tally.check("the hand-written pickle disassembles (pickletools) and calls _rebuild_tensor_v3 over UntypedStorage",
            "_rebuild_tensor_v3" in text.getvalue() and "UntypedStorage" in text.getvalue(), text.getvalue()[:500])


def same(a, b):
  return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


p = subprocess.run([BIN, path, "--list", "--json"], capture_output=True, text=True)
try:
  got = [(t["name"], t["dtype"], t["shape"]) for t in json.loads(p.stdout)["tensors"]]
except Exception as e:  # noqa: BLE001
  got = [repr(e), p.stderr[:300]]
want = [("u16", "uint16", [3, 4]), ("u32", "uint32", [4]), ("u64", "uint64", [3]), ("e4m3", "fp8e4m3", [16, 16]),
        ("e5m2", "fp8e5m2", [256])]
tally.check("names, dtypes and shapes of the v3 tensors", p.returncode == 0 and got == want, f"{got} {p.stderr[:300]}")
p = subprocess.run([BIN, path, "--all", "--json"], capture_output=True, text=True)
try:
  rows = {t["name"]: t["tolist"] for t in json.loads(p.stdout)["tensors"]}
except Exception as e:  # noqa: BLE001
  rows = {"error": repr(e) + p.stderr[:300]}
tally.check("uint16, uint32, uint64 values are NumPy's reading of the bytes",
            rows.get("u16") == u16.tolist() and rows.get("u32") == u32.tolist() and rows.get("u64") == u64.tolist(),
            str(rows)[:400])


def floats(v):
  return [float(x) for x in v]  # the JSON spells non-finite values "nan", "inf", "-inf"


e4 = [x for row in rows.get("e4m3", [[]]) for x in row]
tally.check("float8_e4m3fn: all 256 codes decode as the OCP formula",
            len(e4) == 256 and all(same(a, e4m3fn(b)) for a, b in zip(floats(e4), range(256))), str(e4[:20]))
e5 = rows.get("e5m2", [])
tally.check("float8_e5m2: all 256 codes decode as the OCP formula",
            len(e5) == 256 and all(same(a, e5m2(b)) for a, b in zip(floats(e5), range(256))), str(e5[:20]))

sys.exit(tally.summary())
