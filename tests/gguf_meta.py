#!/usr/bin/env python3
"""GGUF metadata arrays through the CLI: `--meta` prints an array of more than 8 items as
its first and last 3 items and its count, `--meta --full` every item, `--meta --json` every
item, and `--list` counts the entries; a 200,000-string vocabulary (read in pread windows)
lists, and a cut one names its byte. The files are written here with struct, field by
field as gguf.md lays it out; expected text comes from the values written, formatted in
Python.

    python3 tests/gguf_meta.py path/to/tensor-inspect

Closes with `N passed, M failed`.
"""
import json, os, struct, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally  # noqa: E402
tally.passes = False
check = tally.check

BIN = os.path.abspath(sys.argv[1])


def gstr(s):
  b = s.encode() if isinstance(s, str) else s
  return struct.pack("<Q", len(b)) + b


tokens = [f"tok{i}" for i in range(1000)] + ["caf\u00e9", "a\"b"]
ids = list(range(-5, 15))  # 20 int32
short = [1.5, -2.0]
kvs = [gstr("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, len(tokens)) + b"".join(gstr(t) for t in tokens),
       gstr("ids") + struct.pack("<IIQ", 9, 5, len(ids)) + struct.pack(f"<{len(ids)}i", *ids),
       gstr("short") + struct.pack("<IIQ", 9, 6, len(short)) + struct.pack("<2f", *short),
       gstr("general.name") + struct.pack("<I", 8) + gstr("meta test")]
data = b"GGUF" + struct.pack("<IQQ", 3, 0, len(kvs)) + b"".join(kvs)


def run(*args):
  p = subprocess.run([BIN, *args], capture_output=True)
  return p.returncode, p.stdout.decode(), p.stderr.decode()


def quoted(s): return '"' + s.replace('"', '\\"') + '"'


with tempfile.TemporaryDirectory() as tmp:
  path = os.path.join(tmp, "meta.gguf")
  with open(path, "wb") as f: f.write(data)

  rc, out, err = run(path, "--meta")
  lines = out.splitlines()
  want_tokens = ("tokenizer.ggml.tokens (array[string]): [" + ", ".join(quoted(t) for t in tokens[:3]) + ", ..., " +
                 ", ".join(quoted(t) for t in tokens[-3:]) + f"] ({len(tokens)} items)")
  check("--meta: a long string array is its first and last 3 items and its count",
        rc == 0 and want_tokens in lines, out)
  want_ids = "ids (array[int32]): [-5, -4, -3, ..., 12, 13, 14] (20 items)"
  check("--meta: a long int array the same", want_ids in lines, out)
  check("--meta: a short array whole", "short (array[float32]): [1.5, -2.0]" in lines, out)
  check("--meta: footer", lines[-1:] == ["4 metadata entries, 0 tensors (gguf)"], lines[-1:])

  rc, out, err = run(path, "--meta", "--full")
  lines = out.splitlines()
  check("--meta --full: every item",
        rc == 0 and "tokenizer.ggml.tokens (array[string]): [" + ", ".join(quoted(t) for t in tokens) + "]" in lines and
        "ids (array[int32]): [" + ", ".join(str(i) for i in ids) + "]" in lines, (rc, err, out[:300]))

  rc, out, err = run(path, "--meta", "--json")
  values = {m["key"]: m["value"] for m in json.loads(out)["metadata"]} if rc == 0 else {}
  check("--meta --json: complete", values.get("tokenizer.ggml.tokens") == tokens and values.get("ids") == ids and
        values.get("short") == short and values.get("general.name") == "meta test", (rc, err))

  rc, out, err = run(path, "--list", "--json")
  check("--list --json: the count", rc == 0 and json.loads(out)["metadata_count"] == 4, (rc, err, out[:200]))

  rc, out, err = run(path, "--list", "--full")
  check("--list --full: still a usage error", rc == 2 and "--full" in err and not out, (rc, err, out))

  # A vocabulary past 512 KiB: its walk reads the lengths with pread in 16 KiB windows
  # (buffer/mapped_read.hpp), across window edges and over a string longer than a window.
  # A file cut inside a length and inside a string names the bytes Python counts here.
  big = [f"t{i}" * (1 + i % 4) for i in range(200000)]
  big[150000] = "L" * 40000
  head = b"GGUF" + struct.pack("<IQQ", 3, 0, 1) + gstr("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, len(big))
  body = b"".join(gstr(t) for t in big)
  at = len(head) + sum(8 + len(t) for t in big[:190000])  # string 190000's length field
  for name, data in (("big.gguf", head + body), ("cut_length.gguf", (head + body)[:at + 5]),
                     ("cut_string.gguf", (head + body)[:at + 8 + 3])):
    with open(os.path.join(tmp, name), "wb") as f:
      f.write(data)
  rc, out, err = run(os.path.join(tmp, "big.gguf"), "--meta")
  want = ("tokenizer.ggml.tokens (array[string]): [" + ", ".join(quoted(t) for t in big[:3]) + ", ..., " +
          ", ".join(quoted(t) for t in big[-3:]) + f"] ({len(big)} items)")
  check("200,000 strings: --meta", rc == 0 and out.splitlines()[0] == want, (rc, err, out[:300]))
  rc, out, err = run(os.path.join(tmp, "big.gguf"), "--list")
  check("200,000 strings: --list", rc == 0 and "0 tensors, 1 metadata entry (gguf)" in out, (rc, err, out))
  need = len(big[190000])
  rc, out, err = run(os.path.join(tmp, "cut_length.gguf"), "--list")
  check("cut inside a length: named", rc == 2 and not out and
        err == f"tensor-inspect: cut_length.gguf: truncated string value length: needs 8 bytes, 5 left at byte {at}\n"
        .replace("cut_length.gguf", os.path.join(tmp, "cut_length.gguf")), (rc, err))
  rc, out, err = run(os.path.join(tmp, "cut_string.gguf"), "--list")
  check("cut inside a string: named", rc == 2 and not out and
        err == f"tensor-inspect: {os.path.join(tmp, 'cut_string.gguf')}: truncated string value: needs {need} bytes, "
        f"3 left at byte {at + 8}\n", (rc, err))

sys.exit(tally.summary())
