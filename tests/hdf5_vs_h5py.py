"""HDF5 files and Keras archives written by h5py itself (Debian's python3-h5py, over
libhdf5 1.10), against what h5py reads back: datasets in groups (named by their path
without the leading '/', in h5py's visit order), every dtype h5py writes that tinygrad
has (float16/32/64, int8..64, uint8..64, bool as h5py's enum of int8), big-endian ones,
contiguous, chunked with gzip and shuffle, compact and never-written datasets, scalar and
zero-size shapes; attributes and empty groups are no tensors; compound, string, null
(h5py.Empty) and LZF datasets are listed without a dtype and their values refused. A
.keras archive is built by hand as Keras 3 writes one (keras/src/saving/saving_lib.py:
zipfile with its default STORED method, metadata.json, config.json, then model.weights.h5
holding each layer's variables as <path>/vars/0, 1, ...). Checked: listing, values (text
and JSON), --stats, -e, diff, validate; damaged files exit 2 with one line naming the place.

Run: python3 tests/hdf5_vs_h5py.py build/tensor-inspect
"""
import io, json, math, os, shutil, subprocess, sys, tempfile, zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally
from json_values import py_value

try:
  import h5py  # python3-h5py: scripts/setup.sh installs it with the test packages
except ImportError:
  print("SKIP: h5py does not import (Debian python3-h5py)")
  sys.exit(0)
import numpy as np

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
tmp = tempfile.mkdtemp(prefix="ti-hdf5-")
rng = np.random.default_rng(24)


def run(args, timeout=180):
  p = subprocess.run([BIN] + args, capture_output=True, text=True, timeout=timeout)
  return p.returncode, p.stdout, p.stderr


DTYPE_NAMES = {
    "f2": "float16",
    "f4": "float32",
    "f8": "float64",
    "i1": "int8",
    "i2": "int16",
    "i4": "int32",
    "i8": "int64",
    "u1": "uint8",
    "u2": "uint16",
    "u4": "uint32",
    "u8": "uint64",
    "b1": "bool"
}


def h5py_datasets(path_or_file):
  """(name, numpy array or None, dtype str) of every dataset in h5py's visit order."""
  out = []
  with h5py.File(path_or_file, "r") as f:
    def visit(name, obj):
      if isinstance(obj, h5py.Dataset):
        shown = obj.dtype.kind in "fiub" and obj.shape is not None
        try:
          value = obj[()] if shown else None
        except OSError:  # a filter h5py has that libhdf5 alone lacks (LZF) still reads here
          value = None
        out.append((name, value, obj.dtype.str))
    f.visititems(visit)
  return out


def check_listing_and_values(label, path, want, shown_only=True):
  rc, out, err = run([path, "--list", "--json"])
  try:
    rows = json.loads(out)["tensors"]
    got = [(t["name"], t["dtype"], t["shape"]) for t in rows]
  except Exception as e:  # noqa: BLE001
    tally.check(f"{label}: --list --json", False, f"rc={rc} {e!r} {err[:300]}")
    return
  expect = [(n, DTYPE_NAMES.get(d[1:]) if v is not None else None,
             list(v.shape) if v is not None else got_shape(rows, n)) for n, v, d in want]
  tally.check(f"{label}: names, dtypes and shapes are h5py's ({len(want)} datasets)", rc == 0 and got == expect,
              f"rc={rc}\n got {got}\nwant {expect}\n{err[:300]}")
  shown = [(n, v) for n, v, _ in want if v is not None]
  bad = []
  for n, v in shown:
    rc, out, err = run([path, "--name", n, "--json", "--threshold", "100000000"])
    try:
      j = json.loads(out)
      # data() of an empty tensor is a zero-length view of shape (0,): tensor_shape is the dataset's
      if j["tolist"] != py_value(v.tolist()) or j.get("tensor_shape", j["shape"]) != list(v.shape):
        bad.append((n, j["tolist"] if v.size < 20 else "...", v.tolist() if v.size < 20 else "..."))
    except Exception as e:  # noqa: BLE001
      bad.append((n, rc, repr(e), err[:200]))
  tally.check(f"{label}: every value equals h5py's ({len(shown)} datasets, JSON)", not bad, f"{bad[:4]}")


def got_shape(rows, name):
  for t in rows:
    if t["name"] == name:
      return t["shape"]
  return None


def check_text(label, path, name, value):
  rc, out, err = run([path, "--name", name])
  want = repr(value.tolist())
  tally.check(f"{label}: '{name}' in text prints tolist() as Python does", rc == 0 and f"tolist: {want}" in out,
              f"rc={rc} want {want[:200]}\n{out[-300:]} {err[:200]}")


def one_line_error(label, args, *needles, code=2):
  rc, out, err = run(args)
  lines = err.strip().splitlines()
  ok = rc == code and out == "" and len(lines) == 1 and all(n in lines[0] for n in needles)
  tally.check(f"{label}: exit {code}, one line naming {', '.join(repr(n) for n in needles)}", ok,
              f"rc={rc} out={out[:200]!r} err={err[:400]!r}")


# ---- every dtype, groups, layouts ----
every = os.path.join(tmp, "every.h5")
values = {}
with h5py.File(every, "w") as f:
  for code in ("f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8"):
    info = np.finfo if code[0] == "f" else np.iinfo
    lo, hi = info(code).min, info(code).max
    a = (rng.standard_normal((3, 4)) * 100).astype(code) if code[0] == "f" else rng.integers(lo, hi, (3, 4), dtype=code,
                                                                                         endpoint=True)
    a.flat[0], a.flat[1] = lo, hi
    f.create_dataset(f"dtypes/le/{code}", data=a)
    f.create_dataset(f"dtypes/be/{code}", data=a.astype(">" + code))
  special = np.array([np.nan, np.inf, -np.inf, -0.0, 1e-45, 3.4028235e38], dtype="f4")
  f["dtypes/le/special"] = special
  f["dtypes/be/special"] = special.astype(">f4")
  f["dtypes/bool"] = np.array([[True, False, True], [False, False, True]])
  f["model/dense/kernel"] = rng.standard_normal((4, 3)).astype("f4")
  f["model/dense/bias"] = np.array([0.1, -0.2, 0.3], dtype="f4")
  f["model/dense/kernel"].attrs["units"] = 3  # attributes are no tensors
  f["model"].attrs["name"] = "model"
  f.create_group("empty/inner")  # empty groups are no tensors
  f["chunked/gzip_shuffle"] = np.zeros(1)  # replaced below
  del f["chunked/gzip_shuffle"]
  f.create_dataset("chunked/gzip_shuffle", data=rng.standard_normal((100, 37)).astype("f4"), chunks=(16, 8),
                   compression="gzip", compression_opts=6, shuffle=True)
  f.create_dataset("chunked/gzip_be_f2",
                   data=rng.standard_normal((33, 5)).astype(">f2"),
                   chunks=(10, 5),
                   compression="gzip")
  f.create_dataset("chunked/shuffle_i8",
                   data=np.arange(-50, 50, dtype="i8").reshape(4, 25),
                   chunks=(3, 7),
                   shuffle=True)
  f.create_dataset("chunked/bool", data=rng.integers(0, 2, 40).astype(bool), chunks=(16,), compression="gzip")
  f.create_dataset("unwritten/zeros", shape=(2, 3), dtype="i4")
  f.create_dataset("unwritten/fill", shape=(4,), dtype="f8", fillvalue=7.5)
  f.create_dataset("unwritten/chunked_fill", shape=(5,), dtype="i2", chunks=(2,), fillvalue=-3)
  f["shapes/scalar_f8"] = np.float64(2.5)
  f["shapes/scalar_i4"] = np.int32(-7)
  f["shapes/empty"] = np.zeros((0, 5), dtype="f4")
  f["shapes/rank5"] = np.arange(32, dtype="u1").reshape(2, 2, 2, 2, 2)
  f.create_dataset("enum_i1", data=np.array([0, 1, 1, 0], dtype="i1"),
                   dtype=h5py.enum_dtype({"RED": 0, "GREEN": 1}, basetype="i1"))
  # compact: the data inside the object header (h5py's low-level API)
  dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
  dcpl.set_layout(h5py.h5d.COMPACT)
  compact = np.array([1.5, -2.5, 3.25], dtype="f4")
  dsid = h5py.h5d.create(f.id, b"compact", h5py.h5t.IEEE_F32LE, h5py.h5s.create_simple((3,)), dcpl=dcpl)
  dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, compact)
  dsid.close()
want_every = h5py_datasets(every)
check_listing_and_values("every.h5", every, want_every)
with h5py.File(every) as f:
  check_text("every.h5", every, "model/dense/kernel", f["model/dense/kernel"][()])
  check_text("every.h5", every, "dtypes/be/f2", f["dtypes/be/f2"][()])
  check_text("every.h5", every, "chunked/shuffle_i8", f["chunked/shuffle_i8"][()])
  check_text("every.h5", every, "compact", f["compact"][()])
rc, out, err = run([every, "--list"])
tally.check("every.h5: --list names no group, attribute or empty group", rc == 0 and "empty/inner" not in out and
            "units" not in out and "\nmodel " not in out, out[-400:] + err[:200])

# listing reads metadata only: on a file whose chunked data is all corrupt, --list still works
rc, out, err = run([every, "--list", "--json"])
rows = {t["name"]: t for t in json.loads(out)["tensors"]}
with h5py.File(every) as f:
  off = f["model/dense/kernel"].id.get_offset()
tally.check("every.h5: a contiguous dataset's "
            "offset is h5py's get_offset()", rows["model/dense/kernel"]["offset"] == off,
            f"{rows['model/dense/kernel']} vs {off}")

# ---- --stats, -e, --fail-on against NumPy ----
with h5py.File(every) as f:
  g = f["chunked/gzip_shuffle"][()].astype(np.float64)
rc, out, err = run([every, "--name", "chunked/gzip_shuffle", "--stats", "--json"])
try:
  s = json.loads(out)
  ok = rc == 0 and math.isclose(s["mean"], g.mean(), rel_tol=1e-9) and s["min"] == g.min() and s["max"] == g.max() \
      and s["count"] == g.size
except Exception as e:  # noqa: BLE001
  ok, s = False, repr(e)
tally.check("chunked gzip+shuffle: --stats are NumPy's min, max, mean", ok, f"rc={rc} {s} {err[:200]}")
rc, out, err = run([every, "--name", "chunked/gzip_shuffle", "-e", "x[3:5, 6:9].sum()", "--json"])
try:
  got = json.loads(out)["tolist"]
  want = float(np.float32(g[3:5, 6:9].astype(np.float32).sum(dtype=np.float32)))
  ok = rc == 0 and math.isclose(got, want, rel_tol=1e-6)
except Exception as e:  # noqa: BLE001
  ok, got, want = False, repr(e), None
tally.check("chunked gzip+shuffle: -e 'x[3:5, 6:9].sum()' is NumPy's", ok, f"rc={rc} {got} {want} {err[:200]}")
rc, out, err = run([every, "--name", "dtypes/be/special", "--fail-on", "nan"])
tally.check("big-endian special values: --fail-on nan exits 1", rc == 1, f"rc={rc} {out[:200]} {err[:200]}")

# ---- a large chunked dataset: single elements are read one chunk at a time ----
big = os.path.join(tmp, "big.h5")
big_a = (np.arange(1100 * 4000, dtype=np.float32) % 1000.0).reshape(1100, 4000) * np.float32(0.5)
with h5py.File(big, "w") as f:
  f.create_dataset("big", data=big_a, chunks=(64, 256), compression="gzip", compression_opts=1, shuffle=True)
for idx in ((0, 0), (517, 2001), (1099, 3999)):
  rc, out, err = run([big, "-e", f"x[{idx[0]}, {idx[1]}]", "--json"])
  try:
    got = json.loads(out)["tolist"]
  except Exception:  # noqa: BLE001
    got = None
  tally.check(f"big chunked (17.6 MB): element {idx} equals h5py's", rc == 0 and got == float(big_a[idx]),
              f"rc={rc} {got} {big_a[idx]} {err[:200]}")
rc, out, err = run([big, "--stats", "--json"])
try:
  s = json.loads(out)
  ok = rc == 0 and math.isclose(s["mean"], big_a.astype(np.float64).mean(), rel_tol=1e-9)
except Exception as e:  # noqa: BLE001
  ok, s = False, repr(e)
tally.check("big chunked: --stats mean is NumPy's", ok, f"rc={rc} {str(s)[:200]} {err[:200]}")

# ---- datasets the tool lists but cannot show ----
odd = os.path.join(tmp, "odd.h5")
with h5py.File(odd, "w") as f:
  f["complex"] = np.array([1 + 2j, 3 - 4j], dtype="c8")
  f["text"] = "hello"
  f["null"] = h5py.Empty("f4")
  f.create_dataset("lzf", data=np.arange(10.0), compression="lzf")
  f["fine"] = np.arange(3, dtype="i2")
rc, out, err = run([odd, "--list", "--json"])
try:
  rows = {t["name"]: t for t in json.loads(out)["tensors"]}
  ok = rc == 0 and sorted(rows) == ["complex", "fine", "lzf", "null", "text"] and all(
      rows[n]["dtype"] is None for n in ("complex", "text", "null", "lzf")) and rows["fine"]["dtype"] == "int16"
except Exception as e:  # noqa: BLE001
  ok, rows = False, repr(e)
tally.check("odd.h5: compound, string, null and LZF "
            "datasets are listed without a dtype", ok, f"rc={rc} {rows} {err[:200]}")
one_line_error("odd.h5: values of a compound dataset", [odd, "--name", "complex"], "odd.h5", "complex", "compound")
one_line_error("odd.h5: values of an LZF dataset", [odd, "--name", "lzf"], "odd.h5", "'lzf'", "lzf filter")
one_line_error("odd.h5: values of a string dataset", [odd, "--name", "text"], "odd.h5", "'text'", "string")
rc, out, err = run(["validate", odd, "--json"])
try:
  findings = json.loads(out)["files"][0]["findings"]
  rules = sorted({x["rule"] for x in findings})
  ok = rc == 0 and rules == ["hdf5.unsupported"] and len(findings) == 4
except Exception as e:  # noqa: BLE001
  ok, findings = False, repr(e)
tally.check("validate odd.h5: four hdf5.unsupported notes, no error", ok, f"rc={rc} {findings} {err[:200]}")

# ---- diff and validate ----
copy = os.path.join(tmp, "changed.h5")
shutil.copy(every, copy)
with h5py.File(copy, "r+") as f:
  d = f["chunked/gzip_shuffle"]
  a = d[()]
  a[7, 7] += 1
  d[...] = a
rc, out, err = run(["diff", every, every])
tally.check("diff every.h5 every.h5: equal (exit 0)", rc == 0, f"rc={rc} {out[-300:]} {err[:300]}")
rc, out, err = run(["diff", every, copy])
tally.check("diff with one changed chunked value: exit 1 naming chunked/gzip_shuffle",
            rc == 1 and "chunked/gzip_shuffle" in out and "model/dense/kernel" not in out.split("differ")[0][:0] + "",
            f"rc={rc} {out[-400:]} {err[:300]}")
rc, out, err = run(["validate", every, "--json"])
try:
  findings = json.loads(out)["files"][0]["findings"]
except Exception as e:  # noqa: BLE001
  findings = repr(e)
tally.check("validate every.h5: clean", rc == 0 and findings == [], f"rc={rc} {findings} {err[:200]}")

# ---- Keras 3's .keras: a STORED zip of metadata.json, config.json, model.weights.h5 ----
def keras_weights():
  """model.weights.h5 as H5IOStore writes it: '<path>/vars/<i>' per saveable, in memory."""
  bio = io.BytesIO()
  layers = {"layers/dense": [rng.standard_normal((8, 4)).astype("f4"), np.zeros(4, "f4")],
            "layers/dense_1": [rng.standard_normal((4, 2)).astype("f4"), np.array([0.5, -0.5], "f4")],
            "optimizer": [np.int64(12), rng.standard_normal((8, 4)).astype("f4")]}
  with h5py.File(bio, "w") as f:
    f.create_group("vars")  # the model's own (empty) variables
    for path, variables in layers.items():
      g = f.create_group(path).create_group("vars")
      for i, v in enumerate(variables):
        g[str(i)] = v
  return bio.getvalue()


weights = keras_weights()
keras = os.path.join(tmp, "model.keras")
with zipfile.ZipFile(keras, "w") as zf:  # zipfile's default: STORED, as Keras writes it
  zf.writestr("metadata.json", json.dumps({"keras_version": "3.3.3", "date_saved": "2024-05-01@10:00:00"}))
  zf.writestr("config.json", json.dumps({"class_name": "Sequential", "config": {"name": "sequential"}}))
  zf.writestr("model.weights.h5", weights)
want_keras = h5py_datasets(io.BytesIO(weights))
check_listing_and_values("model.keras", keras, want_keras)
check_text("model.keras", keras, "layers/dense/vars/0", want_keras[0][1])
rc, out, err = run([keras, "--list", "--json"])
with zipfile.ZipFile(keras) as zf:
  info = zf.getinfo("model.weights.h5")
  member_at = info.header_offset + 30 + len(info.filename) + len(info.extra)
rows = json.loads(out)["tensors"] if rc == 0 else []
inside = all(member_at <= t["offset"] and t["offset"] + t["nbytes"] <= member_at + info.file_size for t in rows)
tally.check("model.keras: the weights are read in "
            "place, offsets inside the STORED member", rc == 0 and rows and inside and
            json.loads(out).get("format") in (None, "keras"), f"rc={rc} {member_at} {rows[:2]} {err[:200]}")
# the same weights as a plain .weights.h5 file: diff says equal
plain = os.path.join(tmp, "model.weights.h5")
with open(plain, "wb") as f:
  f.write(weights)
rc, out, err = run(["diff", keras, plain])
tally.check("diff model.keras model.weights.h5: equal (exit 0)", rc == 0, f"rc={rc} {out[-300:]} {err[:300]}")
rc, out, err = run(["validate", keras, "--json"])
try:
  findings = json.loads(out)["files"][0]["findings"]
except Exception as e:  # noqa: BLE001
  findings = repr(e)
tally.check("validate model.keras: clean", rc == 0 and findings == [], f"rc={rc} {findings} {err[:200]}")
deflated = os.path.join(tmp, "deflated.keras")
with zipfile.ZipFile(deflated, "w", compression=zipfile.ZIP_DEFLATED) as zf:
  zf.writestr("metadata.json", "{}")
  zf.writestr("config.json", "{}")
  zf.writestr("model.weights.h5", weights)
one_line_error("deflated .keras", [deflated, "--list"], "deflated.keras", "model.weights.h5", "DEFLATED", "STORED")
no_weights = os.path.join(tmp, "no_weights.keras")
with zipfile.ZipFile(no_weights, "w") as zf:
  zf.writestr("metadata.json", "{}")
  zf.writestr("config.json", "{}")
one_line_error("a .keras without model.weights.h5", [no_weights, "--list"], "no_weights.keras", "model.weights.h5")
rc, out, err = run(["validate", no_weights])
tally.check("validate: a .keras without "
            "weights is keras.layout", rc == 1 and "keras.layout" in out, f"rc={rc} {out} {err}")

# ---- damaged files: exit 2, one line naming the place ----
with open(every, "rb") as f:
  good = f.read()


def damaged(name, data):
  path = os.path.join(tmp, name)
  with open(path, "wb") as f:
    f.write(data)
  return path


one_line_error("truncated .h5", [damaged("truncated.h5", good[:len(good) // 2]), "--list"], "truncated.h5",
               "not a readable HDF5 file")
one_line_error("a .h5 whose superblock is zeros", [damaged("zeros.h5", b"\0" * 64 + good[64:]), "--list"], "zeros.h5")
# the gzip stream of one chunk overwritten: listing works (metadata only), reading names the dataset
with h5py.File(every) as f:
  d = f["chunked/gzip_shuffle"]
  chunk = d.id.get_chunk_info(3)
bad = bytearray(good)
bad[chunk.byte_offset + 2:chunk.byte_offset + chunk.size - 2] = b"\xa5" * (chunk.size - 4)
corrupt = damaged("corrupt_chunk.h5", bytes(bad))
rc, out, err = run([corrupt, "--list"])
tally.check("corrupt chunk: --list "
            "still works (metadata only)", rc == 0 and "chunked/gzip_shuffle" in out, f"rc={rc} {err}")
one_line_error("corrupt chunk: reading it", [corrupt, "--name", "chunked/gzip_shuffle"], "corrupt_chunk.h5",
               "dataset 'chunked/gzip_shuffle'", "libhdf5")
rc, out, err = run(["validate", corrupt, "--json"])
try:
  findings = json.loads(out)["files"][0]["findings"]
  ok = rc == 1 and [x["rule"] for x in findings] == ["hdf5.data"] and "gzip_shuffle" in findings[0]["place"]
except Exception as e:  # noqa: BLE001
  ok, findings = False, repr(e)
tally.check("validate corrupt chunk: one hdf5.data error naming the dataset", ok, f"rc={rc} {findings} {err[:200]}")
# a contiguous dataset's address moved past the end: the walk refuses it, naming the dataset and byte
with h5py.File(every) as f:
  off = f["model/dense/bias"].id.get_offset()
needle = off.to_bytes(8, "little")
count = good.count(needle)
if count == 1:
  moved = good.replace(needle, (len(good) + 4096).to_bytes(8, "little"))
  one_line_error("contiguous data past the end", [damaged("past_end.h5", moved), "--list"], "past_end.h5",
                 "dataset 'model/dense/bias'", "past the file's end")
else:
  tally.check("contiguous data past the end: the address is found once in the file", False, f"{count} times")

# a file on which Debian's libhdf5 1.10 reads out of bounds in H5T_copy under H5Dopen2 (found by
# fuzz_hdf5; SIGSEGV without ASan): its structures are walked in a child process first, so the
# run ends with one line, not a crash
crashing = os.path.join(ROOT, "fuzz", "regressions", "hdf5", "libhdf5_h5t_copy_heap_overflow")
one_line_error("a file that crashes libhdf5", [crashing, "--list"], "libhdf5_h5t_copy_heap_overflow",
               "not a readable HDF5 file")
rc, out, err = run(["validate", crashing])
tally.check("validate: a file that crashes libhdf5 is an error, not a crash", rc == 1 and "[hdf5." in out,
            f"rc={rc} {out[:300]} {err[:300]}")

shutil.rmtree(tmp)
sys.exit(tally.summary())
