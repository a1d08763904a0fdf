#!/usr/bin/env python3
"""What a new user found that surprised them, each fault rebuilt and checked from outside.

    python3 tests/user_faults.py path/to/tensor-inspect

Inputs are made here (NumPy, zipfile, hand-built bytes) in a temporary folder; what each
check expects is computed from those inputs (headers read back with json/zipfile/zlib),
never copied from the tool's output. Trouble must be exit status 2, one line on stderr
naming the input and the place, nothing on stdout. Closes with `N passed, M failed`.
"""
import io, json, os, random, struct, subprocess, sys, tempfile, time, zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MIXED = os.path.join(ROOT, "samples", "mixed.safetensors")
QUANTS = os.path.join(ROOT, "samples", "quants.gguf")


def run(args, stdin=None, timeout=60):
  """(exit status, stdout, stderr); status None when the run did not end within `timeout` s."""
  try:
    p = subprocess.run([BIN] + args, capture_output=True, timeout=timeout, input=stdin)
  except subprocess.TimeoutExpired:
    return None, "", f"timed out after {timeout} s"
  return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def trouble(name, args, must_contain=(), once=(), json_mode=False):
  """Exit 2, nothing on stdout, one stderr line holding each of `must_contain`, and each of
  `once` exactly once (a file named twice reads badly). Returns the message."""
  rc, out, err = run(args)
  lines = err.splitlines()
  message = lines[0] if lines else ""
  if json_mode and len(lines) == 1:
    try:
      message = json.loads(lines[0])["error"]["message"]
    except (ValueError, KeyError):
      message = "(not a JSON error object) " + lines[0]
  problems = []
  if rc != 2: problems.append(f"exit {rc}")
  if out: problems.append(f"stdout {out[:80]!r}")
  if len(lines) != 1: problems.append(f"{len(lines)} stderr lines")
  problems += [f"no {m!r}" for m in must_contain if m not in message]
  problems += [f"{m!r} {message.count(m)} times" for m in once if message.count(m) != 1]
  tally.check(name, not problems, "; ".join(problems) + f": {err.strip()[:300]!r}")
  return message


def npy_bytes(a):
  b = io.BytesIO()
  import numpy as np
  np.save(b, a)
  return b.getvalue()


def safetensors_header(path):
  with open(path, "rb") as f:
    n = struct.unpack("<Q", f.read(8))[0]
    h = json.loads(f.read(n))
  h.pop("__metadata__", None)
  return dict(sorted(h.items(), key=lambda kv: kv[1]["data_offsets"][0]))  # the tool's file order: by offset


def fault1_errors_name_the_tensor(tmp):
  """1. With several tensors in play, an error while one is evaluated, realized, loaded or
  printed names the file and the tensor."""
  header = safetensors_header(MIXED)
  prod = lambda s: eval("*".join(map(str, s)) or "1")
  # The first tensor in file order that x.reshape(2, 3) cannot take (not 6 elements).
  bad = next(n for n, e in header.items() if prod(e["shape"]) != 6)
  want = f"{MIXED}: tensor '{bad}': "
  for mode in ([], ["--json"], ["--jsonl"]):
    trouble(f"1: --all -e reshape {mode} names tensor {bad!r}", [MIXED, "--all", "-e", "x.reshape(2, 3)", *mode], [want], [MIXED],
            json_mode=bool(mode))
  trouble("1: --name glob --name exact -e names the tensor", [MIXED, "--name", "w*", "--name", "ids", "-e", "x.reshape(2, 3)"],
          [f"{MIXED}: tensor 'ids': "], [MIXED])
  trouble("1: --all --stats -e names the tensor", [MIXED, "--all", "--stats", "-e", "x.reshape(2, 3)"], [want], [MIXED])
  trouble("1: --all --assert names the tensor", [MIXED, "--all", "--assert", "x.reshape(2, 3).sum() > -1"], [want], [MIXED])
  trouble("1: --all --expect with -e names the tensor", [MIXED, "--all", "--expect", "ndim=2", "-e", "x.reshape(2, 3)"], [want],
          [MIXED])
  # Realizing: the first tensor whose x + 1 needs a buffer over 16 bytes (tinygrad promotes
  # bool + int to int32, so itemsize 4 there).
  item = {"F32": 4, "F16": 2, "BF16": 2, "I64": 8, "BOOL": 4}
  big = next(n for n, e in header.items() if prod(e["shape"]) * item[e["dtype"]] > 16)
  trouble(f"1: --all -e 'x + 1' over buffer_bytes names {big!r}", [MIXED, "--all", "-e", "x + 1", "--limit", "buffer_bytes=16"],
          [f"{MIXED}: tensor '{big}': ", "buffer_bytes"], [MIXED])
  trouble("1: --strict --all names the bfloat16 tensor", [MIXED, "--all", "--strict"], [f"{MIXED}: tensor 'bf16': "], [MIXED])
  trouble("1: GGUF --all names the type it cannot dequantize", [QUANTS, "--all"], [f"{QUANTS}: tensor 'iq4_nl'"], [QUANTS])
  rc, out, err = run([QUANTS, "--stats"])
  tally.check("1: --stats over a file warns of the skipped tensor naming it once",
              rc == 0 and err.count("tensor 'iq4_nl'") == 1 and err.count(QUANTS) == 1 and len(err.splitlines()) == 1, repr(err))
  # A member whose header reads but whose deflate stream is damaged further in: the
  # failure comes while its values are read, in every mode that reads them.
  import numpy as np
  rnd = random.Random(0)
  good, broken = os.path.join(tmp, "good.npz"), os.path.join(tmp, "broken.npz")
  with zipfile.ZipFile(good, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("a.npy", npy_bytes(np.arange(4, dtype=np.float32)))
    z.writestr("b.npy", npy_bytes(np.array([rnd.randrange(10) for _ in range(200000)], dtype=np.int8)))
  data = bytearray(open(good, "rb").read())
  info = zipfile.ZipFile(good).getinfo("b.npy")
  name_len, extra_len = struct.unpack_from("<HH", data, info.header_offset + 26)
  at = info.header_offset + 30 + name_len + extra_len + info.compress_size // 2
  for k in range(64): data[at + k] ^= 0x5A
  open(broken, "wb").write(bytes(data))
  want_b = f"{broken}: tensor 'b': member 'b.npy'"
  for args in (["--all"], ["--all", "--json"], ["--stats"], ["--stats", "--json"], ["--name", "*", "--stats"],
               ["--all", "--assert", "x.sum() > -1"]):
    trouble(f"1: damaged member, {args}: names tensor 'b'", [broken, *args], [want_b], [broken], json_mode="--json" in args)
  trouble("1: diff with the damaged side as A names it", ["diff", broken, good], [want_b], [broken])
  trouble("1: diff with the damaged side as B names it", ["diff", good, broken, "--json"], [want_b], [broken], json_mode=True)


def fault2_transpose_of_0d():
  """2. x.T of a 0-d tensor: tinygrad's transpose swaps items of list(range(ndim)) and fails
  with IndexError; ours is one line naming the method and the shape."""
  trouble("2: 5 -e x.T", ["5", "-e", "x.T"], ["T (transpose(1, 0)) of shape ()"])
  trouble("2: a 0-d .npy -e x.T", [os.path.join(ROOT, "samples", "scalar_f8.npy"), "-e", "x.T"], ["T (transpose(1, 0)) of shape ()"])
  rc, out, err = run(["[1, 2]", "-e", "x.transpose(-1, 0)", "--json"])
  tally.check("2: a 1-d transpose(-1, 0) is the tensor (list(range(1)) swaps item -1 with 0)",
              rc == 0 and json.loads(out)["tolist"] == [1, 2], f"{rc} {out[:100]!r} {err!r}")


def safetensors_bytes(tensors):
  """A safetensors file of {name: float32 list}, written by hand (8-byte length, JSON, data)."""
  header, data = {}, b""
  for name, values in tensors.items():
    header[name] = {"dtype": "F32", "shape": [len(values)], "data_offsets": [len(data), len(data) + 4 * len(values)]}
    data += struct.pack(f"<{len(values)}f", *values)
  h = json.dumps(header).encode()
  return struct.pack("<Q", len(h)) + h + data


def fault3_missing_shard_one_line(tmp):
  """3. An index whose shard file is missing: a run that fails prints its one error line
  (not the shard warning too); a run that succeeds still warns, once."""
  d = os.path.join(tmp, "sharded")
  os.mkdir(d)
  with open(os.path.join(d, "s1.safetensors"), "wb") as f: f.write(safetensors_bytes({"a": [1.0, 2.0]}))
  index = os.path.join(d, "model.safetensors.index.json")
  with open(index, "w") as f: json.dump({"weight_map": {"a": "s1.safetensors", "b": "s2.safetensors", "c": "s2.safetensors"}}, f)
  want = [f"tensor 'b' is in shard 's2.safetensors'", "No such file or directory"]
  for args in (["--name", "b"], ["--name", "b", "--json"], ["--all"], ["--all", "--jsonl"], ["--stats"], ["--name", "*", "--stats"],
               ["--name", "b", "--expect", "ndim=1"]):
    trouble(f"3: missing shard, {args}: one line", [index, *args], want if "--name" in args and "b" in args else ["s2.safetensors"],
            json_mode="--json" in args or "--jsonl" in args)
  trouble("3: missing shard through the folder: one line", [d, "--name", "b"], want)
  for args in ([], ["--list", "--json"], ["--name", "a"], ["--name", "a", "--expect", "ndim=2"]):
    rc, out, err = run([index, *args])
    lines = err.splitlines()
    tally.check(f"3: missing shard, {args}: still warned, once", rc in (0, 1) and out and len(lines) == 1 and
                "warning:" in lines[0] and "shard 's2.safetensors' of 2 tensors cannot be read" in lines[0], f"{rc} {err!r}")


def pt_file(path, tensors):
  """A PyTorch zip checkpoint written by hand, as torch.save lays it out (archive/data.pkl,
  pickle protocol 2; archive/data/<key> the storage bytes; archive/version): a dict of
  float32 tensors {name: (storage values, size, stride)}, each viewed with
  torch._utils._rebuild_tensor_v2 from offset 0, so a stride 0 is a saved expand."""
  def tup(ints):
    return b"(" + b"".join(b"J" + struct.pack("<i", v) for v in ints) + b"t"
  def ustr(s):
    s = s.encode()
    return b"X" + struct.pack("<I", len(s)) + s
  pkl, members = b"\x80\x02}", {}
  for key, (name, (values, size, stride)) in enumerate(tensors.items()):
    members[f"archive/data/{key}"] = struct.pack(f"<{len(values)}f", *values)
    storage = b"(" + ustr("storage") + b"ctorch\nFloatStorage\n" + ustr(str(key)) + ustr("cpu") + b"J" + struct.pack("<i", len(values)) + b"tQ"
    pkl += (ustr(name) + b"ctorch._utils\n_rebuild_tensor_v2\n(" + storage + b"J\x00\x00\x00\x00" + tup(size) + tup(stride) +
            b"\x89ccollections\nOrderedDict\n)RtRs")
  pkl += b"."
  with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
    z.writestr("archive/data.pkl", pkl)
    for name, data in members.items(): z.writestr(name, data)
    z.writestr("archive/version", "3\n")


def fault4_broadcasts(tmp):
  """4. Tensors that are huge broadcasts (torch.zeros(1).expand(10**6, 10**6) saved: a few
  bytes, 10**12 elements): diff, --stats and --hist cost the stored values, not the shape."""
  import numpy as np
  n = 10**6
  zeros, half, rows_a, rows_b = (os.path.join(tmp, f) for f in ("zeros.pt", "half.pt", "rows_a.pt", "rows_b.pt"))
  pt_file(zeros, {"w": ([0.0], [n, n], [0, 0])})
  pt_file(half, {"w": ([0.5], [n, n], [0, 0])})
  a_row, b_row = [1.0, 2.0, 3.0], [1.0, 2.0, 3.5]
  pt_file(rows_a, {"r": (a_row, [n, 3], [0, 1]), "c": (a_row, [3, n], [1, 0])})
  pt_file(rows_b, {"r": (b_row, [n, 3], [0, 1]), "c": (b_row, [3, n], [1, 0])})
  def diff_json(a, b, *extra):
    try:
      rc, out, err = run(["diff", a, b, "--json", *extra], timeout=30)
    except subprocess.TimeoutExpired:
      return None, None
    return rc, (json.loads(out) if out else {"err": err})
  rc, d = diff_json(zeros, zeros)
  t = d and d.get("tensors", [{}])[0]
  tally.check("4: diff of one 10**12 broadcast with itself ends, all same", rc == 0 and t["numel"] == n * n and t["mismatched"] == 0 and
              t["status"] == "same", f"{rc} {d}")
  rc, d = diff_json(zeros, half)
  t = d and d.get("tensors", [{}])[0]
  tally.check("4: diff of two 10**12 broadcasts: every element differs, by 0.5", rc == 1 and t["mismatched"] == n * n and
              t["first_mismatch"] == [0, 0] and t["max_abs"] == 0.5 and t["rmse"] == 0.5, f"{rc} {d}")
  # Broadcast along one axis of two: NumPy on the stored rows says which differ; each
  # repeats n times, and the first mismatch is the first row's.
  a, b = np.array(a_row, dtype=np.float32), np.array(b_row, dtype=np.float32)
  bad = ~np.isclose(a, b, rtol=1e-05, atol=1e-08)
  first = int(np.argmax(bad))
  rc, d = diff_json(rows_a, rows_b)
  got = {t["name_a"]: t for t in d.get("tensors", [])} if d else {}
  tally.check("4: diff of (10**6, 3) broadcasts: mismatches and the first as NumPy counts them",
              rc == 1 and got.get("r", {}).get("mismatched") == int(bad.sum()) * n and got["r"]["first_mismatch"] == [0, first] and
              got["r"]["max_abs"] == float(np.abs(a - b).max()), f"{rc} {got.get('r')}")
  tally.check("4: diff of (3, 10**6) broadcasts: mismatches and the first as NumPy counts them",
              got.get("c", {}).get("mismatched") == int(bad.sum()) * n and got["c"]["first_mismatch"] == [first, 0], f"{got.get('c')}")
  # Broadcast along different axes on each side: nothing to count once; the pairs would be
  # visited, so over the cap it is an error naming it, and under it the diff runs.
  cols, rows = os.path.join(tmp, "cols.pt"), os.path.join(tmp, "rows.pt")
  pt_file(cols, {"w": ([0.0] * n, [n, n], [1, 0])})
  pt_file(rows, {"w": ([0.0] * n, [n, n], [0, 1])})
  trouble("4: diff of broadcasts along different axes names the cap", ["diff", cols, rows], ["broadcast_pairs", "--limit broadcast_pairs="])
  small_c, small_r = os.path.join(tmp, "small_c.pt"), os.path.join(tmp, "small_r.pt")
  pt_file(small_c, {"w": (a_row, [3, 5], [1, 0])})
  pt_file(small_r, {"w": (b_row + [0.0, 0.0], [3, 5], [0, 1])})
  rc, d = diff_json(small_c, small_r, "--limit", "broadcast_pairs=15")
  want = int((~np.isclose(np.broadcast_to(a[:, None], (3, 5)), np.broadcast_to(np.array(b_row + [0.0, 0.0], np.float32), (3, 5)))).sum())
  tally.check("4: under --limit broadcast_pairs the pairs are compared", rc == 1 and d["tensors"][0]["mismatched"] == want, f"{rc} {d}")
  for args in (["--name", "w", "--stats", "--json"], ["--stats", "--json"], ["--name", "w", "--stats", "--hist=4", "--json"]):
    try:
      rc, out, err = run([half, *args], timeout=30)
    except subprocess.TimeoutExpired:
      rc, out, err = None, "", "timed out"
    j = json.loads(out) if rc == 0 and out else {}
    row = j.get("tensors", [j])[0] if j else {}
    ok = rc == 0 and row.get("count") == n * n and row.get("mean") == 0.5 and row.get("std") == 0.0 and row.get("min") == 0.5
    if "--hist=4" in args:
      ok = ok and sum(j.get("histogram", {}).get("counts", [])) == n * n
    tally.check(f"4: {args} of a 10**12 broadcast of 0.5 ends, counted whole", ok, f"{rc} {err[:200]!r} {str(row)[:300]}")
  try:
    rc, out, err = run([half, "--name", "w"], timeout=30)
  except subprocess.TimeoutExpired:
    rc, out, err = None, "", "timed out"
  tally.check("4: printing a 10**12 broadcast summarizes (6 of each axis shown)", rc == 0 and "summary: 36 of 1000000000000 elements shown" in out,
              f"{rc} {out[-200:]!r} {err!r}")


def with_crc(zip_path, member, crc, out_path):
  """The archive with `member`'s declared CRC-32 (local header and central directory) set to `crc`."""
  data = bytearray(open(zip_path, "rb").read())
  info = zipfile.ZipFile(zip_path).getinfo(member)
  struct.pack_into("<I", data, info.header_offset + 14, crc)
  at = 0
  while (at := data.find(b"PK\x01\x02", at)) >= 0:
    name_len = struct.unpack_from("<H", data, at + 28)[0]
    if data[at + 46:at + 46 + name_len] == member.encode(): struct.pack_into("<I", data, at + 16, crc)
    at += 4
  open(out_path, "wb").write(bytes(data))


def fault5_npz_crc(tmp):
  """5. An .npz member whose CRC-32 does not match: wherever every byte is read anyway (a
  deflated member inflated, a stored one printed whole, scanned, compared) exit 2 naming
  the member and both CRCs; a summary of a stored member reads part and says nothing."""
  import numpy as np
  import zlib
  small, big = np.arange(6, dtype=np.float32), np.arange(5000, dtype=np.int32)
  stored, deflated = os.path.join(tmp, "stored.npz"), os.path.join(tmp, "deflated.npz")
  np.savez(stored, small=small, big=big)
  np.savez_compressed(deflated, small=small, big=big)
  for path in (stored, deflated):
    z = zipfile.ZipFile(path)
    for m in ("small.npy", "big.npy"):
      # the real CRC, computed here from the member's bytes
      actual = zlib.crc32(z.read(m))
      bad = os.path.join(tmp, f"bad_{m[:-4]}_" + os.path.basename(path))
      with_crc(path, m, actual ^ 0x5A5A5A5A, bad)
      want = [f"member '{m}'", f"0x{actual:08x}", f"0x{actual ^ 0x5A5A5A5A:08x}", f"tensor '{m[:-4]}'"]
      name = m[:-4]
      kind = os.path.basename(path)
      trouble(f"5: {kind} {m} printed whole", [bad, "--name", name, "--full"], want)
      trouble(f"5: {kind} {m} as JSON (complete)", [bad, "--name", name, "--json"], want, json_mode=True)
      trouble(f"5: {kind} {m} --stats", [bad, "--name", name, "--stats"], want)
      trouble(f"5: {kind} whole-file --stats", [bad, "--stats"], want)
      trouble(f"5: {kind} {m} diff", ["diff", bad, path], want)
      if m == "big.npy" and path == stored:
        rc, out, err = run([bad, "--name", name])
        tally.check("5: a summary of a stored member reads part of it and says nothing", rc == 0 and "summary:" in out and not err,
                    f"{rc} {err!r}")
        rc, out, err = run([bad, "--list"])
        tally.check("5: a listing says nothing", rc == 0 and not err, f"{rc} {err!r}")
      rc, out, err = run(["validate", bad])
      tally.check(f"5: validate {kind} {m} still finds it", rc == 1 and "crc" in out.lower(), f"{rc} {out[:200]!r}")
    rc, out, err = run([path, "--all", "--full"])
    tally.check(f"5: an intact {os.path.basename(path)} prints whole without complaint", rc == 0 and not err, f"{rc} {err!r}")


def trouble_stdin(name, args, stdin, must_contain=()):
  rc, out, err = run(args, stdin=stdin)
  ok = rc == 2 and not out and len(err.splitlines()) == 1 and all(m in err for m in must_contain)
  tally.check(name, ok, f"{rc} {out[:80]!r} {err!r}")


def fault6_small_ones(tmp):
  """6. --raw with --format is a usage error; --plot into a missing folder says the OS's
  reason and the path; validate - reads standard input."""
  import errno
  raw = os.path.join(ROOT, "samples", "raw_f32.bin")
  trouble("6: --raw float32 --format npy is a usage error", [raw, "--raw", "float32", "--format", "npy"], ["--raw", "--format"])
  rc, out, err = run([raw, "--raw", "float32", "--format", "npy", "--json"])
  tally.check("6: ... and says usage in JSON", rc == 2 and json.loads(err)["error"]["code"] == "usage", err)
  png = os.path.join(tmp, "no_such_folder", "x.png")
  trouble("6: --plot into a missing folder names the path and the OS's reason", [os.path.join(ROOT, "samples", "float32.npy"), "--plot", png],
          [png, os.strerror(errno.ENOENT)])
  npy = open(os.path.join(ROOT, "samples", "int8.npy"), "rb").read()
  rc, out, err = run(["validate", "-", "--json"], stdin=npy)
  j = json.loads(out) if rc == 0 else {}
  tally.check("6: validate - reads standard input: a clean .npy", rc == 0 and j["files"][0]["file"] == "<stdin>" and
              j["files"][0]["format"] == "npy" and not j["files"][0]["findings"], f"{rc} {out[:300]!r} {err!r}")
  # the header length field says more than the 100 bytes given hold (computed from the header)
  header_len = struct.unpack_from("<H", npy, 8)[0]
  rc, out, err = run(["validate", "-"], stdin=npy[:100])
  tally.check("6: validate - of a cut .npy is a finding (exit 1)", rc == 1 and "<stdin>" in out and str(header_len) in out, f"{rc} {out!r} {err!r}")
  trouble_stdin("6: validate - - is a usage error", ["validate", "-", "-"], npy, ["standard input"])
  trouble_stdin("6: validate - of text is not a tensor file", ["validate", "-"], b"hello\n", ["<stdin>"])
  trouble_stdin("empty standard input says so", ["-"], b"", ["<stdin>", "empty input"])


def gguf_bytes(names):
  """A GGUF v3 file of float32 tensors of shape (2,), tensor i holding [i, i + 0.5]."""
  s = lambda b: struct.pack("<Q", len(b)) + b
  out = b"GGUF" + struct.pack("<IQQ", 3, len(names), 0)
  for i, n in enumerate(names):
    out += s(n) + struct.pack("<IQIQ", 1, 2, 0, 32 * i)  # n_dims 1, dim 2, F32, offset
  out += b"\0" * (-len(out) % 32)
  for i in range(len(names)):
    out += struct.pack("<2f", i, i + 0.5) + b"\0" * 24
  return out


def fault7_gguf_names(tmp):
  """7. (finding 15) A GGUF tensor name that is not UTF-8 was read as its backslashreplace
  text, so it collided with a tensor named by that very text: the file was refused as having
  a duplicate. Names are UTF-8 (gguf.md): such a name is refused at its bad byte, and a
  name that is backslash-x text is kept as it is, listed, selected and compared."""
  raw, text = b"w\xff", b"w\\xff"
  collide = os.path.join(tmp, "collide.gguf")
  data = gguf_bytes([raw, text])
  open(collide, "wb").write(data)
  bad_at = data.index(raw) + 1  # the 0xff byte
  for mode in ([], ["--json"]):
    trouble(f"7: a GGUF name that is not UTF-8 is refused at its byte {mode}", [collide, "--list", *mode],
            [collide, "not UTF-8", f"at byte {bad_at}"], json_mode=bool(mode))
  trouble("7: ... also when selected by --name", [collide, "--name", "w*"], [collide, "not UTF-8", f"at byte {bad_at}"])
  trouble("7: ... and in diff", ["diff", collide, collide], [collide, "not UTF-8", f"at byte {bad_at}"])
  rc, out, err = run(["validate", collide])
  tally.check("7: validate finds the name that is not UTF-8 (rule gguf.utf8, its byte)", rc == 1 and "[gguf.utf8]" in out and
              f"(byte {bad_at})" in out and "duplicate" not in out, f"{rc} {out!r} {err!r}")

  literal = os.path.join(tmp, "literal.gguf")
  open(literal, "wb").write(gguf_bytes([text, b"w"]))
  names = [text.decode(), "w"]
  rc, out, err = run([literal, "--list", "--json"])
  got = [t["name"] for t in json.loads(out)["tensors"]] if rc == 0 else None
  tally.check("7: JSON lists a backslash-x name as its text, next to a distinct one", got == names, f"{rc} {got} {err!r}")
  rc, out, err = run([literal, "--list"])
  first = out.splitlines()[1].split()[0] if rc == 0 and len(out.splitlines()) > 1 else None
  tally.check("7: the text listing escapes its backslash (unambiguous)", first == names[0].replace("\\", "\\\\"), f"{rc} {first!r} {err!r}")
  rc, out, err = run([literal, "--name", names[0], "--json"])
  got = json.loads(out)["tolist"] if rc == 0 else None
  tally.check("7: --name selects it by its text", got == [0.0, 0.5], f"{rc} {got} {err!r}")
  rc, out, err = run(["diff", literal, literal])
  tally.check("7: diff of the file with itself is clean", rc == 0, f"{rc} {out[:200]!r} {err!r}")
  rc, out, err = run(["validate", literal])
  tally.check("7: validate finds it clean", rc == 0, f"{rc} {out!r} {err!r}")


def peak_rss_kib(args):
  """(exit status, stdout, peak RSS in KiB) of one run, measured by GNU time."""
  p = subprocess.run(["/usr/bin/time", "-f", "%M", BIN] + args, capture_output=True, timeout=120)
  return p.returncode, p.stdout.decode(), int(p.stderr.decode().strip().splitlines()[-1])


def edges(a, e=3):
  """numpy.array2string's choice of shown elements as the tool's summarized JSON lays it out
  (each axis longer than 2e: e items, "...", e items)."""
  if a.ndim == 0: return a.item()
  keep = lambda xs: xs[:e] + ["..."] + xs[-e:] if len(xs) > 2 * e else xs
  return keep(a.tolist() if a.ndim == 1 else [edges(x, e) for x in a])


def fault8_deflated_summary(tmp):
  """8. (finding 12) A summary of a large DEFLATED .npz member inflated the whole member
  into memory. It now inflates front to back through a window: peak RSS stays far below the
  member's size, the printed elements are NumPy's, and the CRC is still checked where the
  reading reaches the member's end (a summary's last elements do)."""
  import numpy as np
  a = ((np.arange(4096 * 4096) % 7).astype(np.float32) * 0.25).reshape(4096, 4096)  # 64 MiB, deflates to ~160 KB
  path = os.path.join(tmp, "big_deflated.npz")
  np.savez_compressed(path, a=a)
  member_kib = a.nbytes // 1024
  with open(BIN, "rb") as f:
    sanitized = b"__asan_init" in f.read()  # ASan's shadow and quarantine: no RSS bound there
  small = lambda rss: sanitized or rss < member_kib // 3
  rc, out, rss = peak_rss_kib([path, "--name", "a"])
  tally.check(f"8: a summary of a {member_kib} KiB deflated member peaks below a third of it", rc == 0 and "summary: 36 of" in out and
              small(rss), f"{rc} peak {rss} KiB")
  rc, out, rss = peak_rss_kib([path, "--name", "a", "--stats", "--json"])
  j = json.loads(out) if rc == 0 else {}
  tally.check("8: --stats of it is NumPy's and peaks below a third of it", rc == 0 and j["min"] == float(a.min()) and j["max"] == float(a.max())
              and abs(j["mean"] - a.astype(np.float64).mean()) < 1e-9 and small(rss), f"{rc} peak {rss} KiB {out[:200]!r}")
  for expr, want in (("x", a), ("x[::-1]", a[::-1]), ("x.T", a.T), ("x[:, ::-1] * 2", a[:, ::-1] * 2)):
    rc, out, err = run([path, "--name", "a", "-e", expr, "--json", "--threshold", "1000"])
    got = json.loads(out)["tolist"] if rc == 0 else None
    tally.check(f"8: the summary of {expr} over it shows NumPy's elements", got == edges(want), f"{rc} {str(got)[:200]} {err!r}")
  z = zipfile.ZipFile(path)
  bad = os.path.join(tmp, "big_deflated_badcrc.npz")
  crc = z.getinfo("a.npy").CRC
  with_crc(path, "a.npy", crc ^ 1, bad)
  trouble("8: a summary of it with a wrong CRC is refused naming both CRCs", [bad, "--name", "a"],
          [bad, "'a.npy'", f"0x{crc:08x}", f"0x{crc ^ 1:08x}"])


def truncated_while_read(tmp):
  """A file cut short while the tool reads it (`cp new.npy x.npy` over it): one line naming
  the file and exit 2, not a bus error (SIGBUS, exit -7). The run is held on a full pipe
  while the file is truncated, so the read past the new end is certain."""
  import numpy as np
  path = os.path.join(tmp, "shrinks.npy")
  with open(path, "wb") as f:
    f.write(npy_bytes(np.arange(20_000_000, dtype=np.float32)))
  for args in (["--full", path], ["--json", path]):
    p = subprocess.Popen([BIN] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.read(1000)  # it prints; the pipe fills and the run waits on it
    time.sleep(0.3)
    os.truncate(path, 100_000)
    p.stdout.read()
    err = p.stderr.read().decode("utf-8", "replace")
    rc = p.wait()
    tally.check(f"truncated while read ({' '.join(args[:-1])}): exit 2, one line naming the file",
                rc == 2 and len(err.splitlines()) == 1 and path in err and "shorter" in err, f"exit {rc}: {err!r}")
    with open(path, "wb") as f:
      f.write(npy_bytes(np.arange(20_000_000, dtype=np.float32)))


def empty_selection(tmp):
  """--all over a file of no tensors selects nothing: exit 0 and an empty result naming the
  file, as the listing, --stats and diff of it give (it said 'nothing to inspect: give an
  INPUT', exit 2)."""
  path = os.path.join(tmp, "none.safetensors")
  with open(path, "wb") as f:
    f.write(struct.pack("<Q", 2) + b"{}")
  rc, out, err = run([path, "--all"])
  tally.check("empty --all: exit 0, nothing printed", rc == 0 and out == "" and err == "", f"{rc} {out!r} {err!r}")
  rc, out, err = run([path, "--all", "--json"])
  doc = json.loads(out) if rc == 0 else {}
  tally.check("empty --all --json: tensors [] of the file", rc == 0 and doc.get("tensors") == [] and doc.get("file") == path, f"{rc} {out!r} {err!r}")
  rc, out, err = run([path, "--all", "--stats", "--json"])
  doc = json.loads(out) if rc == 0 else {}
  tally.check("empty --all --stats --json: no rows, the file named", rc == 0 and doc.get("tensors") == [] and doc.get("file") == path,
              f"{rc} {out!r} {err!r}")


def validate_folder(tmp):
  """validate takes a model folder, as opening and diff do: its safetensors files, each
  checked (it said 'is a directory', exit 2)."""
  import shutil
  folder = os.path.join(tmp, "model")
  os.makedirs(folder)
  shutil.copy(MIXED, os.path.join(folder, "model.safetensors"))
  with open(os.path.join(folder, "config.json"), "w") as f:
    f.write("{}")
  rc, out, err = run(["validate", folder, "--json"])
  doc = json.loads(out) if rc == 0 else {}
  tally.check("validate FOLDER checks its safetensors file", rc == 0 and [f["file"] for f in doc.get("files", [])] ==
              [os.path.join(folder, "model.safetensors")], f"{rc} {out[:300]!r} {err!r}")


def main():
  fault2_transpose_of_0d()
  with tempfile.TemporaryDirectory() as tmp:
    fault1_errors_name_the_tensor(tmp)
    fault3_missing_shard_one_line(tmp)
    fault4_broadcasts(tmp)
    fault5_npz_crc(tmp)
    fault6_small_ones(tmp)
    fault7_gguf_names(tmp)
    fault8_deflated_summary(tmp)
    truncated_while_read(tmp)
    empty_selection(tmp)
    validate_folder(tmp)
  return tally.summary()


if __name__ == "__main__":
  sys.exit(main())
