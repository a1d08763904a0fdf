#!/usr/bin/env python3
"""tests/checks_compose.py BIN — checks that compose (issue 23, part 4).

Files are written here byte by byte (bfloat16 as the top 16 bits of NumPy's float32) and
with NumPy; expected values come from NumPy and the safetensors spec, not from the tool.
1. `--expect dtype=bf16 --fail-on nan --stats` runs in one run: exit 0 on a clean bf16
   tensor; exit 1 on one holding NaN, naming it and its first NaN's index (NumPy's argwhere);
   text shows the statistics and the check; --json one stats object carrying "checks" and
   "first_nan"; --jsonl stats lines then check lines. Over a selection (--all) too.
2. Every dtype spelling users write maps to the dtype tinygrad names (table below), for
   --dtype, --raw and --expect dtype=; an unknown one lists the valid spellings.
3. --expect numel, stored_dtype (the file's tag, or a name meaning the same) and stored_nbytes
   (the data_offsets span); --list's column says stored_nbytes.
"""
import json, os, struct, subprocess, sys, tempfile

import numpy as np

BIN = os.path.abspath(sys.argv[1])
failures = []


def check(what, ok, detail=""):
    if not ok: failures.append(f"{what}: {detail}")


def run(*args, stdin=None):
    p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=60, input=stdin)
    return p.returncode, p.stdout, p.stderr


def bf16_safetensors(path, tensors):
    header, blobs, at = {}, [], 0
    for name, a in tensors.items():
        bits = (np.asarray(a, dtype=np.float32).view(np.uint32) >> 16).astype("<u2")
        b = bits.tobytes()
        header[name] = {"dtype": "BF16", "shape": list(np.shape(a)), "data_offsets": [at, at + len(b)]}
        blobs.append(b)
        at += len(b)
    text = json.dumps(header).encode()
    text += b" " * (-(8 + len(text)) % 8)
    with open(path, "wb") as f: f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


with tempfile.TemporaryDirectory() as out:
    clean = np.array([[1.5, -2.0, 0.25], [4.0, 0.0, -0.5]], dtype=np.float32)  # exact in bfloat16
    dirty = clean.copy()
    dirty[1, 1] = np.nan
    dirty[1, 2] = np.nan
    first = tuple(int(i) for i in np.argwhere(np.isnan(dirty))[0])  # NumPy: (1, 1)
    path = os.path.join(out, "m.safetensors")
    bf16_safetensors(path, {"clean": clean, "dirty": dirty})

    # 1. one run: --expect, --fail-on, --stats
    args = ["--expect", "dtype=bf16", "--fail-on", "nan", "--stats"]
    rc, o, e = run(path, "--name", "clean", *args)
    check("clean bf16: exit 0", rc == 0, f"exit {rc} {e}")
    check("clean bf16: statistics and the check", "max: 4.0" in o and "fail-on nan: ok" in o and
          "1 check passed on 1 tensor" in o, o)
    rc, o, e = run(path, "--name", "dirty", *args)
    want_index = "[" + ", ".join(map(str, first)) + "]"
    check("NaN bf16: exit 1", rc == 1, f"exit {rc} {e}")
    check("NaN bf16: named with "
          "its first NaN's index", f"dirty: {int(np.isnan(dirty).sum())} "
          f"nan, first at {want_index}" in o, o)
    check("NaN bf16: the --expect result too", "1 check passed on 1 tensor" in o, o)
    rc, o, e = run(path, "--name", "dirty", *args, "--expect", "shape=3,2")
    check("a failing --expect beside "
          "--fail-on: exit 1, both told", rc == 1 and "--expect shape=3,2 "
          "failed: shape is (2, 3)" in o and "first at" in o, o)
    rc, o, e = run(path, "--name", "dirty", *args, "--json")
    doc = json.loads(o) if rc in (0, 1) and o else {}
    check("--json: one stats "
          "object with its checks", rc == 1 and doc.get("kind") == "stats" and
          doc.get("checks", {}).get("kind") == "checks", o)
    check("--json: first_nan", doc.get("first_nan") == list(first), doc.get("first_nan"))
    check("--json: the check passed",
          doc.get("checks", {}).get("failed") == 0 and doc.get("checks", {}).get("checked") == 1, doc.get("checks"))
    rc, o, e = run(path, "--all", *args, "--jsonl")
    lines = [json.loads(l) for l in o.splitlines()] if o else []
    check("--all --jsonl: stats "
          "lines then check lines", [l["kind"] for l in lines] == ["stats", "stats", "check", "check"], o)
    check("--all --jsonl: exit 1", rc == 1, f"exit {rc}")
    rc, o, e = run(path, "--all", *args)
    check("--all text: table, "
          "fail-on report, checks", rc == 1 and "dirty: 2 nan, first at [1, 1]" in o and
          "all 2 checks passed on 2 tensors" in o, o)
    rc, o, e = run(path, "--all", *args, "--json")
    doc = json.loads(o) if o else {}
    check("--all --json: file_stats with checks",
          doc.get("kind") == "file_stats" and doc.get("checks", {}).get("checked") == 2, o[:300])
    rows = {r["name"]: r for r in doc.get("tensors", [])}
    check("--all --json: first_nan per row",
          rows.get("dirty", {}).get("first_nan") == list(first) and rows.get("clean", {}).get("first_nan") is None,
          rows)
    rc, o, e = run(path, "--name", "dirty", "--assert", "x.abs().max() < 5", "--fail-on", "nan")
    check("--assert beside --fail-on in one run", rc == 1 and "1 check passed" in o and "first at" in o,
          f"{rc} {o} {e}")

    # 2. dtype spellings: expected canonical names written from each project's docs
    spellings = {
        "bfloat16": ["bf16", "BF16", "bfloat16", "torch.bfloat16", "Bfloat16"],
        "float16": ["f16", "fp16", "F16", "half", "float16", "np.float16", "torch.half"],
        "float32": ["float", "f32", "fp32", "F32", "float32", "single", "torch.float32", "dtypes.float"],
        "float64": ["double", "f64", "F64", "float64", "float_"],
        "int8": ["i8", "I8", "int8", "char"],
        "uint8": ["u8", "U8", "uint8", "uchar", "ubyte"],
        "int16": ["i16", "short", "I16"],
        "int32": ["i32", "int", "int32", "I32", "intc"],
        "int64": ["i64", "long", "int64", "I64", "torch.long"],
        "uint64": ["u64", "U64", "uint64", "ulong"],
        "bool": ["bool", "BOOL", "bool_"],
        "fp8e4m3": ["F8_E4M3", "fp8e4m3", "float8_e4m3fn", "torch.float8_e4m3fn"],
        "fp8e5m2": ["F8_E5M2", "fp8e5m2", "float8_e5m2"],
    }
    for canonical, names in spellings.items():
        for name in names:
            rc, o, e = run("--dtype", name, "[1]", "--json")
            got = json.loads(o)["dtype"] if rc == 0 else e.strip()
            check(f"--dtype {name}", got == canonical, got)
            rc, o, e = run("--dtype", canonical, "[1]", "--expect", f"dtype={name}")
            check(f"--expect dtype={name} on a {canonical} literal", rc == 0, f"{rc} {o} {e}")
    raw = os.path.join(out, "r.bin")
    np.array([1.5, -2.0], dtype="<f2").tofile(raw)
    rc, o, e = run(raw, "--raw", "fp16", "--json")
    check("--raw fp16", rc == 0 and json.loads(o)["tolist"] == [1.5, -2.0], f"{rc} {o} {e}")
    for bad in (["--dtype", "bfloat17", "[1]"], [raw, "--raw", "f12"], ["[1]", "--expect", "dtype=fp17"]):
        rc, o, e = run(*bad)
        check(f"unknown dtype {bad}: "
              f"exit 2 listing the names", rc == 2 and not o and "unknown dtype" in e and "bfloat16 (bf16)" in e and
              "f16 fp16 half" in e, e)

    # 3. numel, stored_dtype, stored_nbytes
    span = 2 * clean.size  # BF16: two bytes an element, the data_offsets span written above
    for spec in (f"numel={clean.size}", "stored_dtype=BF16", "stored_dtype=bf16", "stored_dtype=bfloat16",
                 f"stored_nbytes={span}", f"nbytes={clean.size * 2}"):
        rc, o, e = run(path, "--name", "clean", "--expect", spec)
        check(f"--expect {spec}", rc == 0, f"{rc} {o} {e}")
    for spec, said in ((f"numel=7", f"numel is {clean.size}"), ("stored_dtype=F16", "stored_dtype is BF16"),
                       ("stored_nbytes=11", f"stored_nbytes is {span}")):
        rc, o, e = run(path, "--name", "clean", "--expect", spec)
        check(f"--expect {spec} fails", rc == 1 and said in o, f"{rc} {o} {e}")
    f32 = os.path.join(out, "f.npy")
    np.save(f32, clean)
    rc, o, e = run(f32, "--expect", "stored_dtype=float32", "--expect", f"stored_nbytes={clean.nbytes}", "--expect",
                   "stored_dtype=<f4")
    check(".npy: stored_dtype float32 and <f4, stored_nbytes", rc == 0, f"{rc} {o} {e}")
    rc, o, e = run(path, "--list")
    check("--list header says stored_nbytes",
          o.splitlines()[0].split() == ["name", "dtype", "shape", "stored_nbytes", "offset", "stored"], o)

for f in failures: print(f)
print(f"checks compose: {'ok' if not failures else str(len(failures)) + ' failures'}")
sys.exit(1 if failures else 0)
