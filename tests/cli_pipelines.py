#!/usr/bin/python3
"""The CI-facing surface, through the CLI: every JSON output of every mode validates
against its schema in schemas/ (Debian's python3-jsonschema), jq reads every --jsonl
stream line by line, many-tensor selection (--name globs, --all, a model folder), and
--expect/--assert give 0 / 1 / 2 as documented.

    /usr/bin/python3 tests/cli_pipelines.py path/to/tensor-inspect

Expected values come from NumPy (np.load) and the samples' own records, never from the
tool. Closes with `N passed, M failed`.
"""
import glob, json, os, shutil, subprocess, sys, tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally  # noqa: E402
tally.passes = False
check = tally.check

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
S = lambda name: os.path.join(ROOT, "samples", name)


def run(*args, stdin=None):
  p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=60, cwd=ROOT, input=stdin)
  return p.returncode, p.stdout, p.stderr


# ---- schemas: every kind, with the references between them resolved locally ----
try:
  import jsonschema
  schemas = {}
  for path in glob.glob(os.path.join(ROOT, "schemas", "*.schema.json")):
    with open(path) as f:
      s = json.load(f)
    jsonschema.Draft202012Validator.check_schema(s)
    schemas[s["$id"]] = s
except ImportError as e:
  jsonschema = None
  check("python3-jsonschema is installed (scripts/test.sh)", False, str(e))


def validate(what, doc):
  if jsonschema is None:
    return
  kind = doc.get("kind") if isinstance(doc, dict) else None
  sid = f"{kind}.schema.json"
  if sid not in schemas:
    check(f"{what}: kind", False, f"no schema for kind {kind!r}: {str(doc)[:200]}")
    return
  try:
    # Debian's jsonschema (4.10) resolves "$ref": "tensor.schema.json" through a store.
    resolver = jsonschema.RefResolver(base_uri=sid, referrer=schemas[sid], store=dict(schemas))
    jsonschema.Draft202012Validator(schemas[sid], resolver=resolver).validate(doc)
    check(f"{what}: valid {kind}", True)
  except jsonschema.ValidationError as e:
    check(f"{what}: valid {kind}", False, f"{e.message} at {list(e.absolute_path)}")


def json_out(what, args, code=0, stream="stdout"):
  rc, out, err = run(*args)
  check(f"{what}: exit {code}", rc == code, f"got {rc}; stderr {err!r}")
  text = out if stream == "stdout" else err
  try:
    doc = json.loads(text)
  except ValueError as e:
    check(f"{what}: JSON", False, f"{e}: {text[:200]!r}")
    return None
  validate(what, doc)
  return doc


# every mode's JSON
doc = json_out("literal", ["[[1, 2], [3, 4]]", "--json"])
check("literal: file and name null", doc and doc["file"] is None and doc["name"] is None and
      doc["tolist"] == [[1, 2], [3, 4]])
doc = json_out("npy", [S("weights_f32.npy"), "--json"])
check("npy: file set, name null", doc and doc["file"] == S("weights_f32.npy") and doc["name"] is None)
doc = json_out("expression", ["-e", "Tensor.arange(3)", "--json"])
check("expression: values", doc and doc["tolist"] == [0, 1, 2])
doc = json_out("named tensor", [S("mixed.safetensors"), "--name", "ids", "--json"])
check("named tensor: name and exact big int", doc and doc["name"] == "ids" and doc["tolist"] == [-1, 0, 2**53 + 1])
doc = json_out("listing (multi-tensor file, no --name)", [S("mixed.safetensors"), "--json"])
check("listing: stored vs decoded bytes", doc and all(t["decoded_nbytes"] == t["nbytes"] for t in doc["tensors"]))
doc = json_out("listing of GGUF", [S("quants.gguf"), "--list", "--json"])
q = {t["name"]: t for t in doc["tensors"]} if doc else {}
check("GGUF listing: Q4_0 stores 2 blocks of 18 bytes, decodes to 64 float32",
      q.get("q4_0", {}).get("nbytes") == 36 and q["q4_0"]["decoded_nbytes"] == 256, q.get("q4_0"))
check("GGUF listing: Q8_1 decodes to nothing shown", q.get("q8_1", {}).get("decoded_nbytes") is None, q.get("q8_1"))
json_out("metadata", [S("quants.gguf"), "--meta", "--json"])
json_out("error", ["[1,, 2]", "--json"], code=2, stream="stderr")
json_out("error (jsonl)", [S("mixed.safetensors"), "--name", "nope*", "--jsonl"], code=2, stream="stderr")
doc = json_out("tensors (--all --json)", [S("arrays.npz"), "--all", "--json"])
check("tensors: every member", doc and
      [t["name"] for t in doc["tensors"]] == ["weights", "ids", "mask", "big", "fortran"], doc and
      [t["name"] for t in doc["tensors"]])

# ---- --jsonl: jq reads the stream line by line; values against np.load ----
rc, out, err = run(S("arrays.npz"), "--all", "--jsonl")
check("--jsonl: exit 0", rc == 0, err)
lines = out.splitlines()
check("--jsonl: one line per member", len(lines) == 5, out[:300])
npz = np.load(S("arrays.npz"))
for line in lines:
  d = json.loads(line)
  validate(f"--jsonl {d.get('name')}", d)
  arr = npz[d["name"]]
  check(f"--jsonl {d['name']}: "
        f"values as np.load", d["tolist"] == arr.tolist() and d["shape"] == list(arr.shape), d["tolist"])
jq = shutil.which("jq")
if jq:
  p = subprocess.run([jq, "-c", "{file, name, dtype}"], input=out, capture_output=True, text=True)
  got = [json.loads(x) for x in p.stdout.splitlines()]
  check("jq reads --jsonl line by line", p.returncode == 0 and [g["name"] for g in got] == list(npz.files), p.stderr)
  rc, out2, _ = run(S("quants.gguf"), "--name", "q*_k", "--name", "f32", "--jsonl")
  p = subprocess.run([jq, "-r", ".name"], input=out2, capture_output=True, text=True)
  check("jq: globs select in file order",
        p.stdout.split() == ["f32", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k", "q8_k"], p.stdout)
else:
  check("jq installed", False, "jq not found (scripts/test.sh installs it)")

# ---- text blocks, glob errors, a model folder ----
rc, out, err = run(S("mixed.safetensors"), "--name", "*a*")
names = [l[3:-3] for l in out.splitlines() if l.startswith("== ")]
check("text blocks under names", rc == 0 and names == ["half", "mask", "scalar"], (rc, names, err))
rc, out, err = run(S("mixed.safetensors"), "--name", "zz*")
check("glob matching nothing: exit 2", rc == 2 and out == "" and "no tensor matches 'zz*'" in err, (rc, err))
doc = json_out("model folder", [S("sharded"), "--all", "--json"])
check("model folder: index's tensors", doc and [t["name"] for t in doc["tensors"]] ==
      ["embed.weight", "layer.0.bias", "layer.1.weight", "lm_head.weight"], doc and [t["name"] for t in doc["tensors"]])
T = tempfile.mkdtemp(prefix="ti_pipe_")
for f in ("model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"):
  shutil.copy(os.path.join(S("sharded"), f), T)
doc = json_out("folder of shards without an index", [T, "--list", "--json"])
check("folder of shards: both files", doc and len(doc["tensors"]) == 4)
rc, out, err = run(tempfile.mkdtemp(), "--list")
check("empty folder: exit 2", rc == 2 and out == "", (rc, err))

# ---- --expect / --assert: 0 / 1 / 2 ----
w = np.load(S("weights_f32.npy"))
cases = [
    ("expect dtype ok", [S("weights_f32.npy"), "--expect", f"dtype={w.dtype.name}"], 0),
    ("expect shape ok", [
        S("weights_f32.npy"), "--expect", "shape=" + ",".join(map(str, w.shape)), "--expect", f"ndim={w.ndim}",
        "--expect", f"nbytes={w.nbytes}", "--expect", "format=f"
    ], 0),
    ("expect shape (tuple form)", [S("weights_f32.npy"), "--expect", f"shape={w.shape}"], 0),
    ("expect dtype alias", [S("weights_f32.npy"), "--expect", "dtype=float"], 0),
    ("expect dtype fails", [S("weights_f32.npy"), "--expect", "dtype=float16"], 1),
    ("expect nbytes fails", [S("weights_f32.npy"), "--expect", "nbytes=1"], 1),
    ("expect bf16 has no format", [S("mixed.safetensors"), "--name", "bf16", "--expect", "format=None"], 0),
    ("expect unknown key", [S("weights_f32.npy"), "--expect", "colour=red"], 2),
    ("expect unknown dtype", [S("weights_f32.npy"), "--expect", "dtype=float7"], 2),
    ("expect on a listing", [S("mixed.safetensors"), "--expect", "ndim=1"], 2),
    ("assert ok", [S("weights_f32.npy"), "--assert", "x < 100"], 0),
    ("assert fails", [S("weights_f32.npy"), "--assert", "x > 0"], 1),
    ("assert not boolean", [S("weights_f32.npy"), "--assert", "x + 1"], 2),
    ("assert bad expression", [S("weights_f32.npy"), "--assert", "x +"], 2),
    ("all tensors checked", [S("mixed.safetensors"), "--all", "--expect", "ndim=1"], 1),
]
for what, args, code in cases:
  rc, out, err = run(*args)
  check(f"{what}: exit {code}", rc == code, f"got {rc}: {out!r} {err!r}")
  if code == 2:
    check(f"{what}: nothing on "
          f"stdout, one line on stderr", out == "" and len(err.strip().splitlines()) == 1, (out, err))
rc, out, err = run(S("weights_f32.npy"), "--assert", "x > 0")
neg = int((w <= 0).sum())
first = list(np.unravel_index(int(np.argmax(w <= 0)), w.shape))
check("assert failure says what", f"{neg} of {w.size} elements are False, first at {first}" in out, out)
f32 = np.load(S("float32.npy"))
rc, out, err = run(S("float32.npy"), "--assert", "x.isnan().any() == False", "--assert", "x.isfinite()")
bad = ~np.isfinite(f32)
check("isnan/isfinite asserts: exit 1 as NumPy finds nan and inf", rc == (1 if bad.any() else 0), (rc, out, err))
check(
    "isfinite assert: NumPy's count and first index", f"--assert 'x.isfinite()' failed: {int(bad.sum())} of {f32.size} "
    f"elements are False, first at [{int(np.argmax(bad))}]" in out, out)
check("isnan().any() assert: the scalar's value", "--assert 'x.isnan().any() == False' failed: False" in out, out)
rc, out, err = run(S("weights_f32.npy"), "--assert", "x.isnan().any() == False", "--assert", "(x.abs() < 100).all()")
check("isnan/all asserts pass on finite data", rc == 0 and np.isfinite(w).all() and (np.abs(w) < 100).all(),
      (rc, out, err))
rc, out, err = run(S("weights_f32.npy"), "--expect", "dtype=float16")
check("expect failure says the actual value", "dtype is float32" in out, out)
rc, out, err = run(S("mixed.safetensors"), "--all", "--expect", "ndim=1")
want_fail = 0
with open(S("mixed.safetensors"), "rb") as f:
  n = int.from_bytes(f.read(8), "little")
  header = json.loads(f.read(n))
want_fail = sum(1 for k, v in header.items() if k != "__metadata__" and len(v["shape"]) != 1)
check("every failure listed", out.count("failed: ndim is") == want_fail, out)
doc = json_out("checks --json", [S("mixed.safetensors"), "--all", "--expect", "ndim=1", "--json"], code=1)
check("checks: counts", doc and doc["failed"] == want_fail and doc["checked"] == len(header) - 1, doc and
      (doc["failed"], doc["checked"]))
rc, out, err = run(S("mixed.safetensors"), "--all", "--expect", "ndim=1", "--jsonl")
for line in out.splitlines():
  validate("check --jsonl", json.loads(line))
check("checks --jsonl: one line per check", len(out.splitlines()) == len(header) - 1)

# ---- a repeatable option takes one value per occurrence: it never swallows INPUT ----
ids = np.load(S("arrays.npz"))["ids"]
doc = json_out("--name before INPUT", ["--json", "--name", "ids", S("arrays.npz")])
check("--name before INPUT: the named tensor", doc and doc["name"] == "ids" and doc["tolist"] == ids.tolist(), doc)
rc, out, err = run("--expect", f"dtype={ids.dtype.name}", "--name", "ids", S("arrays.npz"))
check("--expect before --name and INPUT: exit 0", rc == 0, f"{rc} {err!r}")
doc = json_out("--view-as before INPUT", ["--json", "--view-as", "B", "[1.0]"])
check("--view-as before INPUT: the bytes of float32 1.0", doc and doc["tolist"] == list(np.float32(1.0).tobytes()), doc)
rc, out, err = run("--name", "ids", "--name", "mask", "--jsonl", S("arrays.npz"))
check("--name twice: both tensors", rc == 0 and [json.loads(l)["name"] for l in out.splitlines()] == ["ids", "mask"],
      out[:200])

sys.exit(tally.summary())
