"""PyTorch checkpoints as people publish them, written by torch itself (Debian's python3-torch,
1.13), against what torch.load gives: torch.save's zip format and its legacy format
(_use_new_zipfile_serialization=False: the pickled magic number, protocol version and
sys_info, the object, the storage keys, then each storage raw); a legacy file whose storage
is a slice of another (view_metadata, which PyTorch before 1.0 wrote and 1.13 still loads:
made here by hand, through pickle, to torch/serialization.py's _legacy_save layout); a whole
nn.Module; and Hugging Face .bin folders: pytorch_model.bin alone, sharded
pytorch_model-0000N-of-0000M.bin with pytorch_model.bin.index.json (weight_map as
save_pretrained writes it), opened as a folder and through the index, and a folder holding
safetensors beside .bin (the safetensors win, as in transformers, and -v says so).
Each is checked for names, dtypes, shapes and values (text and JSON), stats, diff, validate,
--fail-on; damaged copies exit 2 naming the byte, and validate names the rule.

Run: python3 tests/pytorch_bin_vs_torch.py build/tensor-inspect
"""
import collections, io, json, math, os, pickle, pickletools, shutil, struct, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally
from json_values import py_value

import torch  # python3-torch: scripts/setup.sh installs it with the test packages

BIN = os.path.abspath(sys.argv[1])
tmp = tempfile.mkdtemp(prefix="ti-pytorch-bin-")


def run(args, timeout=120):
  p = subprocess.run([BIN] + args, capture_output=True, text=True, timeout=timeout)
  return p.returncode, p.stdout, p.stderr


DTYPE_NAMES = {
    torch.float32: "float32",
    torch.float16: "float16",
    torch.bfloat16: "bfloat16",
    torch.float64: "float64",
    torch.int64: "int64",
    torch.int32: "int32",
    torch.int16: "int16",
    torch.int8: "int8",
    torch.uint8: "uint8",
    torch.bool: "bool"
}


def flatten(obj, prefix=""):
  """Dotted names as the tool flattens dicts, lists and tuples (integer keys in decimal)."""
  items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, (list, tuple)) else None
  if items is None:
    return [(prefix, obj)]
  out = []
  for k, v in items:
    out += flatten(v, f"{prefix}.{k}" if prefix else str(k))
  return out


def every_dtype_state():
  g = torch.Generator().manual_seed(24)
  base = torch.arange(24, dtype=torch.int32)
  sd = collections.OrderedDict()
  sd["f32"] = torch.randn(3, 4, generator=g)
  sd["f16"] = torch.randn(5, generator=g).half()
  sd["bf16"] = torch.randn(2, 3, generator=g).bfloat16()
  sd["f64"] = torch.tensor([1e300, -0.0, float("nan"), float("inf"), 1 / 3], dtype=torch.float64)
  sd["i64"] = torch.tensor([-2**63, 2**63 - 1, 0], dtype=torch.int64)
  sd["i16"] = torch.tensor([-32768, 7], dtype=torch.int16)
  sd["i8"] = torch.tensor([-128, 127], dtype=torch.int8)
  sd["u8"] = torch.tensor([0, 255], dtype=torch.uint8)
  sd["b"] = torch.tensor([True, False, True])
  sd["scalar"] = torch.tensor(2.5)
  sd["empty"] = torch.zeros(0, 5)
  sd["shared_a"] = base[2:8]                        # two views of one storage, at offsets 2 and 10
  sd["shared_b"] = base[10:22].view(3, 4)
  sd["transposed"] = torch.arange(6.0).reshape(2, 3).t()
  sd["every_other"] = torch.arange(12, dtype=torch.int16).reshape(3, 4)[:, ::2]
  sd["broadcast"] = torch.tensor([7.0, 8.0]).expand(3, 2)
  return sd


def expected_of(obj):
  return [(n, t) for n, t in flatten(obj) if isinstance(t, torch.Tensor)]


def check_values(label, path, expected, extra=()):
  """Listing (names, dtypes, shapes) and every tensor's values in JSON, as torch.load has them."""
  rc, out, err = run([path, "--list", "--json", *extra])
  try:
    listing = json.loads(out)
    got = [(t["name"], t["dtype"], t["shape"]) for t in listing["tensors"]]
  except Exception as e:  # noqa: BLE001
    tally.check(f"{label}: --list --json", False, f"rc={rc} {e!r} {err[:300]}")
    return None
  want = [(n, DTYPE_NAMES[t.dtype], list(t.shape)) for n, t in expected]
  tally.check(f"{label}: names, dtypes and shapes are torch.load's ({len(want)} tensors)", rc == 0 and got == want,
              f"rc={rc}\n got {got}\nwant {want}\n{err[:300]}")
  rc, out, err = run([path, "--all", "--json", *extra])
  try:
    rows = {t["name"]: t for t in json.loads(out)["tensors"]}
    bad = [
        n for n, t in expected
        if rows[n]["tolist"] != py_value(t.float().tolist() if t.dtype == torch.bfloat16 else t.tolist())
    ]
  except Exception as e:  # noqa: BLE001
    bad = [repr(e), err[:300]]
  tally.check(f"{label}: every value equals torch.load's (JSON)", rc == 0 and not bad, f"rc={rc} {bad[:5]}")
  return listing


def check_text(label, path, name, tensor):
  rc, out, err = run([path, "--name", name])
  want = repr(tensor.tolist())
  tally.check(f"{label}: '{name}' in text prints tolist() as Python does", rc == 0 and f"tolist: {want}" in out,
              f"rc={rc} want {want}\n{out[-300:]} {err[:200]}")


# ---- torch.save, both layouts, every dtype, shared storages, views, nested containers ----
sd = every_dtype_state()
nested = {"model": sd, "extra": {"list": [torch.tensor([1, 2]), (torch.tensor([3.5]), torch.tensor([[True]]))]},
          "epoch": 7, "name": "run"}
zip_pt = os.path.join(tmp, "zip.pt")
legacy_pt = os.path.join(tmp, "legacy.pt")
torch.save(nested, zip_pt)
torch.save(nested, legacy_pt, _use_new_zipfile_serialization=False)
with open(legacy_pt, "rb") as f:
  tally.check("torch 1.13 wrote the legacy layout (the magic number's pickle first)", f.read(4) == b"\x80\x02\x8a\x0a")
loaded = torch.load(legacy_pt)
want = expected_of(loaded)
for label, path in (("zip", zip_pt), ("legacy", legacy_pt)):
  listing = check_values(label, path, want)
  check_text(label, path, "model.f32", loaded["model"]["f32"])
  check_text(label, path, "model.every_other", loaded["model"]["every_other"])
# torch.save(..., pickle_protocol=N): the same layout, each pickle under PROTO N (and a FRAME for
# 4 and 5, CPython Lib/pickle.py); torch.load reads them all, so must the tool and validate.
for proto in (3, 4, 5):
  path = os.path.join(tmp, f"legacy_p{proto}.pt")
  torch.save(nested, path, _use_new_zipfile_serialization=False, pickle_protocol=proto)
  with open(path, "rb") as f:
    tally.check(f"torch 1.13 wrote protocol {proto} (PROTO {proto} first)", f.read(2) == bytes([0x80, proto]))
  check_values(f"legacy protocol {proto}", path, expected_of(torch.load(path)))
  rc, out, err = run(["validate", path])
  tally.check(f"validate legacy "
              f"protocol {proto}: clean", rc == 0 and "clean" in out, f"rc={rc} {out[:200]} {err[:200]}")
rc, out, err = run([legacy_pt, "--meta", "--json"])
tally.check("legacy: non-tensor values are "
            "metadata (epoch 7, name 'run')", rc == 0 and '"epoch"' in out and '"run"' in out,
            f"rc={rc} {out[:300]} {err[:200]}")

# stats against torch's own figures
rc, out, err = run([legacy_pt, "--name", "model.f32", "--stats", "--json"])
try:
  s = json.loads(out)
  t = loaded["model"]["f32"].double()
  ok = (rc == 0 and math.isclose(s["mean"], t.mean().item(), rel_tol=1e-12, abs_tol=1e-12) and
        s["min"] == t.min().item() and s["max"] == t.max().item() and s["count"] == t.numel())
except Exception as e:  # noqa: BLE001
  ok, s = False, repr(e)
tally.check("legacy: --stats of model.f32 are torch's min, max, mean", ok, f"rc={rc} {s} {err[:200]}")

# --fail-on: f64 holds nan and inf
rc, out, err = run([legacy_pt, "--name", "model.f64", "--fail-on", "nan"])
tally.check("legacy: --fail-on nan exits 1 on model.f64 (it holds a nan)", rc == 1, f"rc={rc} {out[:200]} {err[:200]}")

# diff: the two layouts hold the same values; a changed value is a difference
rc, out, err = run(["diff", zip_pt, legacy_pt])
tally.check("diff zip.pt legacy.pt: equal (exit 0)", rc == 0, f"rc={rc} {out[-300:]} {err[:300]}")
nested2 = {
    "model": collections.OrderedDict((k, v.clone()) for k, v in sd.items()),
    "extra": nested["extra"],
    "epoch": 7,
    "name": "run"
}
nested2["model"]["f32"][1, 2] += 1
legacy2 = os.path.join(tmp, "legacy2.pt")
torch.save(nested2, legacy2, _use_new_zipfile_serialization=False)
rc, out, err = run(["diff", legacy_pt, legacy2])
tally.check("diff legacy.pt with one changed value: exit 1 naming model.f32", rc == 1 and "model.f32" in out,
            f"rc={rc} {out[-300:]} {err[:300]}")

# validate: both layouts clean
for label, path in (("zip", zip_pt), ("legacy", legacy_pt)):
  rc, out, err = run(["validate", path, "--json"])
  try:
    findings = json.loads(out)["files"][0]["findings"]
  except Exception as e:  # noqa: BLE001
    findings = repr(e)
  tally.check(f"validate {label}.pt: clean", rc == 0 and findings == [], f"rc={rc} {findings} {err[:200]}")

# ---- a whole nn.Module in the legacy layout: the 'module' persistent ids name its classes ----
model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
with torch.no_grad():
  model[1].running_mean.copy_(torch.tensor([0.5, -1.5]))
module_pt = os.path.join(tmp, "module_legacy.pt")
torch.save(model, module_pt, _use_new_zipfile_serialization=False)
check_values("legacy nn.Module", module_pt, list(torch.load(module_pt).state_dict().items()))

# ---- a legacy storage view (view_metadata), written to _legacy_save's layout by hand ----
class _Storage:
  def __init__(self, key, numel, view):
    self.key, self.numel, self.view = key, numel, view


class _Tensor:
  def __init__(self, storage, offset, size, stride):
    self.args = (storage, offset, size, stride, False, collections.OrderedDict())

  def __reduce__(self):
    return (torch._utils._rebuild_tensor_v2, self.args)


class _Pickler(pickle.Pickler):
  def persistent_id(self, obj):
    if isinstance(obj, _Storage):
      return ("storage", torch.FloatStorage, obj.key, "cpu", obj.numel, obj.view)
    return None


root = torch.arange(10, dtype=torch.float32) * 1.5
obj = {"whole": _Tensor(_Storage("100", 10, None), 1, (3,), (2,)),
       "slice": _Tensor(_Storage("100", 10, ("101", 4, 5)), 1, (2, 2), (2, 1))}  # root[4:9], then [1:5] as 2x2
buf = io.BytesIO()
for head in (0x1950a86a20f9469cfc6c, 1001, {"protocol_version": 1001, "little_endian": True,
                                            "type_sizes": {"short": 2, "int": 4, "long": 8}}):
  pickle.dump(head, buf, protocol=2)
_Pickler(buf, protocol=2).dump(obj)
pickle.dump(["100"], buf, protocol=2)
buf.write(struct.pack("<q", 10) + root.numpy().tobytes())
view_pt = os.path.join(tmp, "view_legacy.pt")
with open(view_pt, "wb") as f:
  f.write(buf.getvalue())
check_values("legacy storage view (by hand)", view_pt, list(torch.load(view_pt).items()))

# ---- damaged legacy files: exit 2 naming the byte, validate exit 1 naming the rule ----
data = open(legacy_pt, "rb").read()
stream = io.BytesIO(data)
for _ in range(5):  # the five pickles, walked by CPython's pickletools up to each STOP
  for op, _arg, _pos in pickletools.genops(stream):
    if op.name == "STOP":
      break
keys_end = stream.tell()  # the first storage's 8-byte count


def damaged(name, content, rule):
  path = os.path.join(tmp, name)
  with open(path, "wb") as f:
    f.write(content)
  rc, out, err = run([path, "--all"])
  tally.check(f"damaged legacy ({name}): exit 2, one line naming the byte, nothing on stdout", rc == 2 and out == "" and
              "at byte" in err and err.count("\n") == 1, f"rc={rc} {out[:100]!r} {err[:300]!r}")
  rc, out, err = run(["validate", path, "--json"])
  try:
    rules = [x["rule"] for x in json.loads(out)["files"][0]["findings"]]
  except Exception as e:  # noqa: BLE001
    rules = repr(e)
  tally.check(f"validate damaged legacy "
              f"({name}): exit 1, rule {rule}", rc == 1 and rule in rules, f"rc={rc} {rules} {err[:200]}")


damaged("cut_in_object.pt", data[:200], "pytorch.pickle")
damaged("cut_in_storages.pt", data[:-3], "pytorch.truncated")
count_at = keys_end
bad_count = data[:count_at] + struct.pack("<q",
                                          struct.unpack("<q", data[count_at:count_at + 8])[0] + 1) + data[count_at + 8:]
damaged("wrong_count.pt", bad_count, "pytorch.storage_size")
damaged("bad_version.pt", data[:15] + data[15:].replace(b"M\xe9\x03", b"M\xea\x03", 1), "pytorch.protocol_version")
trailing = os.path.join(tmp, "trailing.pt")
with open(trailing, "wb") as f:
  f.write(data + b"\0\0\0")
rc, out, err = run(["validate", trailing, "--json"])
tally.check("validate legacy with 3 bytes after the last storage: a warning (torch.load ignores them), exit 0",
            rc == 0 and "pytorch.trailing" in out, f"rc={rc} {out[:300]} {err[:200]}")

# ---- Hugging Face .bin folders ----
state = collections.OrderedDict((k, v.contiguous().clone()) for k, v in sd.items())
names = list(state)
first, second = collections.OrderedDict((k, state[k]) for k in names[:8]), collections.OrderedDict(
    (k, state[k]) for k in names[8:])

single = os.path.join(tmp, "single")
os.mkdir(single)
torch.save(state, os.path.join(single, "pytorch_model.bin"))
with open(os.path.join(single, "config.json"), "w") as f:
  f.write("{}")
torch.save({"lr": 0.1}, os.path.join(single, "training_args.bin"))  # a Trainer's: no weights
listing = check_values("folder with pytorch_model.bin", single, list(state.items()))
tally.check("folder with pytorch_model.bin: format pytorch", listing is not None and listing["format"] == "pytorch")

sharded = os.path.join(tmp, "sharded")
os.mkdir(sharded)
shard_names = ["pytorch_model-00001-of-00002.bin", "pytorch_model-00002-of-00002.bin"]
torch.save(first, os.path.join(sharded, shard_names[0]))
torch.save(second, os.path.join(sharded, shard_names[1]),
           _use_new_zipfile_serialization=False)  # older shards exist too
weight_map = {k: shard_names[0] for k in first} | {k: shard_names[1] for k in second}
total = sum(t.numel() * t.element_size() for t in state.values())
index = os.path.join(sharded, "pytorch_model.bin.index.json")
with open(index, "w") as f:
  json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)
by_shard = list(first.items()) + list(second.items())
for label, path in (("sharded .bin folder", sharded), ("pytorch_model.bin.index.json", index)):
  listing = check_values(label, path, by_shard)
  ok = listing is not None and listing["format"] == "pytorch-index" and listing["warnings"] == []
  tally.check(f"{label}: format "
              f"pytorch-index, no warning", ok, f"{listing and (listing['format'], listing['warnings'])}")
  rc, out, err = run([path, "--list"])
  tally.check(f"{label}: the text listing shows no unknown dtype '-' and no safetensors advice", rc == 0 and
              " - " not in out and "safetensors_header_bytes" not in err, f"rc={rc} {out[:400]} {err[:300]}")
  rc, out, err = run(["validate", path, "--json"])
  try:
    findings = [x for f in json.loads(out)["files"] for x in f["findings"]]
  except Exception as e:  # noqa: BLE001
    findings = repr(e)
  tally.check(f"validate {label}: clean (shards checked "
              f"as torch.save files, total_size agrees)", rc == 0 and findings == [], f"rc={rc} {findings} {err[:300]}")
  try:
    formats = sorted({f["format"] for f in json.loads(out)["files"] if f["file"].endswith(".json")})
  except Exception as e:  # noqa: BLE001
    formats = repr(e)
  tally.check(f"validate {label}: the index is labelled pytorch-index, as its listing is", formats == ["pytorch-index"],
              f"{formats}")
rc, out, err = run(["diff", sharded, single])
tally.check("diff sharded .bin folder against "
            "pytorch_model.bin: equal (exit 0)", rc == 0, f"rc={rc} {out[-300:]} {err[:300]}")

# an index mapping a tensor to a shard that does not hold it: refused naming both
bad_index_dir = os.path.join(tmp, "bad_index")
shutil.copytree(sharded, bad_index_dir)
with open(os.path.join(bad_index_dir, "pytorch_model.bin.index.json"), "w") as f:
  json.dump({"weight_map": weight_map | {"f32": shard_names[1]}}, f)
rc, out, err = run([bad_index_dir, "--list"])
tally.check("an index mapping 'f32' to the "
            "wrong .bin shard: exit 2 naming it", rc == 2 and "'f32'" in err, f"rc={rc} {err[:300]}")
rc, out, err = run(["validate", bad_index_dir])
tally.check("validate that index: exit 1", rc == 1, f"rc={rc} {out[:300]} {err[:300]}")

# a damaged .bin shard: exit 2 when its tensors are read, the shard named
cut_dir = os.path.join(tmp, "cut_shard")
shutil.copytree(sharded, cut_dir)
path = os.path.join(cut_dir, shard_names[1])
content = open(path, "rb").read()
with open(path, "wb") as f:
  f.write(content[:len(content) // 2])
rc, out, err = run([cut_dir, "--name", names[-1]])
tally.check("a cut legacy shard: reading its tensor exits 2 naming the shard", rc == 2 and shard_names[1] in err,
            f"rc={rc} {out[:200]} {err[:300]}")

# safetensors beside .bin: the safetensors are read, and -v says so
both = os.path.join(tmp, "both")
shutil.copytree(single, both)
from quant_writers import write_safetensors  # noqa: E402
import numpy as np  # noqa: E402

write_safetensors(os.path.join(both, "model.safetensors"),
                  {"only_here": ("F32", (2,), np.array([1.0, 2.0], np.float32).tobytes())})
rc, out, err = run([both, "--list", "--json", "-v"])
try:
  got = [t["name"] for t in json.loads(out)["tensors"]]
except Exception as e:  # noqa: BLE001
  got = repr(e)
tally.check("a folder with model.safetensors and "
            "pytorch_model.bin reads the safetensors", rc == 0 and got == ["only_here"], f"rc={rc} {got} {err[:300]}")
tally.check("... and -v says the .bin "
            "weights were passed over", "pytorch_model.bin" in err and "safetensors" in err, err[:400])

# TorchScript (torch.jit.save): the scripted module's parameters, as torch.jit.load's state_dict().
jit_pt = os.path.join(tmp, "scripted.pt")
scripted = torch.jit.script(torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2)))
torch.jit.save(scripted, jit_pt)
state = torch.jit.load(jit_pt).state_dict()
check_values("TorchScript", jit_pt, list(state.items()))

# Sparse and quantized tensors: not read, and said so (a listing must not look complete without them).
for kind, value in (("sparse", torch.eye(3).to_sparse()),
                    ("quantized", torch.quantize_per_tensor(torch.tensor([1.0, 2.0]), 0.1, 10, torch.qint8))):
  path = os.path.join(tmp, f"{kind}.pt")
  torch.save({"t": value, "d": torch.ones(2)}, path)
  rc, out, err = run([path, "--list"])
  tally.check(f"a {kind} tensor: the listing warns that 't' is {kind} and not read", rc == 0 and "'t' is a" in err and
              kind in err and "not read" in err, f"rc={rc} {out[-200:]} {err[:300]}")

shutil.rmtree(tmp)
sys.exit(tally.summary())
