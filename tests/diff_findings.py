#!/usr/bin/python3
"""`tensor-inspect diff` on what a new user reported: tensors it cannot decode, a sharded
index with a shard missing, and `--jsonl`.

    /usr/bin/python3 tests/diff_findings.py path/to/tensor-inspect

- A tensor whose values the tool cannot decode (GGUF Q8_1, safetensors C64, PyTorch
  ComplexFloatStorage) is compared by its stored bytes: equal bytes are `same`, other bytes
  `differs` with the figures null and a note naming the first differing byte (found here with
  Python's bytes); every other tensor is compared as usual (figures against NumPy). Against a
  decoded tensor it is a dtype mismatch; where its bytes are not the tensor's in order (a
  saved transpose) it is `not_comparable`, and the run goes on (exit 1, not 2).
- A shard the index names but that cannot be read is heard of on stderr (the shard file and a
  tensor it should hold) whenever the run goes on without it; a run that needs one of its
  tensors (`--stats`, `--fail-on`, a pair to compare) is trouble: exit 2, stdout empty.
- `--ignore-dtype` lets the values decide a pair of different dtypes (float32 against float16:
  `same` within rtol 0.05, `differs` within 1e-3; max_rel from NumPy), the dtypes still shown.
- `diff --jsonl` streams one `diff_tensor` line per pair with the keys of `--json`'s rows, then
  a `diff_summary` line; every line is read by the stdlib json module and checked against
  schemas/<kind>.schema.json.
Closes with `N passed, M failed`.
"""
import json, os, struct, subprocess, sys, tempfile

import numpy as np

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "samples"))
from make_safetensors_samples import write_safetensors  # noqa: E402
from make_gguf_samples import write_gguf  # noqa: E402
from user_faults_common import write_pt  # noqa: E402

import tally
from tally import check

try:
  import jsonschema
except ImportError:  # python3-jsonschema is in scripts/test.sh; without it, schema checks fail
  jsonschema = None

tally.passes = False



def schema_ok(what, doc):
  if jsonschema is None:
    return check(f"{what}: schema", False, "python3-jsonschema is not installed")
  with open(os.path.join(ROOT, "schemas", f"{doc.get('kind')}.schema.json")) as f:
    schema = json.load(f)
  try:
    jsonschema.validate(doc, schema)
    check(f"{what}: schema {doc['kind']}", True)
  except jsonschema.ValidationError as e:
    check(f"{what}: schema {doc['kind']}", False, e.message)


def run(*args):
  p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=60)
  return p.returncode, p.stdout, p.stderr


def diff_json(what, *args, code):
  rc, out, err = run("diff", *args, "--json")
  check(f"{what}: exit status", rc == code, f"got {rc}, want {code}; stderr {err!r}")
  try:
    doc = json.loads(out)
  except ValueError as e:
    check(f"{what}: JSON", False, f"{e}: {out[:300]!r}")
    return None, err
  schema_ok(what, doc)
  return doc, err


def rows(doc):
  return {(r["name_a"] if r["name_a"] is not None else r["name_b"]): r for r in doc["tensors"]} if doc else {}


T = tempfile.mkdtemp(prefix="ti_findings_")
P = lambda name: os.path.join(T, name)
QUANTS = os.path.join(ROOT, "samples", "quants.gguf")
rng = np.random.default_rng(11)


def first_difference(x, y):
  return next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), None if len(x) == len(y) else min(len(x), len(y)))


# ---- 1. a GGUF tensor the tool cannot dequantize (Q8_1, ggml type 9) ----
for extra in ([], ["--exact"]):
  doc, err = diff_json(f"quants.gguf against itself {extra}", QUANTS, QUANTS, *extra, code=0)
  r = rows(doc)
  check(f"quants.gguf {extra}: "
        f"all 18 compared, all same", doc and doc["summary"]["same"] == 18 and doc["summary"]["compared"] == 18, doc and
        doc["summary"])
  iq = r.get("q8_1", {})
  check(
      f"quants.gguf {extra}: q8_1 same by its stored bytes, figures null, a note",
      iq.get("status") == "same" and iq.get("numel") == 32 and iq.get("mismatched") == 0 and
      all(iq.get(k) is None for k in ("max_abs", "max_rel", "rmse", "cosine")) and
      "stored bytes equal" in (iq.get("note") or ""), iq)
  check(f"quants.gguf {extra}: "
        f"decoded tensors have no note", all(v["note"] is None for k, v in r.items() if k != "q8_1"), r)
rc, out, err = run("diff", QUANTS, QUANTS)
lines = out.splitlines()
check("quants.gguf text: exit 0, a row per tensor and the counts", rc == 0 and len(lines) == 20 and
      lines[-1].startswith("0 of 18 compared tensors differ"), (rc, out, err))
iq_line = next((l for l in lines if l.startswith("q8_1")), "")
check("quants.gguf text: q8_1 same, figures '-', the note", iq_line.split()[1:6] == ["same", "-", "-", "-", "-"] and
      "stored bytes equal" in iq_line, iq_line)

f = rng.standard_normal((2, 3)).astype("<f4")
iq_a = rng.integers(0, 256, 2 * 36, dtype=np.uint8).tobytes()  # two Q8_1 blocks of 32 elements
iq_b = bytearray(iq_a)
iq_b[23] ^= 0x10
iq_b = bytes(iq_b)
write_gguf(P("a.gguf"), [("f", f.shape, 0, f.tobytes()), ("iq", (64,), 9, iq_a)])
write_gguf(P("b.gguf"), [("f", f.shape, 0, f.tobytes()), ("iq", (64,), 9, iq_b)])
at = first_difference(iq_a, iq_b)
for extra in ([], ["--exact"]):
  doc, err = diff_json(f"Q8_1 bytes changed {extra}", P("a.gguf"), P("b.gguf"), *extra, code=1)
  r = rows(doc)
  iq = r.get("iq", {})
  check(
      f"Q8_1 bytes changed {extra}: differs, "
      f"figures and count null, the first byte named",
      iq.get("status") == "differs" and iq.get("numel") == 64 and iq.get("mismatched") is None and
      iq.get("first_mismatch") is None and all(iq.get(k) is None for k in ("max_abs", "max_rel", "rmse", "cosine")) and
      f"first at byte {at} of {len(iq_a)}" in (iq.get("note") or ""), iq)
  fr = r.get("f", {})
  check(
      f"Q8_1 bytes changed {extra}: the F32 tensor "
      f"still compared, same as NumPy has it",
      fr.get("status") == "same" and fr.get("numel") == f.size and
      fr.get("mismatched") == int(np.count_nonzero(f != f)) and fr.get("max_abs") == 0.0, fr)
  check(f"Q8_1 bytes changed {extra}: summary", doc and doc["summary"]["same"] == 1 and doc["summary"]["differs"] == 1,
        doc and doc["summary"])
rc, out, err = run("diff", P("a.gguf"), P("b.gguf"))
iq_line = next((l for l in out.splitlines() if l.startswith("iq ")), "")
check("Q8_1 bytes changed, text: exit 1, differs, the byte", rc == 1 and iq_line.split()[1] == "differs" and
      f"first at byte {at} of {len(iq_a)}" in iq_line, (rc, out, err))

write_gguf(P("c.gguf"), [("f", f.shape, 0, f.tobytes()), ("iq", (64,), 0, np.zeros(64, "<f4").tobytes())])
doc, err = diff_json("Q8_1 against F32", P("a.gguf"), P("c.gguf"), code=1)
iq = rows(doc).get("iq", {})
check(
    "Q8_1 against F32: a dtype mismatch naming the undecoded side, no error",
    iq.get("status") == "dtype_mismatch" and iq.get("dtype_a") == "Q8_1" and iq.get("dtype_b") == "float32" and
    "A's" in (iq.get("note") or "") and err == "", (iq, err))

# ---- 1. a safetensors tag tinygrad has no dtype for (C64: complex64) ----
z = (rng.standard_normal(6) + 1j * rng.standard_normal(6)).astype("<c8")
z2 = z.copy()
z2[4] = z2[4] + 1j
write_safetensors(P("z1.safetensors"), [("z", "C64", z.shape, z.tobytes()), ("w", "F32", f.shape, f.tobytes())])
write_safetensors(P("z2.safetensors"), [("z", "C64", z.shape, z2.tobytes()), ("w", "F32", f.shape, f.tobytes())])
doc, err = diff_json("C64 same", P("z1.safetensors"), P("z1.safetensors"), code=0)
check("C64 same: by stored bytes",
      rows(doc).get("z", {}).get("status") == "same" and rows(doc)["z"]["note"],
      rows(doc).get("z"))
doc, err = diff_json("C64 changed", P("z1.safetensors"), P("z2.safetensors"), code=1)
zr = rows(doc).get("z", {})
at = first_difference(z.tobytes(), z2.tobytes())
check(
    "C64 changed: differs at the first changed byte, w same",
    zr.get("status") == "differs" and f"first at byte {at} of {z.nbytes}" in (zr.get("note") or "") and
    rows(doc).get("w", {}).get("status") == "same", (zr, at))

# ---- 1b. a PyTorch storage type tinygrad has no dtype for (ComplexFloatStorage: complex64) ----
# Before: the whole diff was trouble (exit 2, "storage type torch.ComplexFloatStorage is not
# supported"). Now its stored bytes are compared as safetensors' C64 above, the other tensors
# as usual; a strided view of such a storage (a saved transpose: its bytes are not the
# tensor's in order) is not comparable: the run goes on and exits 1.
pt_z = lambda data, size=(6,), stride=(1,): ("ComplexFloatStorage", data, 6, list(size), list(stride))
pt_w = ("FloatStorage", f.tobytes(), f.size, list(f.shape), [3, 1])
write_pt(P("z1.pt"), {"z": pt_z(z.tobytes()), "w": pt_w})
write_pt(P("z2.pt"), {"z": pt_z(z2.tobytes()), "w": pt_w})
doc, err = diff_json("PyTorch complex same", P("z1.pt"), P("z1.pt"), code=0)
zr, wr = rows(doc).get("z", {}), rows(doc).get("w", {})
check(
    "PyTorch complex same: by stored bytes, w compared",
    zr.get("status") == "same" and zr.get("numel") == 6 and "stored bytes equal" in (zr.get("note") or "") and
    wr.get("status") == "same" and wr.get("numel") == f.size, (zr, wr, err))
doc, err = diff_json("PyTorch complex changed", P("z1.pt"), P("z2.pt"), code=1)
zr, wr = rows(doc).get("z", {}), rows(doc).get("w", {})
check(
    "PyTorch complex changed: differs at the first changed byte, w same",
    zr.get("status") == "differs" and f"first at byte {at} of {z.nbytes}" in (zr.get("note") or "") and
    wr.get("status") == "same" and wr.get("mismatched") == 0, (zr, wr))
rc, out, err = run("diff", P("z1.pt"), P("z2.pt"))
z_line = next((l for l in out.splitlines() if l.startswith("z ")), "")
check("PyTorch complex changed, text: "
      "exit 1, z differs naming the byte", rc == 1 and z_line.split()[1:2] == ["differs"] and
      f"first at byte {at} of {z.nbytes}" in z_line, (rc, out, err))
zt = z.reshape(3, 2)  # stored (3, 2), saved as its transpose: size (2, 3), stride (1, 2)
write_pt(P("zt1.pt"), {"z": pt_z(zt.tobytes(), (2, 3), (1, 2)), "w": pt_w})
write_pt(P("zt2.pt"), {"z": pt_z(zt.tobytes(), (2, 3), (1, 2)), "w": pt_w})
doc, err = diff_json("PyTorch complex transposed", P("zt1.pt"), P("zt2.pt"), code=1)
zr, wr = rows(doc).get("z", {}), rows(doc).get("w", {})
check(
    "PyTorch complex transposed: not "
    "comparable, with a note, w still compared",
    zr.get("status") == "not_comparable" and zr.get("note") and zr.get("numel") is None and
    wr.get("status") == "same" and doc["summary"]["not_comparable"] == 1 and doc["summary"]["compared"] == 1 and
    doc["summary"]["same"] == 1, (zr, wr, doc and doc["summary"], err))
rc, out, err = run("diff", P("zt1.pt"), P("zt2.pt"))
check(
    "PyTorch complex transposed, text: exit 1, z not comparable, counted", rc == 1 and
    any(l.startswith("z ") and "not comparable" in l for l in out.splitlines()) and
    "1 not comparable" in out.splitlines()[-1], (rc, out, err))

# ---- 2. a sharded index with a shard missing ----
os.makedirs(P("idx"), exist_ok=True)
b1 = rng.standard_normal(4).astype("<f4")
write_safetensors(P("idx/s1.safetensors"), [("w", "F32", f.shape, f.tobytes())])
with open(P("idx/model.safetensors.index.json"), "w") as fh:
  json.dump({"weight_map": {"w": "s1.safetensors", "bias": "s2.safetensors", "head": "s2.safetensors"}}, fh)
write_safetensors(P("full.safetensors"), [("w", "F32", f.shape, f.tobytes()), ("bias", "F32", b1.shape, b1.tobytes())])
write_safetensors(P("w_only.safetensors"), [("w", "F32", f.shape, f.tobytes())])
INDEX = P("idx/model.safetensors.index.json")


def warned(err):
  return "warning" in err and "s2.safetensors" in err and ("'bias'" in err or "'head'" in err)


def trouble(what, args):
  rc, out, err = run(*args)
  check(
      f"{what}: exit 2, stdout empty, one line naming the shard and a tensor", rc == 2 and out == "" and
      len(err.strip().splitlines()) == 1 and "s2.safetensors" in err and ("'bias'" in err or "'head'" in err),
      (rc, out, err))


rc, out, err = run("diff", INDEX, P("full.safetensors"), "--name", "w")
check("missing shard, diff --name w: the pair "
      "compared (exit 0) and the shard warned of", rc == 0 and "same" in out and warned(err), (rc, out, err))
doc, err = diff_json("missing shard vs a file without its tensors", INDEX, P("w_only.safetensors"), code=1)
check("missing shard vs a file without "
      "its tensors: only in A, and warned", doc and doc["summary"]["only_in_a"] == 2 and warned(err),
      (doc and doc["summary"], err))
trouble("missing shard, diff of a tensor it holds", ["diff", INDEX, P("full.safetensors")])
trouble("missing shard, --stats", [INDEX, "--stats"])
trouble("missing shard, --stats --json", [INDEX, "--stats", "--json"])
trouble("missing shard, --fail-on nan", [INDEX, "--fail-on", "nan"])
trouble("missing shard, --fail-on nan --json", [INDEX, "--fail-on", "nan", "--json"])
rc, out, err = run(INDEX, "--fail-on", "nan,inf", "--name", "w")
check("missing shard, --fail-on --name w: clean (exit 0) but warned", rc == 0 and warned(err), (rc, out, err))

# ---- 3. diff --jsonl ----
for what, a, b in [("Q8_1 changed", P("a.gguf"), P("b.gguf")), ("quants", QUANTS, QUANTS),
                   ("only in A", INDEX, P("w_only.safetensors"))]:
  rc_j, out_j, _ = run("diff", a, b, "--json")
  rc_l, out_l, err_l = run("diff", a, b, "--jsonl")
  check(f"--jsonl {what}: exit status as --json", rc_l == rc_j, (rc_l, rc_j, err_l))
  try:
    whole = json.loads(out_j)
    lines = [json.loads(l) for l in out_l.splitlines()]
  except ValueError as e:
    check(f"--jsonl {what}: every line is JSON", False, f"{e}: {out_j[:200]!r} {out_l[:200]!r}")
    continue
  if not lines:
    check(f"--jsonl {what}: lines", False, err_l)
    continue
  check(
      f"--jsonl {what}: a line per pair, then the summary",
      len(lines) == len(whole["tensors"]) + 1 and all(d["kind"] == "diff_tensor" for d in lines[:-1]) and
      lines[-1]["kind"] == "diff_summary", [d.get("kind") for d in lines])
  for d in lines:
    schema_ok(f"--jsonl {what}", d)
  strip = lambda d: {k: v for k, v in d.items() if k not in ("schema_version", "kind")}
  check(f"--jsonl {what}: pair lines are "
        f"--json's rows, same keys and values", [strip(d) for d in lines[:-1]] == whole["tensors"],
        (lines[:2], whole["tensors"][:2]))
  check(f"--jsonl {what}: the summary "
        f"line is --json without its rows",
        strip(lines[-1]) == {k: v for k, v in strip(whole).items() if k != "tensors"}, lines[-1])
rc, out, err = run("diff", INDEX, P("full.safetensors"), "--jsonl")
lines = out.splitlines()
try:
  ok = rc == 2 and len(lines) == 1 and json.loads(lines[0])["name_a"] == "w" and json.loads(err)["kind"] == "error"
except ValueError:
  ok = False
check("--jsonl with a failing pair: the lines before stay whole, then exit 2 and one JSON error", ok, (rc, out, err))
rc, out, err = run("diff", QUANTS, QUANTS, "--json", "--jsonl")
check("--json with --jsonl: a "
      "usage error naming both", rc == 2 and out == "" and "--json" in err and "--jsonl" in err, (rc, out, err))

# ---- --ignore-dtype: a conversion check (float32 -> float16) decided by the values ----
# float16 rounds 3.1 to 3.099609375 (NumPy): within rtol 0.05 of 3.0's difference, not within 1e-3.
T = tempfile.mkdtemp(prefix="ti_ignore_dtype_")
a32, b16 = os.path.join(T, "a32.npy"), os.path.join(T, "b16.npy")
np.save(a32, np.array([1.0, 2.5, 3.0], np.float32))
np.save(b16, np.array([1.0, 2.5, 3.1], np.float16))
far = abs(3.0 - float(np.float16(3.1))) / float(np.float16(3.1))
for extra, want_status, want_rc in (((), "dtype_mismatch", 1), (("--ignore-dtype", "--rtol", "0.05"), "same", 0),
                                     (("--ignore-dtype", "--rtol", "1e-3"), "differs", 1)):
  rc, out, err = run("diff", a32, b16, "--json", *extra)
  try:
    doc = json.loads(out)
    row = doc["tensors"][0]
    ok = (rc == want_rc and row["status"] == want_status and row["dtype_a"] == "float32" and
          row["dtype_b"] == "float16" and doc["ignore_dtype"] == bool(extra) and abs(row["max_rel"] - far) < 1e-12)
    schema_ok(f"--ignore-dtype {extra}", doc)
  except (ValueError, KeyError, IndexError, TypeError):
    ok = False
  check(f"float32 vs float16 {' '.join(extra) or '(default)'}: {want_status}, exit {want_rc}", ok, (rc, out[:300], err))
rc, out, err = run("diff", a32, b16, "--ignore-dtype", "--rtol", "0.05")
check("--ignore-dtype text names both dtypes beside the status", rc == 0 and "same (float32 vs float16)" in out, out)

sys.exit(tally.summary())
