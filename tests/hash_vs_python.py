"""hash: one float32 array written by NumPy (.npy C order, Fortran order, big-endian, both;
.npz stored and deflated), by hand (safetensors, a PyTorch zip checkpoint, C-ordered and a
saved transpose) hashes alike, and equal to Python's hashlib.sha256 and to `xxhsum -H2`
(the xxhash reference) over the canonical bytes docs/hash.md defines; a one-ulp change hashes
otherwise; --check exits 0 on a copy (also re-sharded), 1 naming a changed, missing or added
tensor, 2 on trouble; the manifest validates against schemas/hash.schema.json.

Run: python3 tests/hash_vs_python.py build/tensor-inspect
"""
import hashlib, json, os, shutil, struct, subprocess, sys, tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally
from user_faults_common import BIN, ROOT, run, write_pt

XXHSUM = shutil.which("xxhsum")
tmp = tempfile.mkdtemp(prefix="ti-hash-")


def canonical(a, dtype_name):
  """The canonical stream of docs/hash.md: 'DTYPE SHAPE\\n', then C-order LE bytes."""
  le = np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<"))
  return f"{dtype_name} {tuple(a.shape)!r}\n".encode() + le.tobytes(order="C")


def xxh128(data):
  path = os.path.join(tmp, "canonical.bin")
  with open(path, "wb") as f: f.write(data)
  out = subprocess.run([XXHSUM, "-H2", path], capture_output=True, text=True, check=True).stdout
  return out.split()[0]


def safetensors(path, tensors):
  header, data = {}, b""
  for name, a in tensors.items():
    raw = np.ascontiguousarray(a, dtype="<f4").tobytes()
    header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [len(data), len(data) + len(raw)]}
    data += raw
  h = json.dumps(header).encode()
  with open(path, "wb") as f: f.write(struct.pack("<Q", len(h)) + h + data)


def hashes(args, env=None):
  """{name: hash} of `hash ARGS` text output; None when it failed."""
  p = subprocess.run([BIN, "hash"] + args, capture_output=True, text=True, env=env)
  if p.returncode != 0: return None
  return dict(reversed(line.split("  ", 1)) for line in p.stdout.splitlines())


rng = np.random.default_rng(26)
a = rng.standard_normal((3, 5)).astype(np.float32)
a[0, 1] = -0.0
files = {}
def path(name): return os.path.join(tmp, name)
np.save(path("c.npy"), a); files["c.npy"] = path("c.npy")
np.save(path("f.npy"), np.asfortranarray(a)); files["fortran.npy"] = path("f.npy")
np.save(path("be.npy"), a.astype(">f4")); files["big-endian.npy"] = path("be.npy")
np.save(path("fbe.npy"), np.asfortranarray(a.astype(">f4"))); files["fortran big-endian.npy"] = path("fbe.npy")
np.savez(path("s.npz"), w=a); files["stored .npz"] = path("s.npz")
np.savez_compressed(path("d.npz"), w=a); files["deflated .npz"] = path("d.npz")
safetensors(path("s.safetensors"), {"w": a}); files["safetensors"] = path("s.safetensors")
write_pt(path("c.pt"), {"w": ("FloatStorage", a.astype("<f4").tobytes(), a.size, [3, 5], [5, 1])})
files["PyTorch"] = path("c.pt")
write_pt(path("t.pt"), {"w": ("FloatStorage", a.T.astype("<f4").tobytes(), a.size, [3, 5], [1, 3])})
files["PyTorch saved transpose"] = path("t.pt")
assert np.asfortranarray(a).flags.f_contiguous and np.load(path("fbe.npy")).dtype.byteorder == ">"

want = {"xxh3-128": xxh128(canonical(a, "float32")) if XXHSUM else None,
        "sha256": hashlib.sha256(canonical(a, "float32")).hexdigest()}
tally.check("xxhsum (Debian package xxhash) is installed, for the XXH3-128 reference", XXHSUM is not None)
for algo in ["xxh3-128", "sha256"]:
  for what, f in files.items():
    got = hashes([f, "--algo", algo])
    got = list(got.values())[0] if got and len(got) == 1 else got
    tally.check(f"{algo} of a float32 (3, 5) in {what} equals Python's over the canonical bytes", got == want[algo],
                f"{got} != {want[algo]}")
got = hashes([files["c.npy"]])
tally.check("the default algorithm is XXH3-128; a lone .npy's tensor is shown under its path",
            got == {files["c.npy"]: want["xxh3-128"]}, repr(got))

# One ulp changes the hash; the changed array's own canonical hash is what the tool gives.
b = a.copy()
b[1, 2] = np.nextafter(b[1, 2], np.float32(np.inf))
np.save(path("ulp.npy"), b)
got = hashes([path("ulp.npy"), "--algo", "sha256"])
got = list(got.values())[0] if got else None
tally.check("one ulp changed: another hash, Python's over the changed bytes",
            got != want["sha256"] and got == hashlib.sha256(canonical(b, "float32")).hexdigest(), str(got))
# The same bytes under another shape or dtype are another tensor.
np.save(path("flat.npy"), a.reshape(15))
np.save(path("int.npy"), a.view(np.int32))
got = [list((hashes([path(n)]) or {"": None}).values())[0] for n in ["flat.npy", "int.npy"]]
tally.check("the same bytes as (15,) or as int32: other hashes, each Python's",
            got == [xxh128(canonical(a.reshape(15), "float32")), xxh128(canonical(a.view(np.int32), "int32"))] and
            want["xxh3-128"] not in got, repr(got))

# Other dtypes, all through the canonical rule (bool, float16, int64 big-endian, uint8 0-d).
cases = {"bool": np.array([[True, False, True]]), "float16": np.array([1.5, -0.0, 65504], np.float16),
         "int64": np.array([[1, -2**63], [2**40, 7]], ">i8"), "uint8": np.array(200, np.uint8),
         "float64": np.asfortranarray(np.arange(12, dtype=">f8").reshape(3, 4))}
for name, x in cases.items():
  np.save(path(f"{name}.npy"), x)
  got = hashes([path(f"{name}.npy"), "--algo", "sha256"])
  got = list(got.values())[0] if got else None
  tally.check(f"{name} {x.shape}: Python's sha256 over the canonical bytes",
              got == hashlib.sha256(canonical(x, name)).hexdigest(), str(got))

# A bool byte other than 0 and 1 is True (NumPy's view of the same bytes as bool_ says so, and
# tolist, --stats and diff read it so): hashed as 1, equal to a file storing [False, True, True],
# in place (safetensors) and walked by the executor (a transposed PyTorch view is not C order).
h = json.dumps({"m": {"dtype": "BOOL", "shape": [3], "data_offsets": [0, 3]}}).encode()
with open(path("bool2.safetensors"), "wb") as f: f.write(struct.pack("<Q", len(h)) + h + bytes([0, 1, 2]))
want_bool = hashlib.sha256(canonical(np.array([0, 1, 2], np.uint8).astype(np.bool_), "bool")).hexdigest()
got = hashes([path("bool2.safetensors"), "--algo", "sha256"])
tally.check("a BOOL stored as bytes 0, 1, 2 hashes as [False, True, True] (Python's sha256)",
            got is not None and list(got.values()) == [want_bool], str(got))
write_pt(path("bool2t.pt"), {"m": ("BoolStorage", bytes([0, 2, 1, 3]), 4, (2, 2), (1, 2))})
want_t = hashlib.sha256(canonical(np.array([[0, 2], [1, 3]], np.uint8).T.astype(np.bool_), "bool")).hexdigest()
got = hashes([path("bool2t.pt"), "--algo", "sha256"])
tally.check("a transposed BOOL view of bytes 0, 2, 1, 3 hashes as its True/False values",
            got is not None and list(got.values()) == [want_t], str(got))

# A tensor that cannot be hashed (complex64: no tinygrad dtype, and an .npz member's bytes are read
# through zip): exit 2, one line naming the input and the tensor, nothing on stdout.
np.savez(path("complex.npz"), a=np.ones(2), c=np.array([1 + 2j], np.complex64))
p = subprocess.run([BIN, "hash", path("c.npy"), path("complex.npz")], capture_output=True, text=True)
tally.check("an unhashable tensor: exit 2, one line naming its file and the tensor",
            p.returncode == 2 and not p.stdout and p.stderr.count("\n") == 1 and path("complex.npz") in p.stderr
            and "'c'" in p.stderr, (p.returncode, p.stdout[:200], p.stderr))

# A multi-tensor checkpoint: thread count changes nothing; a manifest checks a re-sharded copy.
v = rng.standard_normal((4, 2, 3)).astype(np.float32)
tensors = {"w": a, "v": v, "b": np.arange(7, dtype=np.float32)}
safetensors(path("m.safetensors"), tensors)
one = hashes([path("m.safetensors")], env=dict(os.environ, OMP_NUM_THREADS="1"))
two = hashes([path("m.safetensors")], env=dict(os.environ, OMP_NUM_THREADS="2"))
tally.check("a 3-tensor file: the same hashes on 1 and 2 threads, each Python's", one == two and one ==
            {n: xxh128(canonical(t, "float32")) for n, t in tensors.items()}, f"{one} {two}")
p = subprocess.run([BIN, "hash", path("m.safetensors"), "--json"], capture_output=True, text=True)
manifest = path("m.manifest.json")
with open(manifest, "w") as f: f.write(p.stdout)
try:
  import jsonschema
  with open(os.path.join(ROOT, "schemas", "hash.schema.json")) as f: schema = json.load(f)
  m = json.loads(p.stdout)
  jsonschema.validate(m, schema)
  tally.check("the manifest validates against schemas/hash.schema.json and lists each tensor", [
      (t["name"], t["dtype"], t["shape"], t["hash"]) for t in m["tensors"]
  ] == [(n, "float32", list(t.shape), one[n]) for n, t in tensors.items()] and m["algorithm"] == "xxh3-128", p.stdout)
except Exception as e:  # noqa: BLE001 - reported as a failed check
  tally.check("the manifest validates against schemas/hash.schema.json", False, repr(e))

shards = path("resharded")
os.mkdir(shards)
safetensors(os.path.join(shards, "model-00001-of-00002.safetensors"), {"b": tensors["b"], "w": a})
safetensors(os.path.join(shards, "model-00002-of-00002.safetensors"), {"v": v})
with open(os.path.join(shards, "model.safetensors.index.json"), "w") as f:
  json.dump(
      {
          "metadata": {},
          "weight_map": {
              "b": "model-00001-of-00002.safetensors",
              "w": "model-00001-of-00002.safetensors",
              "v": "model-00002-of-00002.safetensors"
          }
      }, f)
rc, out, err = run(["hash", "--check", manifest, shards])
tally.check("--check of a re-sharded folder (2 shards, other order): exit 0, each OK",
            rc == 0 and sorted(out.splitlines()[:3]) == ["b: OK", "v: OK", "w: OK"], f"{rc} {out!r} {err!r}")
rc, out, err = run(["hash", "--check", manifest, os.path.join(shards, "model-00001-of-00002.safetensors"),
                    os.path.join(shards, "model-00002-of-00002.safetensors")])
tally.check("--check of the shards given as two inputs: exit 0", rc == 0, f"{rc} {out!r} {err!r}")

v2 = v.copy()
v2[3, 1, 2] = np.nextafter(v2[3, 1, 2], np.float32(-np.inf))
safetensors(path("changed.safetensors"), {"w": a, "v": v2, "b": tensors["b"]})
rc, out, err = run(["hash", "--check", manifest, path("changed.safetensors")])
tally.check("--check, one ulp of v changed: exit 1 naming v FAILED, the others OK",
            rc == 1 and "v: FAILED" in out.splitlines() and "w: OK" in out.splitlines(), f"{rc} {out!r} {err!r}")
rc, out, err = run(["hash", "--check", manifest, path("changed.safetensors"), "--quiet"])
tally.check("--check --quiet: only the changed tensor and the count", rc == 1 and out.splitlines()[0] == "v: FAILED" and
            len(out.splitlines()) == 2, f"{rc} {out!r}")
safetensors(path("renamed.safetensors"), {"w": a, "u": v, "b": tensors["b"]})
rc, out, err = run(["hash", "--check", manifest, path("renamed.safetensors"), "--json"])
try:
  r = json.loads(out)
  with open(os.path.join(ROOT, "schemas", "hash_check.schema.json")) as f: jsonschema.validate(r, json.load(f))
  status = {t["name"]: t["status"] for t in r["tensors"]}
except Exception as e:  # noqa: BLE001
  status = repr(e)
tally.check("--check --json, v renamed u: exit 1, v missing, u added, w and b ok (schema'd)",
            rc == 1 and status == {"w": "ok", "v": "missing", "b": "ok", "u": "added"}, f"{rc} {status}")
rc, out, err = run(["hash", "--check", manifest, path("nonexistent.safetensors")])
tally.check("--check of an unreadable input: exit 2, nothing on stdout, one line",
            rc == 2 and not out and len(err.splitlines()) == 1, f"{rc} {out!r} {err!r}")
with open(path("bad.json"), "w") as f:
  f.write('{"kind": "hash", "schema_version": 1, '
          '"algorithm": "md5", "inputs": [], "tensors": []}')
rc, out, err = run(["hash", "--check", path("bad.json"), path("m.safetensors")])
tally.check("--check with a manifest of an unknown algorithm: exit 2 naming it",
            rc == 2 and not out and "algorithm" in err, f"{rc} {err!r}")
size = os.path.getsize(manifest)
rc, out, err = run(["hash", "--check", manifest, path("m.safetensors"), "--limit", f"manifest_bytes={size - 1}"])
tally.check("--check with a manifest one byte over its own cap manifest_bytes: exit 2 naming the cap and the size",
            rc == 2 and not out and "manifest_bytes" in err and str(size) in err, f"{rc} {err!r}")
rc, out, err = run(["hash", "--check", manifest, path("m.safetensors"), "--limit", "index_bytes=1"])
tally.check("... index_bytes does not bound a manifest: exit 0", rc == 0 and "index_bytes" not in err, f"{rc} {err!r}")
rc, out, err = run(["hash", "--check", path("m.safetensors"), path("m.safetensors")])
tally.check("--check with a tensor "
            "file as manifest: exit 2", rc == 2 and not out and len(err.splitlines()) == 1, f"{rc} {err!r}")
c_manifest = path("c.manifest.json")
with open(c_manifest, "w") as f:
  f.write(
      subprocess.run([BIN, "hash", files["safetensors"], "--json", "--algo", "sha256"], capture_output=True,
                     text=True).stdout)
rc, out, err = run(["hash", "--check", c_manifest, files["fortran big-endian.npy"]])
tally.check("--check a safetensors manifest (sha256) against the Fortran big-endian .npy: one tensor each, exit 0",
            rc == 0, f"{rc} {out!r} {err!r}")

# GGUF: a block-quantized tensor hashes its type name and its stored blocks.
listing = json.loads(subprocess.run([BIN, os.path.join(ROOT, "samples", "quants.gguf"), "--list", "--json"],
                                    capture_output=True, text=True).stdout)
got = hashes([os.path.join(ROOT, "samples", "quants.gguf"), "--algo", "sha256"]) or {}
with open(os.path.join(ROOT, "samples", "quants.gguf"), "rb") as f: blob = f.read()
checked = 0
for t in listing["tensors"]:
  quantized = t["stored_type"].startswith(("Q", "IQ", "TQ"))
  if not quantized and t["stored_type"] not in ("F32", "F16"): continue
  data = blob[t["offset"]:t["offset"] + t["nbytes"]]
  kind = t["stored_type"] if quantized else t["dtype"]
  expect = hashlib.sha256(f"{kind} {tuple(t['shape'])!r}\n".encode() + data).hexdigest()
  checked += tally.check(f"GGUF {t['name']} ({t['stored_type']}): sha256 of {kind}, its shape and its stored bytes",
                         got.get(t["name"]) == expect, f"{got.get(t['name'])} != {expect}")
tally.check("GGUF quantized tensors were checked", checked > 0, json.dumps(listing)[:300])

# PyTorch 1.13's own torch.save (samples/state_dict.pt): transposed, strided, broadcast (stride 0)
# and shared-storage views, each hashed as its values (torch.load's, in pt_expected.json).
import ast
with open(os.path.join(ROOT, "samples", "pt_expected.json")) as f: expected = json.load(f)["state_dict.pt"]
got = hashes([os.path.join(ROOT, "samples", "state_dict.pt"), "--algo", "sha256"]) or {}
for name, e in expected.items():
  x = np.array(ast.literal_eval(e["tolist"]), dtype=e["dtype"].replace("bool", "bool_")).reshape(e["shape"])
  tally.check(f"state_dict.pt '{name}' ({e['dtype']}, stride {e['stride']}): sha256 of torch.load's values",
              got.get(name) == hashlib.sha256(canonical(x, e["dtype"])).hexdigest(), str(got.get(name)))

# The count line says "1 tensor" for one, as validate's "1 file" (it said "1 tensors").
one_manifest = subprocess.run([BIN, "hash", "--json", path("c.npy")], capture_output=True, text=True)
with open(path("one.manifest.json"), "w") as f: f.write(one_manifest.stdout)
one_check = subprocess.run([BIN, "hash", "--check", path("one.manifest.json"),
                            path("c.npy")],
                           capture_output=True,
                           text=True)
tally.check("--check of one tensor: '1 tensor: 1 OK, ...'", one_check.returncode == 0 and
            one_check.stdout.splitlines()[-1:] == ["1 tensor: 1 OK, 0 changed, 0 missing, 0 added"],
            f"{one_check.returncode} {one_check.stdout!r} {one_check.stderr!r}")

# A remote copy (nginx, range requests): the same hashes, and --check against its URL.
if shutil.which("nginx") or os.path.exists("/usr/sbin/nginx"):
  from nginx_server import Nginx
  www = os.path.join(tmp, "www")
  os.makedirs(www)
  shutil.copy(path("m.safetensors"), os.path.join(www, "m.safetensors"))  # served as /files/m.safetensors
  nginx = Nginx(tmp, www)
  try:
    url = nginx.url("files", "m.safetensors")
    remote = hashes([url])
    tally.check("hash of an http:// copy: the local hashes", remote == one, f"{remote} {one}")
    rc, out, err = run(["hash", "--check", manifest, url])
    tally.check("--check against the http:// copy: exit 0", rc == 0, f"{rc} {out!r} {err!r}")
  finally:
    nginx.stop()

shutil.rmtree(tmp)
sys.exit(tally.summary())
