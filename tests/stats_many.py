#!/usr/bin/python3
"""--stats, --hist, --plot and --fail-on over many tensors (--name globs, --all, a whole
file with --jsonl), through the CLI, against NumPy computed here independently.

    /usr/bin/python3 tests/stats_many.py path/to/tensor-inspect

A safetensors checkpoint written with the samples' writer holds float32, float16, int64
and a tensor with one NaN. Each --jsonl line (one "stats" object per tensor, read by jq
line by line) and each file_stats row must match NumPy's min, max, mean, std (float64,
finite values, relative 1e-9) and nan counts, in file order, for exactly the selected
tensors; --hist blocks and JSON bins match np.histogram; --plot with {name} writes one
PNG per tensor, and none when a later tensor fails; --fail-on over a tensor it cannot decode
(a GGUF Q8_1) is trouble, never a pass; the refusals exit 2. Closes with `N passed, M failed`.
"""
import fnmatch, io, json, math, os, shutil, struct, subprocess, sys, tempfile, zipfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally  # noqa: E402
tally.passes = False
check = tally.check

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "samples"))
from make_safetensors_samples import write_safetensors  # noqa: E402
from make_gguf_samples import write_gguf  # noqa: E402



def run(*args):
  p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120)
  return p.returncode, p.stdout, p.stderr


T = tempfile.mkdtemp(prefix="ti_stats_many_")
rng = np.random.default_rng(11)
tensors = {
  "model.layers.0.mlp.up.weight": rng.standard_normal((16, 8)).astype("<f4"),
  "model.layers.0.mlp.down.weight": (rng.standard_normal((8, 16)) * 3).astype("<f2"),
  "model.layers.0.attn.q.weight": rng.standard_normal((8, 8)).astype("<f4"),
  "model.layers.1.mlp.up.weight": rng.standard_normal((16, 8)).astype("<f4"),
  "model.position_ids": np.arange(-5, 300, dtype="<i8"),
  "model.norm.weight": np.ones(8, "<f4"),
}
tensors["model.layers.1.mlp.up.weight"][3, 2] = np.nan
TAGS = {"float32": "F32", "float16": "F16", "int64": "I64"}
path = os.path.join(T, "model.safetensors")
write_safetensors(path, [(n, TAGS[a.dtype.name], a.shape, a.tobytes()) for n, a in tensors.items()])
names = list(tensors)


def close(x, y):
  return x == y or (x is not None and y is not None and abs(x - y) <= 1e-9 * max(abs(x), abs(y)))


def expect_row(what, row, name, scale=1.0):
  a = tensors[name].astype(np.float64) * scale
  fin = a[np.isfinite(a)]
  want = {"min": fin.min(), "max": fin.max(), "mean": fin.mean(), "std": fin.std()}
  for k, v in want.items():
    check(f"{what} {name}: {k}", row is not None and close(row.get(k), float(v)),
          f"got {row and row.get(k)}, NumPy {v}")
  check(f"{what} {name}: nan count", row is not None and row.get("nan") == int(np.isnan(a).sum()), row and
        row.get("nan"))


def jsonl(what, *args, code=0):
  rc, out, err = run(*args)
  check(f"{what}: exit {code}", rc == code, (rc, err))
  jq = shutil.which("jq")
  if jq:
    p = subprocess.run([jq, "-c", "."], input=out, capture_output=True, text=True)
    check(f"{what}: jq reads it line by line", p.returncode == 0 and
          len(p.stdout.splitlines()) == len(out.splitlines()), p.stderr)
  return [json.loads(line) for line in out.splitlines()]


# ---- --stats --jsonl over a glob: one stats object per selected tensor, in file order ----
glob = "model.layers.*.mlp.*"
chosen = [n for n in names if fnmatch.fnmatchcase(n, glob)]
lines = jsonl("glob --stats --jsonl", path, "--name", glob, "--stats", "--jsonl")
check("glob --stats --jsonl: the "
      "selected tensors, in file order", [d["name"] for d in lines] == chosen, [d["name"] for d in lines])
check("glob --stats --jsonl: kind stats", all(d["kind"] == "stats" and d["histogram"] is None for d in lines))
for d in lines:
  expect_row("glob --stats --jsonl", d, d["name"])

# the same keys as --stats --json of one tensor
rc, out, err = run(path, "--name", chosen[0], "--stats", "--json")
one = json.loads(out) if rc == 0 else {}
check("--jsonl rows have the "
      "keys of --stats --json", lines and list(one) == list(lines[0]), (list(one), lines and list(lines[0])))

# ---- the whole file, streamed; --all; --json over a selection ----
lines = jsonl("whole file --stats --jsonl", path, "--stats", "--jsonl")
check("whole file --stats --jsonl: every tensor", [d["name"] for d in lines] == names, [d["name"] for d in lines])
for d in lines:
  expect_row("whole file --stats --jsonl", d, d["name"])
rc, out, err = run(path, "--name", "*.up.weight", "--name", "model.norm.weight", "--stats", "--json")
doc = json.loads(out) if rc == 0 else {"tensors": []}
want = [n for n in names if fnmatch.fnmatchcase(n, "*.up.weight") or n == "model.norm.weight"]
check(
    "selection --stats --json: file_stats of the selection",
    doc.get("kind") == "file_stats" and [r["name"] for r in doc["tensors"]] == want and
    doc["totals"]["tensors"] == len(want), (rc, err, doc.get("totals")))
check("selection --stats --json: parameters",
      doc.get("totals", {}).get("parameters") == sum(tensors[n].size for n in want))
for r in doc["tensors"]:
  expect_row("selection --stats --json", r, r["name"])
rc, out, err = run(path, "--name", "model.layers.0.*", "--stats")
table = [l.split()[0] for l in out.splitlines()[1:] if l and not l.startswith("total")]
check("selection --stats text: "
      "a table of the selection", rc == 0 and table == [n for n in names if n.startswith("model.layers.0.")],
      (rc, out, err))
lines = jsonl("-e over --all --stats --jsonl", path, "--all", "-e", "x * 2", "--stats", "--jsonl")
for d in lines:
  if d["name"] != "model.position_ids":  # int64 * 2 stays int64: exact, compared below
    expect_row("-e 'x * 2' --all --stats", d, d["name"], scale=2.0)
ids = [d for d in lines if d["name"] == "model.position_ids"]
check("-e 'x * 2': int64 exact", ids and ids[0]["min"] == -10 and ids[0]["max"] == 598, ids)

# ---- --hist over many: text blocks under names, JSON bins per line ----
rc, out, err = run(path, "--name", "model.layers.0.*", "--hist=5")
blocks = [l[3:-3] for l in out.splitlines() if l.startswith("== ")]
check("--hist over a glob: a block per tensor", rc == 0 and
      blocks == [n for n in names if n.startswith("model.layers.0.")], (rc, blocks, err))
lines = jsonl("--hist --jsonl", path, "--all", "--hist=5", "--jsonl")
for d in lines:
  a = tensors[d["name"]].astype(np.float64)
  fin = a[np.isfinite(a)]
  counts, _ = np.histogram(fin, 5, range=(fin.min(), fin.max()))
  check(f"--hist --jsonl {d['name']}: "
        f"np.histogram's counts", d["histogram"] and d["histogram"]["counts"] == counts.tolist(),
        (d["histogram"], counts))
rc, out, err = run(path, "--all", "--hist=5", "--json")
check("--hist over many in one JSON object: refused, exit 2", rc == 2 and out == "" and "--jsonl" in err, (rc, err))

# ---- --plot over many: {name} in the path, else a clear refusal ----
pattern = os.path.join(T, "plots", "h-{name}.png")
os.makedirs(os.path.dirname(pattern))
rc, out, err = run(path, "--name", "model.layers.*.mlp.up.weight", "--plot", pattern)
for n in [n for n in names if fnmatch.fnmatchcase(n, "model.layers.*.mlp.up.weight")]:
  png = pattern.replace("{name}", n)
  ok = os.path.exists(png)
  if ok:
    with open(png, "rb") as f:
      head = f.read(24)
    ok = head[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", head[16:24])[0] > 0
  check(f"--plot with {{name}}: "
        f"{os.path.basename(png)}", rc == 0 and ok, (rc, err, sorted(os.listdir(os.path.dirname(pattern)))))
check("--plot with {name}: nothing else",
      len(os.listdir(os.path.dirname(pattern))) == 2, os.listdir(os.path.dirname(pattern)))
rc, out, err = run(path, "--all", "--plot", os.path.join(T, "one.png"))
check("--plot over many without {name}: exit 2, says how", rc == 2 and out == "" and "{name}" in err and
      not os.path.exists(os.path.join(T, "one.png")), (rc, err))
rc, out, err = run(path, "--hist=5")
check("--hist on a whole file without a selection: exit 2, names --all", rc == 2 and "--all" in err, (rc, err))

# ---- a run that fails on a later tensor leaves no PNG behind (the earlier ones stayed) ----
# An .npz whose second member's deflate stream is damaged half-way: its values fail as they
# are read, after the first member's statistics (and picture) are done.
def npy_bytes(a):
  b = io.BytesIO()
  np.save(b, a)
  return b.getvalue()


good, broken = os.path.join(T, "good.npz"), os.path.join(T, "broken.npz")
with zipfile.ZipFile(good, "w", zipfile.ZIP_DEFLATED) as z:
  z.writestr("a.npy", npy_bytes(np.arange(1000, dtype=np.float32).reshape(20, 50)))
  z.writestr("b.npy", npy_bytes(rng.integers(0, 10, (400, 500)).astype(np.int8)))
data = bytearray(open(good, "rb").read())
info = zipfile.ZipFile(good).getinfo("b.npy")
name_len, extra_len = struct.unpack_from("<HH", data, info.header_offset + 26)
at = info.header_offset + 30 + name_len + extra_len + info.compress_size // 2
data[at:at + 64] = bytes(x ^ 0x5A for x in data[at:at + 64])
open(broken, "wb").write(bytes(data))
folder = os.path.join(T, "plots-failed")
os.makedirs(folder)
for kind in ("hist", "heatmap"):
  for mode in ([], ["--jsonl"], ["--hist=4"]):
    for f in os.listdir(folder):
      os.remove(os.path.join(folder, f))
    with open(os.path.join(folder, "p-a.png"), "wb") as f:
      f.write(b"a picture from before")
    rc, out, err = run(broken, "--all", "--plot", os.path.join(folder, "p-{name}.png"), "--plot-kind", kind, *mode)
    with open(os.path.join(folder, "p-a.png"), "rb") as f:
      kept = f.read()
    check(
        f"--plot-kind {kind} {mode} over a file whose 2nd tensor fails: exit 2 naming it, no PNG left, none replaced",
        rc == 2 and "tensor 'b'" in err and os.listdir(folder) == ["p-a.png"] and
        kept == b"a picture from before" and (out == "" if not mode or mode[0] != "--jsonl" else all(
            json.loads(l)["name"] == "a" for l in out.splitlines())), (rc, out[:200], err, os.listdir(folder)))
  rc, out, err = run(good, "--all", "--plot", os.path.join(folder, "p-{name}.png"), "--plot-kind", kind)
  pngs = sorted(os.listdir(folder))
  heads = [open(os.path.join(folder, n), "rb").read(8) for n in pngs]
  check(f"--plot-kind {kind} over the sound "
        f"file: both PNGs, nothing else", rc == 0 and pngs == ["p-a.png", "p-b.png"] and
        all(h == b"\x89PNG\r\n\x1a\n" for h in heads), (rc, err, pngs))
rc, out, err = run(good, "--all", "--plot", os.path.join(T, "no-such-folder", "p-{name}.png"))
check("--plot into a missing folder: exit 2 naming the PNG's path, not a temporary one", rc == 2 and out == "" and
      f"{os.path.join(T, 'no-such-folder', 'p-a.png')}: "
      f"cannot write the PNG file" in err, (rc, err))

# ---- --fail-on over many ----
lines = jsonl("--fail-on nan --all --jsonl", path, "--all", "--fail-on", "nan", "--jsonl", code=1)
bad = [d["name"] for d in lines if d["failed"]]
check("--fail-on nan --jsonl: names the NaN tensor", bad == ["model.layers.1.mlp.up.weight"], bad)
rc, out, err = run(path, "--name", "model.layers.0.*", "--fail-on", "nan,inf")
check("--fail-on over a clean selection: exit 0", rc == 0 and "ok" in out, (rc, out, err))
rc, out, err = run(path, "--name", "*.up.weight", "--fail-on", "nan")
check("--fail-on over a selection "
      "with NaN: exit 1, named", rc == 1 and "model.layers.1.mlp.up.weight" in out, (rc, out, err))

# ---- --fail-on over a tensor it cannot decode: trouble, never a pass ----
# GGUF type 9 (Q8_1) is listed but not dequantized; it was "not checked" with exit 0.
gguf = os.path.join(T, "unchecked.gguf")
clean = np.linspace(-1, 1, 64, dtype="<f4")
write_gguf(gguf, [("a", clean.shape, 0, clean.tobytes()), ("iq", (64,), 9, bytes(72)),
                  ("z", (4,), 0, np.ones(4, "<f4").tobytes())])
for args in ([], ["--json"], ["--jsonl"], ["--stats"], ["--name", "*"], ["--name", "*",
                                                                         "--jsonl"], ["--all", "--stats",
                                                                                      "--json"], ["--name", "iq"]):
  rc, out, err = run(gguf, "--fail-on", "nan,inf", *args)
  lines = err.splitlines()
  message = json.loads(lines[0])["error"]["message"] if len(lines) == 1 and lines[0].startswith("{") else (lines or
                                                                                                           [""])[0]
  check(
      f"--fail-on {args}, a tensor it cannot decode: exit 2, "
      f"nothing printed, one line naming the file and the tensor", rc == 2 and out == "" and len(lines) == 1 and
      f"{gguf}: tensor 'iq'" in message and "--fail-on" in message, (rc, out, err))
rc, out, err = run(gguf, "--name", "[az]", "--fail-on", "nan,inf")
check("--fail-on over the tensors it "
      "can decode: exit 0, both checked", rc == 0 and "ok, 2 of 2 tensors checked" in out, (rc, out, err))
rc, out, err = run(gguf, "--stats", "--json")
rows = {r["name"]: r for r in json.loads(out)["tensors"]} if rc == 0 else {}
check("--stats alone still lists it as skipped, exit 0", rc == 0 and rows.get("iq", {}).get("skipped") and
      rows["a"]["max"] == 1.0, (rc, err, rows.get("iq")))
rc, out, err = run(gguf, "--name", "iq", "--stats")
check("--stats of that one tensor: exit 2 naming it (it printed the statistics of nothing)", rc == 2 and out == "" and
      f"{gguf}: tensor 'iq'" in err, (rc, out, err))

shutil.rmtree(T, ignore_errors=True)
sys.exit(tally.summary())
