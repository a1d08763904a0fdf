#!/usr/bin/python3
"""Every JSON output of every mode against its schema, and keys that never depend on
what a file holds.

    /usr/bin/python3 tests/json_kinds.py path/to/tensor-inspect

Each case runs the CLI on samples of different contents (float, int, bool, empty, 0-d,
bfloat16, quantized, literal, expression) and modes (inspect, --header, summaries,
--list, --meta, --stats, --hist, --fail-on, file statistics, selections, diff, validate,
--expect/--assert, --jsonl streams, errors on stderr). Every object (every line of a
--jsonl stream) must validate against schemas/<kind>.schema.json (Debian's
python3-jsonschema), and within a group of cases that differ only by input, every object
must have the same keys at every depth (objects inside arrays included). jq must read
each --jsonl stream line by line. Closes with `N passed, M failed`.
"""
import glob, json, os, shutil, struct, subprocess, sys, tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally  # noqa: E402
tally.passes = False
check = tally.check

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
S = lambda name: os.path.join(ROOT, "samples", name)
T = tempfile.mkdtemp(prefix="ti_kinds_")
P = lambda name: os.path.join(T, name)


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
  check("python3-jsonschema installed", False, f"{e}: scripts/test.sh installs it")


def validate(what, doc):
  if jsonschema is None:
    return
  kind = doc.get("kind") if isinstance(doc, dict) else None
  check(f"{what}: schema_version 1", isinstance(doc, dict) and doc.get("schema_version") == 1, str(doc)[:200])
  sid = f"{kind}.schema.json"
  if sid not in schemas:
    check(f"{what}: a schema for kind {kind!r}", False, str(doc)[:200])
    return
  try:
    resolver = jsonschema.RefResolver(base_uri=sid, referrer=schemas[sid], store=dict(schemas))
    jsonschema.Draft202012Validator(schemas[sid], resolver=resolver).validate(doc)
    check(f"{what}: valid {kind}", True)
  except jsonschema.ValidationError as e:
    check(f"{what}: valid {kind}", False, f"{e.message} at {list(e.absolute_path)}")


def key_paths(doc, path="", out=None):
  """path -> the key set of the object there ('tensors[]' for objects inside arrays)."""
  out = {} if out is None else out
  if isinstance(doc, dict):
    keys = tuple(sorted(doc))
    if path in out and out[path] != keys:
      out[path] = ("<differs inside one object>", out[path], keys)
    out.setdefault(path, keys)
    for k, v in doc.items():
      key_paths(v, f"{path}.{k}", out)
  elif isinstance(doc, list):
    for v in doc:
      key_paths(v, path + "[]", out)
  return out


def run(args, stdin=None):
  p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120, cwd=ROOT, input=stdin)
  return p.returncode, p.stdout, p.stderr


groups = {}


def case(group, what, args, code=0, stream="stdout", lines=False):
  """Runs one case; validates its object(s); files them under `group` for the key check."""
  rc, out, err = run(args)
  check(f"{what}: exit {code}", rc == code, f"got {rc}; stderr {err[:300]!r}")
  text = out if stream == "stdout" else err
  if stream == "stderr":
    check(f"{what}: nothing on stdout", out == "", out[:200])
  docs = []
  for i, line in enumerate(text.splitlines() if lines else [text]):
    try:
      docs.append(json.loads(line))
    except ValueError as e:
      check(f"{what}: JSON (line {i + 1})", False, f"{e}: {line[:200]!r}")
  if lines:
    check(f"{what}: one object per line", len(docs) == len(text.splitlines()) and len(docs) > 0, text[:200])
    jq = shutil.which("jq")
    if jq:  # jq reads the stream line by line, each line a whole object
      # (jq 1.6 reads numbers as doubles: compare what it cannot round)
      p = subprocess.run([jq, "-c", "[.schema_version, .kind, .name]"], input=text, capture_output=True, text=True)
      check(f"{what}: jq reads every line", p.returncode == 0 and [json.loads(x) for x in p.stdout.splitlines()] ==
            [[d.get("schema_version"), d.get("kind"), d.get("name")] for d in docs], p.stderr)
    else:
      check("jq installed", False, "scripts/test.sh installs jq")
  for d in docs:
    validate(what, d)
    groups.setdefault(group, []).append((what, d))
  return docs


# ---- inputs of every content ----
np.save(P("f32.npy"), np.array([[1.5, -2.0, np.nan], [np.inf, 0.0, 3.25]], np.float32))
np.save(P("u64.npy"), np.array([2**64 - 1, 0, 2**53 + 1], np.uint64))
np.save(P("empty.npy"), np.zeros((0, 3), np.float32))
np.save(P("zero_d.npy"), np.array(7, np.int16))
np.save(P("bools.npy"), np.array([True, False, True]))
with open(P("broken.safetensors"), "wb") as f:  # data_offsets past the data: validate finds it
  head = json.dumps({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 16]}}).encode()
  f.write(len(head).to_bytes(8, "little") + head + bytes(8))

tensor_inputs = [
  ("float32 with nan/inf", [P("f32.npy")]),
  ("uint64 beyond 2**53", [P("u64.npy")]),
  ("empty", [P("empty.npy")]),
  ("0-d", [P("zero_d.npy")]),
  ("bool", [P("bools.npy")]),
  ("bfloat16 (no format)", [S("mixed.safetensors"), "--name", "bf16"]),
  ("GGUF Q4_K, dequantized", [S("quants.gguf"), "--name", "q4_k"]),
  ("literal", ["[[1, 2], [3, 4]]"]),
  ("weak scalar literal", ["5"]),
  ("expression", ["-e", "Tensor.arange(6).reshape(2, 3) * 0.5"]),
  ("PyTorch tensor", [S("state_dict.pt"), "--name", "w32"]),
  ("npz member", [S("arrays.npz"), "--name", "ids"]),
]
for what, args in tensor_inputs:
  case("tensor", f"tensor: {what}", args + ["--json"])
  case("tensor --header", f"tensor --header: {what}", args + ["--header", "--json"])
  case("tensor summarized", f"tensor summarized: {what}", args + ["--json", "--threshold", "2", "--edgeitems", "1"])
  case("stats", f"stats: {what}", args + ["--stats", "--json"])
  case("stats --hist", f"stats --hist: {what}", args + ["--stats", "--hist=4", "--json"])

# stats objects say "file" and "name" as the tensor kind does: the path given (null for a
# literal or an expression), the --name given (null when unnamed), also after -e and per --jsonl line
for what, args in tensor_inputs + [
    ("a file's tensor after -e", [S("mixed.safetensors"), "--name", "weight", "-e", "x * 2"])
]:
  want = {
      "file": args[0] if os.path.isabs(args[0]) else None,
      "name": args[args.index("--name") + 1] if "--name" in args else None
  }
  for mode in (["--json"], ["--jsonl"]):
    docs = [json.loads(line) for line in run(args + ["--stats", *mode])[1].splitlines()] + \
           [json.loads(line) for line in run(args + mode)[1].splitlines()]
    got = [{"file": d.get("file", "(none)"), "name": d.get("name", "(none)")} for d in docs]
    check(f"stats {mode[0]}: {what}: file and name as the tensor kind's", got == [want, want], (got, want))

# --fail-on and --expect/--assert: the exit status is the check's, the keys the same
for what, args, code in [("nan present", [P("f32.npy")], 1), ("clean", [P("u64.npy")], 0),
                         ("empty", [P("empty.npy")], 0)]:
  case("stats --fail-on", f"stats --fail-on: {what}", args + ["--fail-on", "nan,inf,zero-tensor", "--json"], code=code)
for what, args, code in [("passes", [P("u64.npy"), "--expect", "dtype=uint64", "--assert", "x >= 0"], 0),
                         ("fails", [P("f32.npy"), "--expect", "dtype=uint64", "--assert", "x >= 0"], 1),
                         ("literal", ["[1, 2]", "--expect", "shape=2", "--assert", "x.all()"], 0)]:
  case("checks", f"checks: {what}", args + ["--json"], code=code)
  case("check lines", f"checks --jsonl: {what}", args + ["--jsonl"], code=code, lines=True)

# ---- files: listings, metadata, file statistics, selections ----
file_inputs = [
  ("safetensors", S("mixed.safetensors")),
  ("GGUF", S("quants.gguf")),  # q8_1 cannot be dequantized: statistics skip it, values refuse it
  ("PyTorch", S("state_dict.pt")),
  ("npz", S("arrays.npz")),
  ("sharded index", S("sharded/model.safetensors.index.json")),
  ("model folder", S("sharded")),
]
every = lambda what: ["--name", "[!q]*", "--name", "q[!8]*", "--name", "q8_[!1]*"] if what == "GGUF" else ["--all"]
for what, path in file_inputs + [("npy", P("f32.npy")), ("empty npy", P("empty.npy"))]:
  case("listing", f"listing: {what}", [path, "--list", "--json"])
  case("metadata", f"metadata: {what}", [path, "--meta", "--json"])
for what, path in file_inputs:
  case("file_stats", f"file stats: {what}", [path, "--stats", "--json"])
  case("stats lines", f"stats --jsonl, whole file: {what}", [path, "--stats", "--jsonl"], lines=True)
  case("tensors", f"--all --json: {what}", [path, *every(what), "--json"])
  case("tensor", f"--all --jsonl: {what}", [path, *every(what), "--jsonl"], lines=True)
  case("stats lines", f"stats --all --jsonl: {what}", [path, "--all", "--stats", "--jsonl"], lines=True)
  case("file_stats", f"stats --all --json: {what}", [path, "--all", "--stats", "--json"])
  case("stats --hist",
       f"stats --hist --all --jsonl: {what}", [path, "--all", "--stats", "--hist=3", "--jsonl"],
       lines=True)
case("listing", "listing: multi-tensor file without --name", [S("mixed.safetensors"), "--json"])
case("error", "error: --all --jsonl over a "
     "tensor that cannot be shown", [S("quants.gguf"), "--all", "--jsonl"],
     code=2,
     stream="stderr")
rc, out, err = run([S("quants.gguf"), "--all", "--stats", "--json"])
rows = {r["name"]: r for r in json.loads(out)["tensors"]} if rc == 0 else {}
check("stats --all: q8_1 skipped, "
      "as for the whole file",
      rows.get("q8_1", {}).get("skipped") and rows["q8_1"]["min"] is None, (rc, err, rows.get("q8_1")))
case("file_stats", "file stats: a glob", [S("quants.gguf"), "--name", "q*_k", "--stats", "--json"])
case("stats --fail-on lines", "fail-on --jsonl over a file", [S("float32.npy"), "--fail-on", "nan", "--jsonl"],
     code=1 if np.isnan(np.load(S("float32.npy"))).any() else 0, lines=True)

# ---- diff and validate ----
np.save(P("f32_changed.npy"), np.array([[1.5, -2.0, np.nan], [np.inf, 0.5, 3.25]], np.float32))
for what, a, b, code in [("same", P("f32.npy"), P("f32.npy"), 0), ("differs", P("f32.npy"), P("f32_changed.npy"), 1),
                         ("shape mismatch", P("f32.npy"), P("u64.npy"), 1), ("ints", P("u64.npy"), "[0, 0, 0]", 1),
                         ("only on one side", S("mixed.safetensors"), S("arrays.npz"), 1),
                         ("empty", P("empty.npy"), P("empty.npy"), 0),
                         ("a tensor compared by its stored bytes (Q8_1)", S("quants.gguf"), S("quants.gguf"), 0)]:
  case("diff", f"diff: {what}", ["diff", a, b, "--json"], code=code)
  case("diff --exact", f"diff --exact: {what}", ["diff", a, b, "--exact", "--json"], code=code)
samples = [S(n) for n in ("mixed.safetensors", "state_dict.pt", "arrays.npz", "float32.npy")]
case("validate", "validate: samples, all clean", ["validate", *samples, "--json"])
case("validate", "validate: a note (a ggml "
     "type it cannot dequantize)", ["validate", S("quants.gguf"), "--json"],
     code=0)
case("validate", "validate: a broken file", ["validate", P("broken.safetensors"), "--json"], code=1)
case("validate", "validate: a warning (pickle globals)", ["validate", S("whole_model.pt"), "--json"], code=0)
case("validate", "validate --strict: a warning fails", ["validate", S("whole_model.pt"), "--json", "--strict"], code=1)
case("stats_checks", "stats with checks in one run", [S("float32.npy"), "--stats", "--expect", "dtype=f32", "--json"])

# ---- errors: one object on stderr, with --json or --jsonl, in every mode ----
for what, args in [("bad literal", ["[1,, 2]", "--json"]), ("missing file", [P("nope.npy"), "--json"]),
                   ("glob matching nothing", [S("mixed.safetensors"), "--name", "zz*", "--jsonl"]),
                   ("bad option", ["--no-such-option", "--json"]),
                   ("stats of a corrupt file", [P("broken.safetensors"), "--stats", "--json"]),
                   ("diff of a missing file", ["diff", P("f32.npy"), P("nope.npy"), "--json"]),
                   ("validate of no tensor file", ["validate", os.path.join(ROOT, "README.md"), "--json"]),
                   ("plot over many without {name}", [S("quants.gguf"), "--all", "--plot", P("x.png"), "--json"])]:
  case("error", f"error: {what}", args, code=2, stream="stderr")

# ---- keys never depend on content: one key set per path within each group ----
for group, docs in groups.items():
  paths = {}
  for what, d in docs:
    for path, keys in key_paths(d).items():
      paths.setdefault(path, {}).setdefault(keys, []).append(what)
  for path, variants in paths.items():
    check(f"group {group!r}: keys at {path or 'top level'} fixed", len(variants) == 1,
          "; ".join(f"{list(k)} in {w[:3]}" for k, w in variants.items()))
  check(f"group {group!r}: one kind", len({d.get('kind') for _, d in docs}) == 1, {d.get("kind") for _, d in docs})

# GGUF metadata floats that are nan or ±inf: strict JSON strings, Python's words in text.
def gguf_str(b): return struct.pack("<Q", len(b)) + b
nonfinite = b"GGUF" + struct.pack("<IQQ", 3, 0, 3)
nonfinite += gguf_str(b"f") + struct.pack("<I", 6) + struct.pack("<f", float("inf"))
nonfinite += gguf_str(b"n") + struct.pack("<I", 12) + struct.pack("<d", float("nan"))
nonfinite += gguf_str(b"arr") + struct.pack("<IIQ", 9, 6, 3) + struct.pack("<3f", float("nan"), 1.5, float("-inf"))
with tempfile.TemporaryDirectory() as tmp:
  path = os.path.join(tmp, "nonfinite.gguf")
  with open(path, "wb") as f: f.write(nonfinite)
  docs = case("metadata", "metadata: nan and inf in GGUF float keys", [path, "--meta", "--json"])
  values = {m["key"]: m["value"] for m in (docs[0] if docs else {}).get("metadata", [])}
  check("metadata nan/inf: strings, not null", values.get("f") == "inf" and values.get("n") == "nan" and
        values.get("arr") == ["nan", 1.5, "-inf"], values)
  rc, out, err = run([path, "--meta"])
  check("metadata nan/inf: text", rc == 0 and "f (float32): inf" in out and "n (float64): nan" in out and
        "[nan, 1.5, -inf]" in out, out)

sys.exit(tally.summary())
