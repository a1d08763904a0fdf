#!/usr/bin/python3
"""`tensor-inspect diff` on real file pairs made by the producers, against NumPy.

    /usr/bin/python3 tests/diff_pairs.py path/to/tensor-inspect

NumPy writes .npy/.npz; the project's safetensors writer (samples/make_safetensors_samples.py)
and a GGUF writer with the layout of samples/make_gguf_samples.py write the checkpoints.
Each pair holds planted changes (one changed value, a transposed tensor, a dtype changed,
a tensor removed, a Q8_0-quantized copy, NaNs, -0.0); the diff must report exactly
those, with figures equal to NumPy's (computed here in float64) and the documented exit
status (0 same, 1 different, 2 trouble). Every --json output is validated against
schemas/diff.schema.json. Closes with `N passed, M failed`.
"""
import ast, json, math, os, struct, subprocess, sys, tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally  # noqa: E402
from diff_figures import close, expect_figures  # noqa: E402,F401
tally.passes = False
check = tally.check

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "samples"))
from make_safetensors_samples import write_safetensors  # noqa: E402
from make_gguf_samples import write_gguf  # noqa: E402

try:
  import jsonschema
  with open(os.path.join(ROOT, "schemas", "diff.schema.json")) as f:
    DIFF_SCHEMA = json.load(f)
except ImportError:  # python3-jsonschema is in scripts/test.sh; without it, schema checks fail
  jsonschema = None



def run(*args):
  p = subprocess.run([BIN, "diff", *args], capture_output=True, text=True, timeout=60)
  return p.returncode, p.stdout, p.stderr


def diff_json(what, *args, code):
  rc, out, err = run(*args, "--json")
  check(f"{what}: exit status", rc == code, f"got {rc}, want {code}; stderr {err!r}")
  try:
    doc = json.loads(out)
  except ValueError as e:
    check(f"{what}: JSON", False, f"{e}: {out[:300]!r}")
    return None
  if jsonschema is None:
    check(f"{what}: schema", False, "python3-jsonschema is not installed")
  else:
    try:
      jsonschema.validate(doc, DIFF_SCHEMA)
      check(f"{what}: schema", True)
    except jsonschema.ValidationError as e:
      check(f"{what}: schema", False, e.message)
  return doc


def rows(doc):
  return {(r["name_a"] if r["name_a"] is not None else r["name_b"]): r for r in doc["tensors"]} if doc else {}


T = tempfile.mkdtemp(prefix="ti_diff_")
P = lambda name: os.path.join(T, name)
rng = np.random.default_rng(7)

# ---- a safetensors checkpoint and its altered copies ----
w = rng.standard_normal((4, 8)).astype("<f4")
sq = rng.standard_normal((4, 4)).astype("<f4")
bias = rng.standard_normal(8).astype("<f4")
emb = rng.standard_normal((3, 4)).astype("<f2")
ids = np.array([-1, 0, 2**53 + 1, 7, -2**63], "<i8")


def st(path, tensors):
  tags = {"float32": "F32", "float16": "F16", "int64": "I64", "int32": "I32"}
  write_safetensors(path, [(n, tags[a.dtype.name], a.shape, np.ascontiguousarray(a).tobytes()) for n, a in tensors])


base = [("w", w), ("sq", sq), ("bias", bias), ("emb", emb), ("ids", ids)]
st(P("a.safetensors"), base)
st(P("same.safetensors"), base)
w_changed = w.copy()
w_changed[2, 5] += np.float32(0.5)
ids_changed = ids.copy()
ids_changed[2] = 2**53  # differs by 1 only beyond float64's 53 bits: integers compare exactly
st(P("changed.safetensors"), [("w", w_changed), ("sq", sq), ("bias", bias), ("emb", emb), ("ids", ids_changed)])
st(P("transposed.safetensors"), [("w", w.T.copy()), ("sq", sq.T.copy()), ("bias", bias), ("emb", emb), ("ids", ids)])
bias16 = bias.astype("<f2")
st(P("dtype.safetensors"), [("w", w), ("sq", sq), ("bias", bias16), ("emb", emb), ("ids", ids)])
st(P("removed.safetensors"), [("w", w), ("sq", sq), ("bias", bias), ("ids", ids)])

doc = diff_json("identical copy", P("a.safetensors"), P("same.safetensors"), code=0)
check("identical copy: all same", doc and doc["summary"]["same"] == 5 and doc["summary"]["compared"] == 5, doc and
      doc["summary"])

doc = diff_json("one changed value", P("a.safetensors"), P("changed.safetensors"), code=1)
r = rows(doc)
# ids[2]: 2**53 + 1 -> 2**53 is within allclose's default rtol, as NumPy agrees.
check("one changed value: statuses", {k: v["status"] for k, v in r.items()} == {
    "w": "differs",
    "sq": "same",
    "bias": "same",
    "emb": "same",
    "ids": "same"
}, {k: v["status"] for k, v in r.items()})
check("one changed value: ids within tolerance as NumPy has it", np.allclose(ids, ids_changed))
first = expect_figures("one changed value: w", r.get("w"), w, w_changed)
check("one changed value: first index", r.get("w", {}).get("first_mismatch") == list(np.unravel_index(first, w.shape)),
      r.get("w", {}).get("first_mismatch"))
doc = diff_json("zero tolerance", P("a.safetensors"), P("changed.safetensors"), "--rtol", "0", "--atol", "0", code=1)
r0 = rows(doc)
check(
    "zero tolerance: ids differ beyond 2**53 (as float64 they are equal)",
    r0.get("ids", {}).get("mismatched") == 1 and r0["ids"]["first_mismatch"] == [2] and
    float(2**53 + 1) == float(2**53), r0.get("ids"))

doc = diff_json("transposed", P("a.safetensors"), P("transposed.safetensors"), code=1)
r = rows(doc)
check("transposed: w shape mismatch",
      r.get("w", {}).get("status") == "shape_mismatch" and r["w"]["shape_b"] == [8, 4], r.get("w"))
check("transposed: square tensor differs", r.get("sq", {}).get("status") == "differs", r.get("sq"))
first = expect_figures("transposed: sq", r.get("sq"), sq, sq.T)
check("transposed: sq first index", r.get("sq", {}).get("first_mismatch") == list(np.unravel_index(first, sq.shape)))
check("transposed: others same", all(r[k]["status"] == "same" for k in ("bias", "emb", "ids")))

doc = diff_json("dtype changed", P("a.safetensors"), P("dtype.safetensors"), code=1)
r = rows(doc)
check("dtype changed: status",
      r.get("bias", {}).get("status") == "dtype_mismatch" and r["bias"]["dtype_b"] == "float16", r.get("bias"))
expect_figures("dtype changed: bias", r.get("bias"), bias, bias16)
check("dtype changed: summary", doc and doc["summary"]["dtype_mismatch"] == 1 and doc["summary"]["same"] == 4, doc and
      doc["summary"])

doc = diff_json("tensor removed", P("a.safetensors"), P("removed.safetensors"), code=1)
r = rows(doc)
check("tensor removed: only in A",
      r.get("emb", {}).get("status") == "only_in_a" and doc["summary"]["only_in_a"] == 1, r.get("emb"))
doc = diff_json("tensor added", P("removed.safetensors"), P("a.safetensors"), code=1)
check("tensor added: only in B", doc and doc["summary"]["only_in_b"] == 1 and
      rows(doc).get("emb", {}).get("status") == "only_in_b")

rc, out, err = run(P("a.safetensors"), P("changed.safetensors"))
check("text: exit 1", rc == 1, err)
check("text: summary line", out.strip().splitlines()[-1].startswith("1 of 5 compared tensors differs, 0 only in"), out)
check("text: first index shown", "1 (of 32), first at [2, 5]" in out, out)

doc = diff_json("--name glob", P("a.safetensors"), P("changed.safetensors"), "--name", "s*", "--name", "b*", code=0)
check("--name glob: only the chosen", doc and sorted(rows(doc)) == ["bias", "sq"], doc and sorted(rows(doc)))

# ---- renames: Hugging Face names against GGUF-style names ----
st(P("hf.safetensors"), [("model.layers.0.mlp.weight", w), ("model.norm.weight", bias)])
st(P("ggufnames.safetensors"), [("blk.0.mlp.weight", w), ("output_norm.weight", bias)])
doc = diff_json("rename",
                P("hf.safetensors"),
                P("ggufnames.safetensors"),
                "--rename-regex",
                r"^model\.layers\.(\d+)\.=blk.$1.",
                "--rename",
                "model.norm.weight=output_norm.weight",
                code=0)
check("rename: both paired", doc and doc["summary"]["same"] == 2 and doc["summary"]["compared"] == 2, doc and
      doc["summary"])
diff_json("without rename", P("hf.safetensors"), P("ggufnames.safetensors"), code=1)

# --name selects by A's names (or what they are renamed to); the partners in B come along,
# and B's tensors no tensor of A pairs with are kept by their own names. A user's finding:
# --name 'enc.*' kept A's enc.w but not its partner dec.w, so "enc.w only in A", exit 1.
st(P("r1.safetensors"), [("enc.w", np.ones(4, "<f4")), ("enc.b", np.zeros(2, "<f4"))])
st(P("r2.safetensors"), [("dec.w", np.ones(4, "<f4")), ("enc.b", np.zeros(2, "<f4")), ("enc.extra", np.ones(3, "<f4"))])
pairs = lambda doc: sorted(
    ((r["name_a"] or ""), (r["name_b"] or ""), r["status"]) for r in doc["tensors"]) if doc else None
for glob, want, code in [
    ("enc.*", [("", "enc.extra", "only_in_b"), ("enc.b", "enc.b", "same"), ("enc.w", "dec.w", "same")], 1),
    ("enc.w", [("enc.w", "dec.w", "same")], 0),
    ("dec.*", [("enc.w", "dec.w", "same")], 0),
    ("*.b", [("enc.b", "enc.b", "same")], 0),
    ("enc.extra", [("", "enc.extra", "only_in_b")], 1)]:
  doc = diff_json(f"--rename enc.w=dec.w --name {glob}",
                  P("r1.safetensors"),
                  P("r2.safetensors"),
                  "--rename",
                  "enc.w=dec.w",
                  "--name",
                  glob,
                  code=code)
  check(f"--rename enc.w=dec.w --name {glob}: pairs", pairs(doc) == want, pairs(doc))
rc, out, err = run(P("r1.safetensors"), P("r2.safetensors"), "--rename", "enc.w=dec.w", "--name", "enc.w")
check("--rename with --name, "
      "text: the pair in one row", rc == 0 and "enc.w -> dec.w" in out and "only in" not in out.splitlines()[1],
      f"{rc} {out!r} {err!r}")


# ---- GGUF: F32 against a Q8_0-quantized copy ----
def q8_0(x):
  """ggml's quantize_row_q8_0: per 32 values d = amax / 127 (as float16), q = round(x / d)."""
  blocks = x.reshape(-1, 32)
  raw, deq = b"", []
  for blk in blocks:
    d = np.float32(np.abs(blk).max() / 127)
    q = np.round(blk / d if d else blk * 0).astype(np.int8)
    d16 = np.float16(d)
    raw += d16.tobytes() + q.tobytes()
    deq.append(q.astype(np.float32) * np.float32(d16))
  return raw, np.concatenate(deq)


big = rng.standard_normal((8, 64)).astype("<f4")
raw_q, deq = q8_0(big.ravel())
write_gguf(P("f32.gguf"), [("big", big.shape, 0, big.tobytes())])
write_gguf(P("q8.gguf"), [("big", big.shape, 8, raw_q)])
doc = diff_json("quantized copy", P("f32.gguf"), P("q8.gguf"), code=1)
r = rows(doc)
check("quantized copy: differs, same dtype",
      r.get("big", {}).get("status") == "differs" and r["big"]["dtype_b"] == "float32", r.get("big"))
expect_figures("quantized copy", r.get("big"), big, deq.reshape(big.shape))
tol = float(np.abs(big.astype(np.float64) - deq.reshape(big.shape)).max()) * 1.01
doc = diff_json("quantized copy within --atol", P("f32.gguf"), P("q8.gguf"), "--rtol", "0", "--atol", repr(tol), code=0)
doc = diff_json("safetensors vs GGUF", P("a.safetensors"), P("f32.gguf"), code=1)
check("safetensors vs GGUF: nothing shared", doc and doc["summary"]["only_in_a"] == 5 and
      doc["summary"]["only_in_b"] == 1)

# ---- NumPy files: .npy pairs (by position), .npz, NaN policy, -0.0 and --exact ----
x = np.array([1.0, np.nan, -0.0, np.inf, 2.5], np.float32)
y = np.array([1.0, np.nan, 0.0, np.inf, 2.5], np.float32)
np.save(P("x.npy"), x)
np.save(P("y.npy"), y)
doc = diff_json("npy NaN equal", P("x.npy"), P("y.npy"), code=0)
doc = diff_json("npy --nan-differs", P("x.npy"), P("y.npy"), "--nan-differs", code=1)
check("--nan-differs: one mismatch at [1]", doc and doc["tensors"][0]["mismatched"] == 1 and
      doc["tensors"][0]["first_mismatch"] == [1], doc and doc["tensors"][0])
doc = diff_json("npy --exact", P("x.npy"), P("y.npy"), "--exact", code=1)
check("--exact: -0.0 vs 0.0 at [2]", doc and doc["tensors"][0]["mismatched"] == 1 and
      doc["tensors"][0]["first_mismatch"] == [2], doc and doc["tensors"][0])
# Infinities that differ: NumPy's figures for max_abs and rmse (inf); max_rel is inf where
# |a - b| is (NumPy's inf / inf is nan, which a max would drop: the old 0), and no cosine
# (NumPy's dot over norms is nan), however well the finite pairs agree.
for a_vals, b_vals in (([np.inf, -np.inf], [np.inf, np.inf]), ([np.inf, 1.0], [1.0, 1.0]), ([1.0, 3.0], [-np.inf,
                                                                                                         3.0])):
  np.save(P("ia.npy"), np.array(a_vals, np.float64))
  np.save(P("ib.npy"), np.array(b_vals, np.float64))
  doc = diff_json(f"infinities {a_vals} vs {b_vals}", P("ia.npy"), P("ib.npy"), code=1)
  row = doc and doc["tensors"][0]
  av, bv = np.array(a_vals), np.array(b_vals)
  with np.errstate(invalid="ignore"):
    d = np.where(av == bv, 0.0, np.abs(av - bv))  # equal infinities differ by 0, as documented
    numpy_cosine = np.dot(av, bv) / (np.linalg.norm(av) * np.linalg.norm(bv))
  check(f"infinities {a_vals}: max_abs, rmse as NumPy", row and close(row["max_abs"], float(d.max()))
        and close(row["rmse"], float(np.sqrt(np.mean(d * d)))), row)
  check(f"infinities {a_vals}: max_rel inf", row and row["max_rel"] == "inf", row)
  check(f"infinities {a_vals}: no "
        f"cosine (NumPy: {numpy_cosine})", row and row["cosine"] is None and not np.isfinite(numpy_cosine), row)
# Two of A's tensors renamed onto one of B's is a usage error naming both (one was shown
# "only in A" though B holds its name); a NaN tolerance says what it got.
np.savez(P("ra.npz"), w=np.ones(2), b=np.zeros(2))
rc, out, err = run(P("ra.npz"), P("ra.npz"), "--rename", "w=b")
check("--rename onto a name A already "
      "pairs: exit 2 naming both", rc == 2 and out == "" and "'w'" in err and "'b'" in err, f"{rc} {err!r}")
rc, out, err = run(P("ra.npz"), P("ra.npz"), "--rename", "w=b", "--rename", "b=w")
check("--rename swapping two names pairs them crosswise", rc == 1 and "differs" in out, f"{rc} {out!r} {err!r}")
rc, out, err = run(P("ra.npz"), P("ra.npz"), "--atol", "nan")
check("--atol nan: a usage error that shows the value", rc == 2 and "nan" in err, f"{rc} {err!r}")
doc = diff_json("npy vs literal", P("y.npy"), "[1.0, 2.0]", code=1)
check("npy vs literal: shape mismatch", doc and doc["tensors"][0]["status"] == "shape_mismatch")
doc = diff_json("literal vs literal", "[1, 2, 3]", "[1, 2, 4]", code=1)
check("literal vs literal: int figures", doc and doc["tensors"][0]["max_abs"] == 1.0 and
      doc["tensors"][0]["first_mismatch"] == [2])

np.savez(P("a.npz"), w=w, bias=bias)
np.savez_compressed(P("b.npz"), w=w_changed, bias=bias)
doc = diff_json("npz", P("a.npz"), P("b.npz"), code=1)
r = rows(doc)
check("npz: statuses", {k: v["status"] for k, v in r.items()} == {"w": "differs", "bias": "same"})
expect_figures("npz: w", r.get("w"), w, w_changed)
np.save(P("w.npy"), w)
doc = diff_json("npz member vs npy", P("a.npz"), P("w.npy"), "--name", "w", code=0)

# ---- PyTorch: the sample state_dict against an .npz of what torch.load gives ----
with open(os.path.join(ROOT, "samples", "pt_expected.json")) as f:
  expected = json.load(f)["state_dict.pt"]
arrays = {n: np.array(ast.literal_eval(e["tolist"]), dtype=e["dtype"]).reshape(e["shape"]) for n, e in expected.items()}
np.savez(P("pt_copy.npz"), **arrays)
doc = diff_json("pt vs npz", os.path.join(ROOT, "samples", "state_dict.pt"), P("pt_copy.npz"), code=0)
check("pt vs npz: every tensor same", doc and doc["summary"]["same"] == len(arrays), doc and doc["summary"])
arrays["w32"] = arrays["w32"] * np.float32(2)
np.savez(P("pt_changed.npz"), **arrays)
doc = diff_json("pt vs changed npz", os.path.join(ROOT, "samples", "state_dict.pt"), P("pt_changed.npz"), code=1)
check("pt vs changed npz: w32 differs", rows(doc).get("w32", {}).get("mismatched") == 6)

# ---- PyTorch: checkpoints written by torch.save itself (python3-torch), when it imports ----
try:
  import torch
except Exception:  # not in scripts/test.sh: the committed samples above cover .pt
  torch = None
  print("skip torch.save pairs: torch does not import")
if torch is not None:
  g = torch.Generator().manual_seed(3)
  sd = {"w": torch.randn(4, 8, generator=g), "h": torch.randn(6, generator=g).half(),
        "bf": torch.randn(5, generator=g).bfloat16(), "ids": torch.tensor([3, -1, 2**40], dtype=torch.int64),
        "wt": torch.randn(8, 4, generator=g).t()}  # a non-contiguous view: strides in the file
  np_of = lambda t: (t.float() if t.dtype == torch.bfloat16 else t).contiguous().numpy()
  torch.save(sd, P("t.pt"))
  torch.save({k: v.clone() for k, v in sd.items()}, P("t_same.pt"))
  changed = {k: v.clone() for k, v in sd.items()}
  changed["w"][1, 6] = -7.0
  changed["bf"][4] = 1.5
  torch.save(changed, P("t_changed.pt"))
  torch.save({**sd, "w": sd["w"].t().contiguous()}, P("t_transposed.pt"))
  torch.save({**sd, "h": sd["h"].float()}, P("t_dtype.pt"))
  torch.save({k: v for k, v in sd.items() if k != "ids"}, P("t_removed.pt"))
  doc = diff_json("torch.save: identical copy", P("t.pt"), P("t_same.pt"), code=0)
  check("torch.save: identical copy, all same", doc and doc["summary"]["same"] == 5, doc and doc["summary"])
  doc = diff_json("torch.save: changed values", P("t.pt"), P("t_changed.pt"), code=1)
  r = rows(doc)
  check("torch.save: changed values, statuses", {k: v["status"] for k, v in r.items()} == {
      "w": "differs",
      "h": "same",
      "bf": "differs",
      "ids": "same",
      "wt": "same"
  }, {k: v["status"] for k, v in r.items()})
  for k in ("w", "bf"):
    first = expect_figures(f"torch.save: changed {k}", r.get(k), np_of(sd[k]), np_of(changed[k]))
    check(f"torch.save: changed {k}, first index",
          r.get(k, {}).get("first_mismatch") == list(np.unravel_index(first, sd[k].shape)))
  doc = diff_json("torch.save: transposed", P("t.pt"), P("t_transposed.pt"), code=1)
  check("torch.save: transposed, shape mismatch", rows(doc).get("w", {}).get("status") == "shape_mismatch")
  doc = diff_json("torch.save: dtype changed", P("t.pt"), P("t_dtype.pt"), code=1)
  r = rows(doc)
  check("torch.save: dtype changed",
        r.get("h", {}).get("status") == "dtype_mismatch" and r["h"]["dtype_b"] == "float32", r.get("h"))
  expect_figures("torch.save: dtype changed h", r.get("h"), np_of(sd["h"]), np_of(sd["h"].float()))
  doc = diff_json("torch.save: removed", P("t.pt"), P("t_removed.pt"), code=1)
  check("torch.save: removed, only in A",
        rows(doc).get("ids", {}).get("status") == "only_in_a" and doc["summary"]["same"] == 4)
  np.savez(P("t_as_npz.npz"), **{k: np_of(v) for k, v in sd.items() if k != "bf"})
  doc = diff_json("torch.save vs np.savez of .numpy()", P("t.pt"), P("t_as_npz.npz"), code=1)
  r = rows(doc)
  check("torch.save vs npz: shared "
        "tensors same, bf only in A",
        all(r[k]["status"] == "same" for k in ("w", "h", "ids", "wt")) and r["bf"]["status"] == "only_in_a",
        {k: v["status"] for k, v in r.items()})

# ---- sharded index and a model folder against one file ----
shard = os.path.join(ROOT, "samples", "sharded")
st(P("unsharded.safetensors"), [("embed.weight", np.array([[1, 2], [3, 4]], "<f4")),
                                ("layer.0.bias", np.array([0.5, -0.5], "<f2")),
                                ("layer.1.weight", np.array([7, -8, 9], "<i4")),
                                ("lm_head.weight", np.array([[0.25, -0.75]], "<f4"))])
doc = diff_json("index vs file",
                os.path.join(shard, "model.safetensors.index.json"),
                P("unsharded.safetensors"),
                code=0)
check("index vs file: 4 same", doc and doc["summary"]["same"] == 4, doc and doc["summary"])
doc = diff_json("folder vs file", shard, P("unsharded.safetensors"), code=0)
check("folder vs file: 4 same", doc and doc["summary"]["same"] == 4, doc and doc["summary"])

with open(P("w.npy"), "rb") as f:
  p = subprocess.run([BIN, "diff", "-", P("w.npy"), "--json"], stdin=f, capture_output=True, text=True, timeout=60)
check("standard input vs file: same", p.returncode == 0 and json.loads(p.stdout)["summary"]["same"] == 1,
      (p.returncode, p.stderr))

# ---- trouble is 2 ----
rc, out, err = run("-", "-")
check("both on stdin: exit 2", rc == 2 and out == "", (rc, err))
rc, out, err = run(P("a.safetensors"), P("missing.safetensors"))
check("missing file: exit 2, "
      "nothing on stdout, one line", rc == 2 and out == "" and len(err.strip().splitlines()) == 1, (rc, out, err))
rc, out, err = run(P("a.safetensors"), P("same.safetensors"), "--rtol", "-1")
check("bad tolerance: exit 2", rc == 2 and out == "", (rc, out, err))

# ---- a sharded index with one shard missing: trouble (exit 2) naming the tensor, not a shape of () ----
os.makedirs(P("idx"), exist_ok=True)
st(P("idx/s1.safetensors"), [("w", w)])
with open(P("idx/model.safetensors.index.json"), "w") as f:
  json.dump({"weight_map": {"w": "s1.safetensors", "bias": "s2.safetensors"}}, f)
st(P("full.safetensors"), [("w", w), ("bias", bias)])
rc, out, err = run(P("idx/model.safetensors.index.json"), P("full.safetensors"))
check("missing shard: exit 2", rc == 2, f"got {rc}; out {out!r}")
check("missing shard: names "
      "the tensor and the shard", "'bias'" in err and "s2.safetensors" in err and "cannot be read" in err, err)
check("missing shard: nothing on stdout", out == "", out)

sys.exit(tally.summary())
