#!/usr/bin/env python3
"""Fault 17 of issue 9: listings (and the --stats and diff tables) line up by display width,
and count in good English.

    python3 tests/listing_width.py path/to/tensor-inspect

Names of wide (CJK), combining and accented characters must not shift the columns after
them: every row's dtype column starts at the same terminal column, measured here with
Python's unicodedata (East Asian width W/F = 2 columns, combining marks 0). A file with
one metadata entry says "1 metadata entry"; names that JSON must escape come back
intact from --list --json. Closes with `N passed, M failed`.
"""
import json, os, struct, subprocess, sys, tempfile, unicodedata

BIN = os.path.abspath(sys.argv[1])

def width(s):
  return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)

def main():
  names = ["a", "\u00e9t\u00e9", "\u65e5\u672c\u8a9e", "e\u0301", "longer_ascii_name"]
  header = {n: {"dtype": "U8", "shape": [1], "data_offsets": [i, i + 1]} for i, n in enumerate(names)}
  header["__metadata__"] = {"format": "pt"}
  h = json.dumps(header, ensure_ascii=False).encode()
  passed = failed = 0
  with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "wide.safetensors")
    with open(path, "wb") as f: f.write(struct.pack("<Q", len(h)) + h + bytes(len(names)))
    out = subprocess.run([BIN, path, "--list"], capture_output=True, check=True).stdout.decode()
    rows = out.splitlines()[1:1 + len(names)]
    columns = set()
    for row in rows:
      at = row.index("uint8")
      columns.add(width(row[:at]))
    if len(columns) == 1: passed += 1
    else: failed += 1; print(f"FAIL dtype columns start at display columns {sorted(columns)}:\n{out}")
    # The --stats and diff tables pad names the same way: their second column ("uint8",
    # "same") starts at one terminal column on every row.
    for what, args, word in (("--stats", [path, "--stats"], "uint8"), ("diff", ["diff", path, path], "same")):
      table = subprocess.run([BIN, *args], capture_output=True).stdout.decode().splitlines()[1:1 + len(names)]
      starts = {width(row[:row.index(word)]) for row in table if word in row}
      if len(starts) == 1 and len(table) == len(names): passed += 1
      else: failed += 1; print(f"FAIL {what}: second column at display columns {sorted(starts)}:\n" + "\n".join(table))
    footer = out.splitlines()[1 + len(names)]
    if footer == f"{len(names)} tensors, 1 metadata entry (safetensors)": passed += 1
    else: failed += 1; print(f"FAIL footer {footer!r}")
    meta = subprocess.run([BIN, path, "--meta"], capture_output=True, check=True).stdout.decode().splitlines()[-1]
    if meta == f"1 metadata entry, {len(names)} tensors (safetensors)": passed += 1
    else: failed += 1; print(f"FAIL --meta footer {meta!r}")
    # The JSON listing is written member by member: names that need escaping (quotes,
    # backslashes, control characters, DEL, non-ASCII) must come back as Python wrote them.
    odd = ["q\"uote", "back\\slash", "tab\tnl\n", "ctl\u0001\u001f", "del\u007f", "\u65e5\u00e9", "", "plain.name"]
    header = {
        n: {
            "dtype": "F32",
            "shape": [1] if i % 2 else [],
            "data_offsets": [4 * i, 4 * i + 4]
        } for i, n in enumerate(odd)
    }
    h = json.dumps(header).encode()
    path = os.path.join(tmp, "odd.safetensors")
    with open(path, "wb") as f: f.write(struct.pack("<Q", len(h)) + h + bytes(4 * len(odd)))
    got = json.loads(subprocess.run([BIN, path, "--list", "--json"], capture_output=True, check=True).stdout)
    want = [(n, [1] if i % 2 else [], 4 * i + 8 + len(h)) for i, n in enumerate(odd)]
    if [(t["name"], t["shape"], t["offset"]) for t in got["tensors"]] == want and got["metadata_count"] == 0:
      passed += 1
    else: failed += 1; print(f"FAIL JSON listing of odd names: {got['tensors']}")
  print(f"{passed} passed, {failed} failed")
  return 0 if failed == 0 else 1

if __name__ == "__main__":
  sys.exit(main())
