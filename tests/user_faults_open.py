#!/usr/bin/env python3
"""tests/user_faults_open.py BIN — what a user tester found about files that open only in
part, each rebuilt from outside (system python, NumPy):

1. `validate` called an empty .pt "pytorch: clean" (exit 0) while opening it failed ("not a
   valid zip archive"): a .pt without PyTorch's legacy magic number was checked by the
   legacy pickle rules only, which no bytes (or "N.", a whole pickle) break, and its loader
   was skipped. Any .pt that fails to open must be a finding (exit 1), never clean.
2. An .npz with one object-dtype member failed every command (--list, --stats, --name of
   another member). Now the member is listed with dtype '-' (JSON null) and its stored
   descr, --stats skips it, other members open; only naming it is the one Unsupported line.
3. A sharded index's missing shard listed its tensors with shape () and nbytes 0, as a 0-d
   tensor: now '-' in text, null in JSON (shape, stored_shape, nbytes, decoded_nbytes,
   offset), with the warning about the shard.
4. A shard that exists but is not a safetensors file (five bytes) made even --list fail, with a
   line naming only the shard; a second tester expected what a missing shard gives. Now its
   tensors are listed as unknown (stored_type null too), the other shard's tensors open, and
   naming one of its tensors is the one line naming the index, the tensor and the shard.
5. validate kept an allow-list of its own beside the loader's: it flagged `__builtin__.set`
   (Python 2's name, which torch.load maps to builtins.set) where the loader did not, and
   allowed layouts torch.load refuses. Both now ask the one list: for every sample .pt,
   validate's pickle.global findings name exactly the globals the listing warns of.
"""
import json, os, struct, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally
from user_faults_common import ROOT, run, safetensors_bytes, trouble


def fault1_unreadable_pt(tmp):
  real = open(os.path.join(ROOT, "samples", "checkpoint.pt"), "rb").read()
  cases = {"empty.pt": b"", "stray.pt": bytes([0x13, 0x37, 0xbe, 0xef, 0x00, 0x42, 0x99]), "pickle.pt": b"N.",
           "half.pt": real[:len(real) // 2], "half.pth": real[:len(real) // 2]}
  for name, data in cases.items():
    path = os.path.join(tmp, name)
    open(path, "wb").write(data)
    rc_open, _, err_open = run([path, "--list"])
    rc, out, err = run(["validate", path])
    tally.check(f"1: {name} ({len(data)} bytes) does not open (exit 2)", rc_open == 2, f"{rc_open} {err_open!r}")
    tally.check(f"1: validate {name}: a finding (exit 1), not clean", rc == 1 and "clean" not in out.splitlines()[0] and
                "error" in out, f"{rc} {out!r} {err!r}")
  rc, out, err = run(["validate", "--json", os.path.join(tmp, "empty.pt")])
  rules = [x["rule"] for x in json.loads(out)["files"][0]["findings"]] if rc in (0, 1) else None
  tally.check("1: validate --json empty.pt: an error finding of the pytorch format", rc == 1 and rules and
              all(r.startswith("pytorch.") for r in rules), f"{rc} {rules} {err!r}")
  # The same words as opening it: an empty file has no zip end record (libzip alone would
  # take it for an empty archive, and validate said "0 data.pkl members").
  messages = [x["message"] for x in json.loads(out)["files"][0]["findings"]] if rc in (0, 1) else []
  tally.check("1: validate empty.pt says what opening it says", messages ==
              ["not a valid zip archive (0 bytes is shorter than the 22-byte end record)"], f"{messages!r}")
  rc, out, err = run(["validate", os.path.join(ROOT, "samples", "checkpoint.pt")])
  tally.check("1: the whole checkpoint.pt still validates (its one warning, no error: exit 0)", rc == 0 and
              out.splitlines()[-1] == "1 file: 0 clean, 0 errors, 1 warning", f"{rc} {out!r}")


def fault2_npz_object_member(tmp):
  import numpy as np
  for saver in ("savez", "savez_compressed"):
    path = os.path.join(tmp, f"odd_{saver}.npz")
    getattr(np, saver)(path, a=np.arange(3), o=np.array([1, "x"], dtype=object))
    tag = f"2 ({saver})"
    rc, out, err = run([path, "--list"])
    rows = {l.split()[0]: l.split() for l in out.splitlines()[1:] if l.strip()}
    tally.check(f"{tag}: --list shows both members, o with dtype '-' and stored '|O'", rc == 0 and "a" in rows and
                rows.get("o", [None, None])[1] == "-" and "|O" in rows.get("o", []) and rows["o"][2] == "(2,)",
                f"{rc} {out!r} {err!r}")
    rc, out, err = run([path, "--list", "--json"])
    got = {t["name"]: t for t in json.loads(out)["tensors"]} if rc == 0 else {}
    o = got.get("o", {})
    tally.check(
        f"{tag}: --list --json: o has dtype "
        f"null, stored_type '|O', shape [2]", rc == 0 and o.get("dtype", 0) is None and o.get("stored_type") == "|O" and
        o.get("shape") == [2] and got.get("a", {}).get("dtype") == "int64", f"{rc} {out[:400]!r} {err!r}")
    rc, out, err = run([path, "--stats"])
    lines = {l.split()[0]: l for l in out.splitlines() if l.strip()}
    tally.check(
        f"{tag}: --stats skips o with "
        f"a note and gives a's figures", rc == 0 and "skipped" in lines.get("o", "") and
        "object dtype '|O' is not supported" in lines.get("o", "") and "skipped" not in lines.get("a", "skipped"),
        f"{rc} {out!r} {err!r}")
    rc, out, err = run([path, "--name", "a", "--json"])
    doc = json.loads(out) if rc == 0 else {}
    tally.check(f"{tag}: --name a opens a ([0, "
                f"1, 2], as np.load gives)", rc == 0 and doc.get("tolist") == np.arange(3).tolist(),
                f"{rc} {out[:300]!r} {err!r}")
    rc, out, err = run([path, "--fail-on", "nan", "--name", "a"])
    tally.check(f"{tag}: --fail-on nan --name a checks a", rc == 0, f"{rc} {out!r} {err!r}")
    trouble(f"{tag}: --name o is the "
            f"one Unsupported line", [path, "--name", "o"], ["o.npy", "object dtype '|O' is not supported"])
    rc, out, err = run(["validate", path])
    tally.check(f"{tag}: validate still notes that "
                f"o cannot be opened (a note: exit 0)", rc == 0 and "unsupported" in out, f"{rc} {out!r}")


def fault3_missing_shard_listing(tmp):
  folder = os.path.join(tmp, "sharded")
  os.mkdir(folder)
  open(os.path.join(folder, "s1.safetensors"), "wb").write(safetensors_bytes({"a": [1.0, 2.0]}))
  index = os.path.join(folder, "model.safetensors.index.json")
  with open(index, "w") as f:
    json.dump({"weight_map": {"a": "s1.safetensors", "b": "s2.safetensors"}}, f)
  rc, out, err = run([index, "--list"])
  rows = {l.split()[0]: l.split() for l in out.splitlines()[1:] if l.strip()}
  tally.check(
      "3: --list: b's shape, nbytes and "
      "offset are '-', a's are its own", rc == 0 and rows.get("b", [])[1:5] == ["-"] * 4 and
      rows.get("a", [])[1:4] == ["float32", "(2,)", "8"] and "s2.safetensors" in err, f"{rc} {out!r} {err!r}")
  rc, out, err = run([index, "--list", "--json"])
  doc = json.loads(out) if rc == 0 else {"tensors": [], "warnings": []}
  got = {t["name"]: t for t in doc["tensors"]}
  b, a = got.get("b", {}), got.get("a", {})
  tally.check(
      "3: --list --json: b's stored_type, shape, stored_shape, "
      "nbytes, decoded_nbytes, offset are null, keys kept", rc == 0 and
      all(k in b and b[k] is None
          for k in ("stored_type", "shape", "stored_shape", "nbytes", "decoded_nbytes", "offset")) and
      list(b) == list(a), f"{rc} {b!r}")
  tally.check("3: --list --json: a is [2] of 8 "
              "bytes; the warning names the shard",
              a.get("shape") == [2] and a.get("nbytes") == 8 and any("s2.safetensors" in w for w in doc["warnings"]),
              f"{a!r} {doc['warnings']!r}")
  try:
    import jsonschema
  except ImportError:
    print("skip schema check: no jsonschema")
    return
  schema = json.load(open(os.path.join(ROOT, "schemas", "listing.schema.json")))
  try:
    jsonschema.validate(doc, schema)
    ok, why = True, ""
  except jsonschema.ValidationError as e:
    ok, why = False, e.message
  tally.check("3: the listing with nulls fits schemas/listing.schema.json", ok, why)


def fault4_corrupt_shard(tmp):
  folder = os.path.join(tmp, "corrupt")
  os.mkdir(folder)
  open(os.path.join(folder, "s1.safetensors"), "wb").write(safetensors_bytes({"a": [1.0, 2.0]}))
  open(os.path.join(folder, "s2.safetensors"), "wb").write(b"\x01\x02\x03\x04\x05")
  index = os.path.join(folder, "model.safetensors.index.json")
  with open(index, "w") as f:
    json.dump({"weight_map": {"a": "s1.safetensors", "b": "s2.safetensors"}}, f)
  rc, out, err = run([index, "--list"])
  rows = {l.split()[0]: l.split() for l in out.splitlines()[1:] if l.strip()}
  tally.check("4: --list of an index with a corrupt shard: b unknown, a its own, a warning naming the shard",
              rc == 0 and rows.get("b", [])[1:6] == ["-"] * 5 and "unreadable" in out and
              rows.get("a", [])[1:4] == ["float32", "(2,)", "8"] and "s2.safetensors" in err, f"{rc} {out!r} {err!r}")
  rc, out, err = run([index, "--list", "--json"])
  b = {t["name"]: t for t in json.loads(out)["tensors"]}.get("b", {}) if rc == 0 else {}
  tally.check("4: --list --json: b's stored_type and shape are null", rc == 0 and b.get("stored_type", 0) is None and
              b.get("shape", 0) is None, f"{rc} {b!r}")
  rc, out, err = run([index, "--name", "a", "--json"])
  tally.check("4: --name a of the good "
              "shard prints its values", rc == 0 and json.loads(out).get("tolist") == [1.0, 2.0], f"{rc} {out!r}")
  trouble("4: --name b is one line naming the index, the tensor and the shard, exit 2", [index, "--name", "b"],
          must_contain=("model.safetensors.index.json", "'b'", "s2.safetensors"))


def fault5_one_allow_list():
  import glob, re
  for path in sorted(glob.glob(os.path.join(ROOT, "samples", "*.pt"))):
    rc, out, err = run(["validate", "--json", path])
    found = json.loads(out)["files"][0]["findings"] if out else []
    by_validate = {re.search(r"global '([^']+)'", f["message"]).group(1) for f in found if f["rule"] == "pickle.global"}
    rc2, out2, err2 = run([path, "--list", "--json"])
    warned = json.loads(out2)["warnings"] if rc2 == 0 else []
    by_loader = {m.group(1) for w in warned for m in [re.search(r"global '([^']+)'", w)] if m}
    tally.check(f"5: {os.path.basename(path)}: validate and the listing name the same globals",
                by_validate == by_loader, f"validate {sorted(by_validate)} listing {sorted(by_loader)}")


def main():
  with tempfile.TemporaryDirectory() as tmp:
    fault1_unreadable_pt(tmp)
    fault2_npz_object_member(tmp)
    fault3_missing_shard_listing(tmp)
    fault4_corrupt_shard(tmp)
  fault5_one_allow_list()
  return tally.summary()


if __name__ == "__main__":
  sys.exit(main())
