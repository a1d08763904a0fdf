#!/usr/bin/env python3
"""tests/say_what_happened.py BIN — the tool says what happened (issue 23, part 5).

1. -v logs every input kind with a time: a model folder (tensors and shard files counted
   here from the index and the folder), both sides of diff (a folder, a literal), and the
   statistics' scan (-v --stats); stdout is unchanged by -v.
2. An unknown option names the closest one ("did you mean --stats?"); a word close to none
   gets no guess.
3. Statistics of a bool tensor print absmax as its min and max are printed (True/False;
   JSON true/false), for one tensor and in a file's table; values from NumPy.
4. --assert understands `not`; `x.abs().max() < 1` passes on a tensor holding NaN after its
   first element (max selects as tinygrad's kernels do), and --fail-on nan beside it fails.
"""
import json, os, re, struct, subprocess, sys, tempfile

import numpy as np

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARDED = os.path.join(ROOT, "samples", "sharded")
failures = []


def check(what, ok, detail=""):
    if not ok: failures.append(f"{what}: {detail}")


def run(*args):
    p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


# 1. -v over every input kind
with open(os.path.join(SHARDED, "model.safetensors.index.json")) as f:
    weight_map = json.load(f)["weight_map"]
shards = sorted(n for n in os.listdir(SHARDED) if n.endswith(".safetensors"))
stored = 0
for n in shards:
    with open(os.path.join(SHARDED, n), "rb") as f:
        size = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(size))
    stored += sum(v["data_offsets"][1] - v["data_offsets"][0] for k, v in header.items() if k != "__metadata__")
folder_line = re.compile(r"sharded: folder opened as a [a-z-]+ checkpoint: %d "
                         r"tensors in %d files, %d bytes stored; [0-9.]+ ms" % (len(weight_map), len(shards), stored))
for mode in (["--list"], ["--stats"]):
    rc, quiet, qerr = run(SHARDED, *mode)
    rc_v, o, e = run("-v", SHARDED, *mode)
    check(f"-v folder {mode}: exit 0, stdout unchanged", rc == rc_v == 0 and o == quiet and not qerr, f"{rc} {rc_v}")
    check(f"-v folder {mode}: the folder is logged", folder_line.search(e), e)
rc, o, e = run("-v", SHARDED, "--stats")
check("-v --stats: the scan's time",
      re.search(r"statistics: %d tensors, %d "
                r"bytes scanned in [0-9.]+ ms" % (len(weight_map), stored), e), e)
rc, o, e = run("-v", os.path.join(ROOT, "samples", "float32.npy"), "--stats")
check("-v --stats on one "
      "tensor: the scan's time", re.search(r"statistics: 1 tensor, \d+ "
                                           r"bytes scanned in [0-9.]+ ms", e), e)
rc, o, e = run("-v", "diff", SHARDED, SHARDED)
check("-v diff folder folder: both sides", rc == 0 and re.search("A: .*" + folder_line.pattern, e) and
      re.search("B: .*" + folder_line.pattern, e), e)
rc, o, e = run("-v", "diff", "[1, 2]", os.path.join(ROOT, "samples", "int32.npy"))
check("-v diff literal file: the literal side", "A: literal, int32 (2,)" in e and "int32.npy: npy format" in e, e)
rc, o, e = run("-v", "validate", SHARDED)
check("-v validate folder: each file with its time", e.count("validated in") == len(shards) + 1, e)

# 2. did you mean
for typo, near in (("--stat", "--stats"), ("--fail-onn", "--fail-on"), ("--jsno", "--json"), ("--lsit", "--list"),
                   ("--expcet", "--expect")):
    rc, o, e = run(os.path.join(ROOT, "samples", "float32.npy"), typo)
    check(f"{typo}: did you mean {near}?", rc == 2 and not o and f"(did you mean {near}?)" in e, e)
rc, o, e = run("[1]", "--zzzzqqqq")
check("a word near no option: no guess", rc == 2 and "did you mean" not in e, e)
rc, o, e = run("validate", os.path.join(ROOT, "samples", "float32.npy"), "--strikt")
check("validate --strikt: did you mean --strict?", rc == 2 and "did you mean --strict?" in e, e)

with tempfile.TemporaryDirectory() as out:
    # 3. bool statistics
    b = np.array([[False, True, True], [False, False, True]])
    path = os.path.join(out, "b.npy")
    np.save(path, b)
    rc, o, e = run(path, "--stats")
    fields = dict(line.split(": ", 1) for line in o.splitlines() if ": " in line)
    want = {"min": repr(bool(b.min())), "max": repr(bool(b.max())), "absmax": repr(bool(np.abs(b).max()))}
    check("bool --stats: min, max and absmax alike", all(fields.get(k) == v for k, v in want.items()), o)
    rc, o, e = run(path, "--stats", "--json")
    doc = json.loads(o)
    check("bool --stats --json: "
          "absmax a JSON bool", doc["absmax"] is True and doc["max"] is True and doc["min"] is False, o)
    st = os.path.join(out, "b.safetensors")
    text = json.dumps({"flags": {"dtype": "BOOL", "shape": [6], "data_offsets": [0, 6]},
                       "w": {"dtype": "F32", "shape": [2], "data_offsets": [6, 14]}}).encode()
    text += b" " * (-(8 + len(text)) % 8)
    with open(st, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b.astype(np.uint8).tobytes() + np.array([1, -3], "<f4").tobytes())
    rc, o, e = run(st, "--stats")
    row = next((l.split() for l in o.splitlines() if l.startswith("flags")), [])
    check("bool row of a file's table: min max ... absmax", row[3:5] == ["False", "True"] and row[7] == "True", o)

    # 4. not; NaN and reductions
    x = np.array([0.5, np.nan, -0.25], dtype=np.float32)
    xp = os.path.join(out, "x.npy")
    np.save(xp, x)
    rc, o, e = run(xp, "--assert", "not x.isnan().any()")
    check("--assert 'not x.isnan().any()' fails on NaN", rc == 1 and "failed: False" in o, f"{rc} {o} {e}")
    rc, o, e = run(xp, "--assert", "not (x > 10).any()")
    check("--assert 'not (x > 10).any()' passes", rc == 0, f"{rc} {o} {e}")
    rc, o, e = run(xp, "--assert", "x.abs().max() < 1")
    check("x.abs().max() < 1 passes on a tensor holding NaN (as docs/checks.md warns)", rc == 0, f"{rc} {o} {e}")
    rc, o, e = run(xp, "--assert", "x.abs().max() < 1", "--fail-on", "nan")
    check("--fail-on nan beside "
          "it catches the NaN", rc == 1 and "1 nan, first at [1]" in o and "1 check passed" in o, f"{rc} {o} {e}")
    rc, o, e = run(xp, "--assert", "x.sum() < 1")
    check("sum propagates NaN: x.sum() < 1 fails", rc == 1, f"{rc} {o} {e}")
    for expr, want in (("not 0", "True"), ("not 2.5", "False"), ("not None", "True")):
        rc, o, e = run("-e", expr)
        check(f"-e '{expr}'", rc == 0 and f"tolist: {want}" in o, f"{rc} {o} {e}")
    rc, o, e = run("[1, 0, 2]", "-e", "not x")
    check("-e 'not x' over a tensor is logical_not", rc == 0 and "tolist: [False, True, False]" in o, f"{rc} {o} {e}")

for f in failures: print(f)
print(f"say what happened: {'ok' if not failures else str(len(failures)) + ' failures'}")
sys.exit(1 if failures else 0)
