#!/usr/bin/env python3
"""tests/validate_classes.py BIN — validate's findings mean what they say (issue 23, part 3).

Files are written here by NumPy or byte by byte, independently of the tool:
1. Every sample (each file and the sharded folder) exits 0.
2. A file with warnings only exits 0, and 1 with --strict: a safetensors header whose data
   does not start at a multiple of 8 (the spec allows it). A complex64 .npy NumPy writes and
   reads is a note (the tool cannot decode it), never a failure: exit 0, also with --strict.
3. A truncated shard is reported once per run: validating its folder, or the index and the
   shard together, gives one finding for it (under the shard); the index alone still says it.
4. The index's metadata.total_size must equal the sum of the shards' tensor byte sizes, which
   the test adds up from NumPy's nbytes (transformers' sum): 40 passes, 9999 is an error of
   rule safetensors-index.total_size, and so is a string.
5. Text output names each finding's class; the JSON summary counts errors, warnings, notes.
"""
import glob, json, os, shutil, struct, subprocess, sys, tempfile

import numpy as np

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
failures = []


def check(what, ok, detail=""):
    if not ok: failures.append(f"{what}: {detail}")


def validate(*args):
    p = subprocess.run([BIN, "validate", *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def findings(*args):
    rc, out, err = validate(*args, "--json")
    doc = json.loads(out) if out else {"files": [], "summary": {}}
    return rc, [x for f in doc["files"] for x in f["findings"]], doc


def safetensors_bytes(tensors, pad=True):
    """tensors: name -> numpy array (F32/I64); the header as the spec writes it."""
    header, blobs, at = {}, [], 0
    tags = {np.dtype(np.float32): "F32", np.dtype(np.int64): "I64", np.dtype(np.float16): "F16"}
    for name, a in tensors.items():
        b = a.tobytes()
        header[name] = {"dtype": tags[a.dtype], "shape": list(a.shape), "data_offsets": [at, at + len(b)]}
        blobs.append(b)
        at += len(b)
    text = json.dumps(header, separators=(",", ":")).encode()
    if pad:
        text += b" " * (-(8 + len(text)) % 8)
    elif (8 + len(text)) % 8 == 0:
        text += b" "  # one space: the data then starts off the 8-byte grid
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


with tempfile.TemporaryDirectory() as out:
    # 1. samples
    samples = sorted(p for ext in ("npy", "npz", "safetensors", "gguf", "pt")
                     for p in glob.glob(os.path.join(ROOT, "samples", f"*.{ext}")))
    samples.append(os.path.join(ROOT, "samples", "sharded"))
    for path in samples:
        rc, _, err = validate(path)
        check(f"validate {os.path.relpath(path, ROOT)}", rc == 0, f"exit {rc} {err.strip()[:200]}")
    rc, _, _ = validate(*samples)
    check("validate of every sample in one run", rc == 0, f"exit {rc}")

    # 2. warnings only; a note
    unpadded = os.path.join(out, "unpadded.safetensors")
    with open(unpadded, "wb") as f: f.write(safetensors_bytes({"w": np.arange(3, dtype=np.float32)}, pad=False))
    rc, found, doc = findings(unpadded)
    check("unpadded header: exit 0", rc == 0, f"exit {rc} {found}")
    check("unpadded header: one warning",
          [(x["severity"], x["rule"]) for x in found] == [("warning", "safetensors.alignment")], found)
    check("unpadded header: --strict exits 1", validate(unpadded, "--strict")[0] == 1)
    check("unpadded header: summary", doc["summary"] == {
        "files": 1,
        "clean": 0,
        "errors": 0,
        "warnings": 1,
        "notes": 0
    }, doc["summary"])
    rc, text, _ = validate(unpadded)
    check("text names the class", ": warning: " in text and
          text.rstrip().endswith("1 file: 0 clean, 0 errors, 1 warning"), text)

    complex_npy = os.path.join(out, "c64.npy")
    np.save(complex_npy, np.array([1 + 2j, 3 - 4j], dtype=np.complex64))
    check("NumPy reads its complex64 file", np.load(complex_npy).dtype == np.complex64)
    rc, found, doc = findings(complex_npy)
    check("complex64 .npy: exit 0", rc == 0, f"exit {rc} {found}")
    check("complex64 .npy: one note", [(x["severity"], x["rule"]) for x in found] == [("note", "npy.unsupported")],
          found)
    check("complex64 .npy: --strict still exits 0", validate(complex_npy, "--strict")[0] == 0)
    check("complex64 .npy: clean, with a note", doc["files"][0]["clean"] is True and doc["summary"]["notes"] == 1,
          doc["summary"])
    rc, text, _ = validate(complex_npy)
    check("complex64 .npy text", ": note: " in text and "clean (1 note)" in text, text)

    # 3. a truncated shard, once
    model = os.path.join(out, "model")
    os.mkdir(model)
    a, b = np.arange(2, dtype=np.float32), np.arange(3, dtype=np.int64)
    shard1, shard2 = "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"
    with open(os.path.join(model, shard1), "wb") as f: f.write(safetensors_bytes({"a": a}))
    full = safetensors_bytes({"b": b})
    with open(os.path.join(model, shard2), "wb") as f: f.write(full[:-5])  # 5 bytes of b's data cut off
    index = {"metadata": {"total_size": a.nbytes + b.nbytes}, "weight_map": {"a": shard1, "b": shard2}}
    index_path = os.path.join(model, "model.safetensors.index.json")
    with open(index_path, "w") as f: json.dump(index, f)
    for args in ([model], [index_path, os.path.join(model, shard2)], [os.path.join(model, shard2), index_path]):
        rc, found, doc = findings(*args)
        errors = [x for x in found if x["severity"] == "error"]
        check(f"truncated shard via {[os.path.basename(x) for x in args]}: exit 1", rc == 1, f"exit {rc}")
        check(f"truncated shard via {[os.path.basename(x) for x in args]}: reported once", len(errors) == 1, errors)
        shard_report = [f for f in doc["files"] if f["file"].endswith(shard2)]
        check("... under the shard itself", shard_report and shard_report[0]["errors"] == 1, doc["files"])
    rc, found, _ = findings(index_path)
    check("the index alone names "
          "the truncated shard", rc == 1 and len(found) == 1 and found[0]["place"].startswith(f"shard '{shard2}'"),
          found)

    # 4. total_size
    with open(os.path.join(model, shard2), "wb") as f: f.write(full)
    rc, found, _ = findings(model)
    check(f"total_size {a.nbytes + b.nbytes} "
          f"(NumPy's nbytes summed): clean", rc == 0 and found == [], f"exit {rc} {found}")
    for wrong in (9999, a.nbytes, "40"):
        index["metadata"]["total_size"] = wrong
        with open(index_path, "w") as f: json.dump(index, f)
        rc, found, _ = findings(model)
        check(f"total_size {wrong!r}: exit 1", rc == 1, f"exit {rc}")
        check(f"total_size {wrong!r}: one error",
              [(x["severity"], x["rule"]) for x in found] == [("error", "safetensors-index.total_size")], found)
        if isinstance(wrong, int):
            check(f"total_size {wrong}: "
                  f"both numbers named", found and str(wrong) in found[0]["message"] and
                  str(a.nbytes + b.nbytes) in found[0]["message"], found)
    del index["metadata"]
    with open(index_path, "w") as f: json.dump(index, f)
    rc, found, _ = findings(model)
    check("an index without metadata.total_size is not faulted", rc == 0 and found == [], found)

for f in failures: print(f)
print(f"validate classes: {'ok' if not failures else str(len(failures)) + ' failures'}")
sys.exit(1 if failures else 0)
