"""torch.distributed.checkpoint folders (.metadata + __<rank>_<n>.distcp), made to PyTorch
2.x's layout by dcp_writer.py (its docstring says how: the DCP classes redefined under their
own names and pickled by Python's pickle; the chunk payloads written by torch 1.13's
torch.save), against the tensors they were made from: one rank, every dtype, non-tensor
items; four ranks holding row shards, a 2x2 grid of uneven blocks and a replicated tensor
written once. Names, dtypes, shapes and values (JSON and text), --stats, -e, diff against a
safetensors file of the same tensors, validate; damaged folders exit 2 naming the place, and
validate names the rule.

Run: python3 tests/dcp_vs_torch.py build/tensor-inspect
"""
import json, math, os, pickle, shutil, struct, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally
from json_values import py_value

import torch  # python3-torch: scripts/setup.sh installs it with the test packages
import dcp_writer

BIN = os.path.abspath(sys.argv[1])
tmp = tempfile.mkdtemp(prefix="ti-dcp-")
NAMES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16", torch.float64: "float64",
         torch.int64: "int64", torch.int32: "int32", torch.int16: "int16", torch.int8: "int8", torch.uint8: "uint8",
         torch.bool: "bool"}
ST_TAGS = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16", torch.float64: "F64", torch.int64: "I64",
           torch.int32: "I32", torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8", torch.bool: "BOOL"}


def run(args, timeout=120):
  p = subprocess.run([BIN] + args, capture_output=True, text=True, timeout=timeout)
  return p.returncode, p.stdout, p.stderr


def write_safetensors(path, tensors):
  """The safetensors layout by hand (huggingface/safetensors 'Format'): u64 header length,
  JSON header, then each tensor's little-endian bytes in order."""
  header, blobs, at = {}, [], 0
  for name, t in tensors.items():
    raw = (t.contiguous() if t.dim() else t.reshape(1)).view(torch.uint8).numpy().tobytes()
    header[name] = {"dtype": ST_TAGS[t.dtype], "shape": list(t.shape), "data_offsets": [at, at + len(raw)]}
    blobs.append(raw)
    at += len(raw)
  text = json.dumps(header).encode()
  with open(path, "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def check_folder(label, path, tensors):
  rc, out, err = run([path, "--list", "--json"])
  try:
    got = [(t["name"], t["dtype"], t["shape"]) for t in json.loads(out)["tensors"]]
  except Exception as e:  # noqa: BLE001
    got = [repr(e), err[:300]]
  want = [(n, NAMES[t.dtype], list(t.shape)) for n, t in tensors.items()]
  tally.check(f"{label}: names, dtypes and shapes from the metadata ({len(want)} tensors)", rc == 0 and got == want,
              f"rc={rc}\n got {got}\nwant {want}\n{err[:300]}")
  rc, out, err = run([path, "--all", "--json"])
  try:
    rows = {t["name"]: t for t in json.loads(out)["tensors"]}
    bad = [n for n, t in tensors.items()
           if rows[n]["tolist"] != py_value(t.float().tolist() if t.dtype == torch.bfloat16 else t.tolist())]
  except Exception as e:  # noqa: BLE001
    bad = [repr(e), err[:300]]
  tally.check(f"{label}: every value equals torch's (JSON)", rc == 0 and not bad, f"rc={rc} {bad[:5]}")


# ---- one rank: every dtype, a 0-d and an empty tensor, non-tensor items ----
g = torch.Generator().manual_seed(3)
single = {
    "model.f32": torch.randn(3, 4, generator=g), "model.f16": torch.randn(5, generator=g).half(),
    "model.bf16": torch.randn(2, 3, generator=g).bfloat16(),
    "model.f64": torch.tensor([1e300, -0.0, float("nan"), float("inf"), 1 / 3], dtype=torch.float64),
    "model.i64": torch.tensor([-2**63, 2**63 - 1, 0]), "model.i32": torch.tensor([-7, 2**31 - 1], dtype=torch.int32),
    "model.i16": torch.tensor([-32768, 7], dtype=torch.int16), "model.i8": torch.tensor([-128, 127], dtype=torch.int8),
    "model.u8": torch.tensor([0, 255], dtype=torch.uint8), "model.b": torch.tensor([True, False, True]),
    "model.scalar": torch.tensor(2.5), "model.empty": torch.zeros(0, 5),
    # a transposed tensor whose storage holds just its elements: DCP saves it as it is, strides (1, 3)
    "model.t": torch.arange(6.0).reshape(2, 3).t(),
}
one = os.path.join(tmp, "dcp-step-1000")
dcp_writer.write_dcp(one, {"step": 1000, **single, "optim.lr": 0.01})
with open(os.path.join(one, ".metadata"), "rb") as f:
  head = f.read(64)
tally.check("the .metadata starts as pickle protocol 4 naming torch.distributed.checkpoint.metadata",
            head[:2] == b"\x80\x04" and b"torch.distributed.checkpoint.metadata" in head, repr(head))
check_folder("one rank (folder)", one + "/", single)
check_folder("one rank (.metadata)", os.path.join(one, ".metadata"), single)
rc, out, err = run([one, "--format", "dcp", "--list", "--json"])
tally.check("--format dcp opens the folder; the listing names the format dcp",
            rc == 0 and json.loads(out or "{}").get("format") == "dcp", f"rc={rc} {out[:300]} {err[:200]}")
rc, out, err = run([one, "--meta", "--json"])
tally.check("non-tensor items (BytesStorageMetadata) and the DCP version are metadata",
            rc == 0 and '"step"' in out and '"optim.lr"' in out and "1.0.0" in out, f"rc={rc} {out[:400]} {err[:200]}")
rc, out, err = run([one, "--name", "model.f32"])
tally.check("one rank: 'model.f32' in text prints tolist() as Python does",
            rc == 0 and f"tolist: {single['model.f32'].tolist()!r}" in out, f"rc={rc} {out[-300:]} {err[:200]}")

# ---- four ranks: row shards, a 2x2 grid of uneven blocks, a replicated tensor written once ----
rows = torch.arange(40, dtype=torch.float32).reshape(8, 5) / 7
grid = torch.randn(5, 7, generator=g, dtype=torch.float64)
rep = torch.tensor([3, 1, 4, 1, 5], dtype=torch.int64)
vec = torch.randn(10, generator=g).bfloat16()
sharded = {"rows": rows, "grid": grid, "replicated": rep, "vec": vec}
shards = {
    "rows": [(r, [2 * r, 0], [2, 5]) for r in range(4)],
    "grid": [(0, [0, 0], [3, 4]), (1, [0, 4], [3, 3]), (2, [3, 0], [2, 4]), (3, [3, 4], [2, 3])],
    "vec": [(3, [0], [4]), (1, [4], [6])],
}
four = os.path.join(tmp, "dcp-4-ranks")
layout = dcp_writer.write_dcp(four, sharded, shards=shards, ranks=4)
tally.check("four ranks wrote four .distcp files", sorted(layout) == [f"__{r}_0.distcp" for r in range(4)], str(layout))
check_folder("four ranks", four, sharded)

rc, out, err = run([four, "--name", "grid", "--stats", "--json"])
try:
  s = json.loads(out)
  ok = (rc == 0 and math.isclose(s["mean"], grid.mean().item(), rel_tol=1e-12) and s["min"] == grid.min().item()
        and s["max"] == grid.max().item() and s["count"] == grid.numel())
except Exception as e:  # noqa: BLE001
  ok, s = False, repr(e)
tally.check("four ranks: --stats of the assembled 'grid' are torch's (mean, min, max, count)", ok, f"{s} {err[:200]}")
rc, out, err = run([four, "--name", "rows", "-e", "x.sum(axis=0)", "--json"])
try:
  got = json.loads(out)["tolist"]
  want = rows.sum(dim=0).tolist()
  ok = rc == 0 and all(math.isclose(a, b, rel_tol=1e-6) for a, b in zip(got, want))
except Exception as e:  # noqa: BLE001
  ok, got, want = False, repr(e), None
tally.check("four ranks: -e 'x.sum(axis=0)' over the assembled 'rows' equals torch's", ok,
            f"{got} vs {want} {err[:300]}")

st = os.path.join(tmp, "same.safetensors")
write_safetensors(st, sharded)
rc, out, err = run(["diff", four, st])
tally.check("diff of the four-rank folder against a safetensors of the same tensors: equal (exit 0)", rc == 0,
            f"rc={rc} {out[-400:]} {err[:300]}")
changed = dict(sharded, grid=grid.clone())
changed["grid"][4, 6] += 1
write_safetensors(st, changed)
rc, out, err = run(["diff", four, st])
tally.check("diff with grid[4, 6] changed: exit 1 naming 'grid'", rc == 1 and "grid" in out, f"rc={rc} {out[-300:]}")

for label, path in (("one rank", one), ("four ranks", four)):
  rc, out, err = run(["validate", path, "--json"])
  try:
    findings = json.loads(out)["files"][0]["findings"]
  except Exception as e:  # noqa: BLE001
    findings = [repr(e), out[:200], err[:200]]
  tally.check(f"validate {label}: clean", rc == 0 and findings == [], f"rc={rc} {findings}")


# ---- damaged folders: listing or reading exits 2 with one line naming the place; validate names the rule ----
def damaged(name, make, rule, args=("--all",), where=()):
  folder = os.path.join(tmp, name)
  shutil.copytree(four, folder)
  make(folder)
  rc, out, err = run([folder, *args])
  tally.check(f"damaged ({name}): exit 2, one line naming {', '.join(where)}, nothing on stdout",
              rc == 2 and out == "" and err.count("\n") == 1 and all(w in err for w in where),
              f"rc={rc} {out[:100]!r} {err!r}")
  rc, out, err = run(["validate", folder, "--json"])
  try:
    rules = [x["rule"] for x in json.loads(out)["files"][0]["findings"]]
  except Exception as e:  # noqa: BLE001
    rules = [repr(e), out[:200], err[:200]]
  tally.check(f"validate damaged ({name}): exit 1, rule {rule}", rc == 1 and rule in rules, f"rc={rc} {rules}")


def rewrite(folder, change):
  with open(os.path.join(folder, ".metadata"), "rb") as f:
    meta = pickle.load(f)  # our own classes (dcp_writer): nothing foreign runs
  change(meta)
  with open(os.path.join(folder, ".metadata"), "wb") as f:
    pickle.dump(meta, f)


def chunk_of(meta, fqn, i):
  return meta.state_dict_metadata[fqn].chunks[i]


def move_chunk(meta, fqn, i, offsets):
  c = chunk_of(meta, fqn, i)
  key = next(k for k in meta.storage_data if k.fqn == fqn and list(k.offset) == list(c.offsets))
  info = meta.storage_data.pop(key)
  c.offsets = torch.Size(offsets)
  meta.storage_data[dcp_writer.md.MetadataIndex(fqn, offsets, i)] = info


def truncate(folder, name, keep):
  path = os.path.join(folder, name)
  with open(path, "rb") as f:
    data = f.read()
  with open(path, "wb") as f:
    f.write(data[:keep])


class Evil:
  def __reduce__(self):
    return (os.system, ("true",))


damaged("missing-distcp", lambda d: os.remove(os.path.join(d, "__2_0.distcp")), "dcp.file_missing",
        where=("__2_0.distcp", "chunk"))
damaged("truncated-distcp", lambda d: truncate(d, "__3_0.distcp", 100), "dcp.storage_range",
        where=("__3_0.distcp", "reach past its end"))
damaged("overlap", lambda d: rewrite(d, lambda m: move_chunk(m, "rows", 1, [1, 0])), "dcp.chunk_overlap",
        args=("--list",), where=(".metadata", "tensor 'rows'", "both hold element (1, 0)"))
damaged("hole", lambda d: rewrite(d, lambda m: chunk_of(m, "grid", 3).__setattr__("sizes", torch.Size([2, 2]))),
        "dcp.coverage", args=("--list",), where=(".metadata", "tensor 'grid'", "no chunk holds element (3, 6)"))
damaged("past-size", lambda d: rewrite(d, lambda m: move_chunk(m, "vec", 1, [5])), "dcp.chunk_bounds",
        args=("--list",), where=(".metadata", "tensor 'vec'", "reaches past"))
damaged("foreign-class", lambda d: rewrite(d, lambda m: m.__setattr__("planner_data", Evil())), "dcp.class",
        args=("--list",), where=(".metadata", "'posix.system'"))
damaged("truncated-metadata", lambda d: truncate(d, ".metadata", 300), "dcp.structure", args=("--list",),
        where=(".metadata", "at byte"))
damaged("wrong-payload", lambda d: rewrite(
    d, lambda m: m.state_dict_metadata["replicated"].properties.__setattr__("dtype", torch.int32)),
        "dcp.chunk_payload", where=("replicated", "int32"))
damaged("huge-size", lambda d: rewrite(
    d, lambda m: m.state_dict_metadata["vec"].__setattr__("size", torch.Size([2**40, 2**40, 0]))), "dcp.shape",
        args=("--list",), where=(".metadata", "tensor 'vec'", "63 bits"))
# a non-tensor item's bytes past its file's end: reading tensors never touches them, validate says so
bytes_bad = os.path.join(tmp, "bytes-past-end")
dcp_writer.write_dcp(bytes_bad, {"step": 1000, "w": torch.ones(2)})


def stretch_step(m):
  info = next(v for k, v in m.storage_data.items() if k.fqn == "step")
  info.length += 10**6


rewrite(bytes_bad, stretch_step)
rc, out, err = run([bytes_bad, "--all"])
tally.check("a non-tensor item past the file's end: tensors still read (exit 0)", rc == 0, f"rc={rc} {err[:300]}")
rc, out, err = run(["validate", bytes_bad, "--json"])
try:
  found = [(x["rule"], x["place"]) for x in json.loads(out)["files"][0]["findings"]]
except Exception as e:  # noqa: BLE001
  found = [repr(e), out[:200], err[:200]]
tally.check("validate: the item's bytes past the end are dcp.storage_range at item 'step'", rc == 1 and
            ("dcp.storage_range", "item 'step'") in found, f"rc={rc} {found}")

rc, out, err = run([os.path.join(tmp, "foreign-class"), "--list"])
tally.check("a foreign class is refused before anything is read (nothing imported or run)",
            "nothing is imported" in err, err)

shutil.rmtree(tmp)
sys.exit(tally.summary())
