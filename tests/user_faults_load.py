#!/usr/bin/env python3
"""What a new user found loading and validating files, each fault rebuilt and checked from
outside: a pickled dict naming a key twice (finding 1), validate's memory on large zip
members and the memory of large deflated PyTorch storages and endless devices (3), .npz
compression methods (4), validate's messages (5).

    /usr/bin/python3 tests/user_faults_load.py path/to/tensor-inspect

Inputs are made here (NumPy, zipfile, pickles written opcode by opcode) in a temporary
folder; what each check expects comes from those inputs: CPython's own pickle module
unpickles the same bytes (torch's globals replaced by plain callables, as torch is not
installed), np.load reads the same archives, peak RSS is GNU time's. Trouble is exit status
2, one line on stderr naming the input, nothing on stdout. Closes with `N passed, M failed`.
"""
import io, json, os, struct, sys, tempfile, zipfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally
from user_faults_common import BIN, run, trouble
from peak_rss import run_measured
from pickle_bytes import g, u, tensor, write_pt, StubUnpickler, flat

tally.pass_details = True
MiB = 1 << 20

def npy_bytes(a):
  b = io.BytesIO()
  np.save(b, a)
  return b.getvalue()


# --- finding 1 --------------------------------------------------------------------------

KEY_CASES = {  # name: the dict's SETITEMS body (key, value, ...), each value a tensor of storage i holding [i]
    "str twice": u("a") + tensor("0", [1]) + u("a") + tensor("1", [1]),
    "True then 1": b"\x88" + tensor("0", [1]) + b"K\x01" + tensor("1", [1]),
    "1, 1.0, True":
        b"K\x01" + tensor("0", [1]) + b"G" + struct.pack(">d", 1.0) + tensor("1", [1]) + b"\x88" + tensor("2", [1]),
    "0, -0.0, False":
        b"K\x00" + tensor("0", [1]) + b"G" + struct.pack(">d", -0.0) + tensor("1", [1]) + b"\x89" + tensor("2", [1]),
    "a, b, a": u("a") + tensor("0", [1]) + u("b") + tensor("1", [1]) + u("a") + tensor("2", [1]),
    "str and bytes": u("a") + tensor("0", [1]) + b"C\x01a" + tensor("1", [1]),
    "tuples (1, 'x') and (True, 'x')":
        b"(K\x01" + u("x") + b"t" + tensor("0", [1]) + b"(\x88" + u("x") + b"t" + tensor("1", [1]),
    "2**70 and 2.0**70":
        b"\x8a\x09" + bytes(8) + b"\x40" + tensor("0", [1]) + b"G" + struct.pack(">d", 2.0 ** 70) + tensor("1", [1]),
    "5 in ten bytes and 5": b"\x8a\x0a\x05" + bytes(9) + tensor("0", [1]) + b"K\x05" + tensor("1", [1]),
    "one nan through the memo":
        b"G" + struct.pack(">d", float("nan")) + b"q\x00" + tensor("0", [1]) + b"h\x00" + tensor("1", [1]),
    "None twice": b"N" + tensor("0", [1]) + b"N" + tensor("1", [1]),
    "nested dict": u("m") + b"}(" + u("w") + tensor("0", [1]) + u("w") + tensor("1", [1]) + b"u",
}


def finding1_duplicate_keys(tmp):
  """1. A pickled dict naming a key twice was listed twice ('a' two rows, --name a 'close
  matches', diff exit 2, validate clean). Python's dict keeps one entry: the first key, the
  last value, keys equal as == says (True == 1 == 1.0)."""
  for case, body in KEY_CASES.items():
    for how, pkl in (("SETITEMS", b"\x80\x02}(" + body + b"u."),
                     ("OrderedDict", b"\x80\x02" + g("collections", "OrderedDict") + b")R(" + body + b"u.")):
      path = os.path.join(tmp, "keys.pt")
      write_pt(path, pkl, {str(i): [float(i)] for i in range(3)})
      want = flat(StubUnpickler(io.BytesIO(pkl)).load())
      rc, out, err = run([path, "--all", "--json"])
      got = [(t["name"], str(int(t["tolist"][0]))) for t in json.loads(out)["tensors"]] if rc == 0 else (rc, err)
      tally.check(f"1: {case} ({how}): the tensors "
                  f"CPython's dict holds, in its order", got == want, f"tool {got}, CPython {want}")

  path = os.path.join(tmp, "dupkey.pt")  # the user's file: {'a': t(12,), 'a': t(2,)} over one storage
  def t(n):
    return (g("torch._utils", "_rebuild_tensor_v2") + b"((" + u("storage") + g("torch", "FloatStorage") + u("0") +
            u("cpu") + b"K\x0ctQ" + b"K\x00" + b"(K" + bytes([n]) + b"t(K\x01t\x89" + g("collections", "OrderedDict") +
            b")RtR")
  pkl = b"\x80\x02}(" + u("a") + t(12) + u("a") + t(2) + b"u."
  write_pt(path, pkl, {"0": np.arange(12)})
  stub = StubUnpickler(io.BytesIO(pkl)).load()
  rc, out, err = run([path, "--list", "--json"])
  names = [x["name"] for x in json.loads(out)["tensors"]] if rc == 0 else err
  tally.check("1: dupkey.pt lists the one "
              "key CPython's dict holds", names == list(stub), f"tool {names}, CPython {list(stub)}")
  rc, out, err = run([path, "--name", "a", "--json"])
  tally.check("1: --name a is the last tensor given for it, arange(12)[:2]", rc == 0 and
              json.loads(out)["tolist"] == np.arange(12, dtype="f4")[:2].tolist(), f"{rc} {out[:200]!r} {err!r}")
  rc, out, err = run(["diff", path, path])
  tally.check("1: diff of the file with itself is clean", rc == 0, f"{rc} {out[:200]!r} {err!r}")
  first, again = pkl.index(u("a")), pkl.rindex(u("a"))
  rc, out, err = run(["validate", path])
  tally.check(
      "1: validate names the key given again, both bytes, rule pickle.duplicate_key", rc == 1 and
      f"key 'a' (byte {again})" in out and f"first at byte {first}" in out and "[pickle.duplicate_key]" in out,
      f"{rc} {out!r} {err!r}")
  bad = os.path.join(tmp, "listkey.pt")
  listkey = b"\x80\x02}(]" + tensor("0", [1]) + b"u."
  write_pt(bad, listkey, {"0": [0.0]})
  try:
    StubUnpickler(io.BytesIO(listkey)).load()
    said = None
  except TypeError as e:
    said = str(e)  # unhashable type: 'list'
  trouble("1: a list as a dict key is CPython's TypeError, at its byte", [bad], [bad, str(said), "at byte 4"])


# --- finding 3 --------------------------------------------------------------------------


def peak_rss_kib(args, stdin=None):
  """(exit status, stdout, stderr, peak RSS in KiB) of one run, measured by GNU time."""
  rc, out, err, peak = run_measured(BIN, args, 300, stdin)
  return rc, out, err.strip(), peak // 1024


BASE_KIB = None  # a run on a literal: the floor every run has (and a sanitizer's shadow memory)


def small(kib, budget_mib=24):
  return kib < BASE_KIB + budget_mib * 1024


def finding3_validate_memory(tmp):
  """3. validate kept zip members up to 256 MiB in memory: a 200 MB zero member peaked at
  268 MB deflated and 399 MB stored (the copy, plus the mapped pages read), while a 600 MB
  one validated in 6 MB. Members are now read in chunks, only what the rules read kept,
  file pages dropped behind: memory stays flat. CRCs are still checked (zlib's, here)."""
  n = 12_000_000  # 48 MB of float32: the old copy alone would pass any small budget twice
  zeros, noise = np.zeros(n, "<f4"), np.random.default_rng(3).integers(0, 2 ** 32, n // 2, dtype="<u4")
  for name, save, arrays in (("deflated zeros", np.savez_compressed, {
      "a": zeros
  }), ("stored zeros", np.savez, {
      "a": zeros
  }), ("deflated noise", np.savez_compressed, {
      "a": noise
  })):
    path = os.path.join(tmp, name.replace(" ", "_") + ".npz")
    save(path, **arrays)
    rc, out, err, kib = peak_rss_kib(["validate", path])
    tally.check(f"3: validate of {name} ({arrays['a'].nbytes // MiB} MiB member) is clean in little memory",
                rc == 0 and "clean" in out and small(kib), f"{rc} {out.strip()!r} peak {kib} KiB, floor {BASE_KIB} KiB")
  path = os.path.join(tmp, "stored_zeros.npz")
  info = zipfile.ZipFile(path).getinfo("a.npy")
  data = bytearray(open(path, "rb").read())
  name_len, extra_len = struct.unpack_from("<HH", data,
                                           info.header_offset + 26)  # the local header's (NumPy adds a zip64 extra)
  at = info.header_offset + 30 + name_len + extra_len
  data[at + 10_000_000] ^= 1
  bad = os.path.join(tmp, "bad_crc.npz")
  open(bad, "wb").write(bytes(data))
  import zlib
  actual = zlib.crc32(bytes(data[at:at + info.file_size]))
  rc, out, err, kib = peak_rss_kib(["validate", bad])
  tally.check("3: ... a byte changed in it is still found, with both CRCs (zlib's)", rc == 1 and "[npz.crc]" in out and
              f"0x{actual:08x}" in out and f"0x{info.CRC:08x}" in out and small(kib), f"{rc} {out!r} peak {kib} KiB")
  short = os.path.join(tmp, "short.npz")
  whole = npy_bytes(np.arange(10, dtype="<f4"))
  with zipfile.ZipFile(short, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("a.npy", whole[:-8])  # the header says 40 bytes of data, 32 follow
  rc, out, err = run(["validate", short])
  tally.check("3: a deflated member shorter than its header says is found by its length (npy.data_short)", rc == 1 and
              "the data holds 32 bytes; shape "
              "and descr need 40 [npy.data_short]" in out, f"{rc} {out!r} {err!r}")


def finding3_deflated_storage(tmp):
  """3. A deflated .pt storage of 200 MB peaked at 415 MB printed, with --stats or with
  -e 'x[:3]': inflated whole, then gathered into a second copy. A large one is now read
  element by element through a window (its compressed pages dropped behind), a contiguous
  small one inflated straight into the output."""
  n = 12_000_000
  a = np.arange(n, dtype="<f4")
  path = os.path.join(tmp, "deflated.pt")
  with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
    z.writestr("archive/data.pkl", b"\x80\x02}(" + u("w") + tensor("0", [n], n) + u("t") +
               tensor("0", [3000, 4000], n).replace(b"(K\x01t", b"(K\x01J\xb8\x0b\x00\x00t") + b"u.")
    z.writestr("archive/data/0", a.tobytes())
  t = a.reshape(4000, 3000).T  # size (3000, 4000), stride (1, 3000): a saved transpose
  for args, check, what in ((["--name", "w"], lambda out: "summary: 6 of 12000000" in out,
                             "a summary"), (["--name", "w", "-e", "x[:3]",
                                             "--json"], lambda out: json.loads(out)["tolist"] == a[:3].tolist(),
                                            "x[:3]"), (["--name", "w", "--stats", "--json"], lambda out:
                                                       (json.loads(out)["min"], json.loads(out)["max"]) ==
                                                       (float(a.min()), float(a.max())), "--stats"),
                            (["--name", "t", "-e", "x[2, 3990:]",
                              "--json"], lambda out: json.loads(out)["tolist"] == t[2, 3990:].tolist(),
                             "a row of the transposed view"),
                            (["--name", "t", "-e", "x[:3, ::2000]",
                              "--json"], lambda out: json.loads(out)["tolist"] == t[:3, ::2000].tolist(),
                             "a corner of the transposed view")):
    rc, out, err, kib = peak_rss_kib([path, *args])
    # the transposed view's corner goes back: the storage inflated once, no more
    budget = 24 if what != "a corner of the transposed view" else 24 + 48
    tally.check(f"3: {what} of a {a.nbytes // MiB} MiB deflated storage: NumPy's values, in little memory", rc == 0 and
                check(out) and small(kib, budget), f"{rc} {out[:160]!r} {err!r} peak "
                f"{kib} KiB, floor {BASE_KIB} KiB")


def finding3_endless_device():
  """3. /dev/zero --raw float32 without --shape read 1 GiB (stream_bytes) into memory before
  refusing it. A character device may never end: without a shape it is refused at once."""
  for args, stdin in ((["/dev/zero", "--raw", "float32"], None), (["-", "--raw", "float32"], "/dev/zero")):
    rc, out, err, kib = peak_rss_kib(args, stdin)
    tally.check(f"3: {' '.join(args)}{' < ' + stdin if stdin else ''}: refused at once, in one line asking for --shape",
                rc == 2 and not out and len(err.splitlines()) == 1 and "--shape" in err and small(kib, 8),
                f"{rc} {err!r} peak {kib} KiB")
  rc, out, err = run(["/dev/null", "--raw", "float32", "--json"])
  tally.check("3: /dev/null --raw float32 is still "
              "np.frombuffer(b'', 'f4'): shape (0,)", rc == 0 and json.loads(out)["shape"] == [0],
              f"{rc} {out[:120]!r} {err!r}")


# --- finding 4 --------------------------------------------------------------------------


def with_method(path, method, out):
  """The archive with every member's method field (local header and central directory) set to `method`."""
  data = bytearray(open(path, "rb").read())
  for sig, at_method in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
    at = 0
    while (at := data.find(sig, at)) >= 0:
      struct.pack_into("<H", data, at + at_method, method)
      at += 4
  open(out, "wb").write(bytes(data))


def finding4_methods(tmp):
  """4. An .npz of BZIP2 members opened but validate called it an error (npz.method); one of
  LZMA members (np.load reads both, through zipfile) was refused. validate now agrees with
  the loader: BZIP2 (and LZMA where this libzip has it) read and clean; LZMA without it a
  one-line refusal naming the method, and validate's warning; a method NumPy cannot read an
  error. A zero-filled member beyond deflate's 1032:1 is no bomb for BZIP2 (600000:1)."""
  import ctypes
  lzma_readable = ctypes.CDLL("libzip.so.4").zip_compression_method_supported(14, 0) == 1
  a, zeros = np.arange(6, dtype="<f4").reshape(2, 3), np.zeros(2_000_000, "<f4")
  for method, name in ((zipfile.ZIP_BZIP2, "BZIP2"), (zipfile.ZIP_LZMA, "LZMA")):
    path = os.path.join(tmp, f"{name}.npz")
    with zipfile.ZipFile(path, "w", method) as z:
      z.writestr("a.npy", npy_bytes(a))
      z.writestr("zeros.npy", npy_bytes(zeros))
    loaded = np.load(path)
    readable = name == "BZIP2" or lzma_readable
    if readable:
      rc, out, err = run([path, "--name", "a", "--json"])
      tally.check(f"4: an .npz of {name} members "
                  f"gives np.load's values", rc == 0 and json.loads(out)["tolist"] == loaded["a"].tolist(),
                  f"{rc} {out[:200]!r} {err!r}")
      rc, out, err = run([path, "--name", "zeros", "--stats", "--json"])
      tally.check(
          f"4: ... and its zeros, {len(zeros) * 4} bytes from "
          f"{zipfile.ZipFile(path).getinfo('zeros.npy').compress_size}", rc == 0 and json.loads(out)["zero"] == int(
              (loaded["zeros"] == 0).sum()), f"{rc} {out[:200]!r} {err!r}")
      rc, out, err = run(["validate", path])
      tally.check(f"4: validate finds the .npz of {name} "
                  f"members clean, as the loader reads it", rc == 0 and "clean" in out, f"{rc} {out!r} {err!r}")
    else:
      trouble(f"4: an .npz of {name} members this libzip cannot "
              f"read: one line naming the member and the method", [path, "--list"],
              [path, "member 'a.npy'", "compression method 14 (LZMA) is not supported by libzip.so.4"])
      rc, out, err = run(["validate", path])
      tally.check(f"4: validate notes the same ({name}, npz.unsupported: exit 0, issue 23), no npz.method error",
                  rc == 0 and "compression method 14 (LZMA) is not supported" in out and "[npz.unsupported]" in out and
                  "[npz.method]" not in out, f"{rc} {out!r} {err!r}")
  zstd = os.path.join(tmp, "zstd.npz")
  with_method(os.path.join(tmp, "BZIP2.npz"), 93, zstd)
  try:
    np.load(zstd)["a"]
    numpy_reads = True
  except NotImplementedError:
    numpy_reads = False
  rc, out, err = run(["validate", zstd])
  tally.check(
      "4: a method np.load cannot read (ZSTD) is an npz.method error", not numpy_reads and rc == 1 and
      "compression method 93 (ZSTD): numpy reads STORED, "
      "DEFLATED, BZIP2 and LZMA members [npz.method]" in out, f"{rc} {out!r}")
  pt = os.path.join(tmp, "bzip2.pt")
  with zipfile.ZipFile(pt, "w") as z:
    z.writestr("archive/data.pkl", b"\x80\x02}(" + u("w") + tensor("0", [3], 3) + b"u.")
    z.writestr("archive/data/0", np.array([1.5, -2, 3], "<f4").tobytes(), compress_type=zipfile.ZIP_BZIP2)
  rc, out, err = run([pt, "--name", "w", "--json"])
  tally.check("4: a .pt storage in BZIP2 is read", rc == 0 and json.loads(out)["tolist"] == [1.5, -2.0, 3.0],
              f"{rc} {out[:200]!r} {err!r}")
  rc, out, err = run(["validate", pt])
  tally.check(
      "4: validate warns that torch.load reads only STORED and "
      "DEFLATED (pytorch.method), no error (exit 0; 1 with --strict)", rc == 0 and
      run(["validate", pt, "--strict"])[0] == 1 and "[pytorch.method]" in out and "error:" not in out,
      f"{rc} {out!r} {err!r}")


# --- finding 5 --------------------------------------------------------------------------


def npy_with(header, data):
  """A version 1.0 .npy of this header text (padded to 64 bytes, as numpy pads) and data."""
  h = header.encode()
  h += b" " * (-(10 + len(h) + 1) % 64) + b"\n"
  return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h + data


def finding5_messages(tmp):
  """5. validate's messages: a loader's error repeated the file name ("x.npy: error: x.npy:
  header: ..."); descr '<f3', which is no numpy dtype, also gave "1 bytes after the array's
  data" (as if 3 bytes an item); a big-endian GGUF was "version 50331648" where the loader
  says "big-endian GGUF is not supported"."""
  f3 = os.path.join(tmp, "f3.npy")
  open(f3, "wb").write(npy_with("{'descr': '<f3', 'fortran_order': False, 'shape': (1,), }", bytes(4)))
  try:
    np.load(f3)
    numpy_reads = True
  except (TypeError, ValueError):
    numpy_reads = False
  rc, out, err = run(["validate", f3])
  lines = out.splitlines()[:-1]
  tally.check(
      "5: descr '<f3' (np.load refuses it) is one error naming "
      "it, the file named once, no trailing-bytes warning", not numpy_reads and rc == 1 and len(lines) == 1 and
      "'<f3'" in lines[0] and lines[0].count(os.path.basename(f3)) == 1 and "after the array's data" not in out,
      f"{rc} {out!r}")
  f4 = os.path.join(tmp, "f4.npy")
  open(f4, "wb").write(npy_with("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", bytes(5)))
  rc, out, err = run(["validate", f4])
  tally.check("5: ... while '<f4' with 5 bytes of data "
              "still has 1 byte after it (a warning: exit 0)", rc == 0 and "1 bytes after the array's data" in out,
              f"{rc} {out!r}")
  npz = os.path.join(tmp, "f3.npz")
  with zipfile.ZipFile(npz, "w") as z:
    z.writestr("a.npy", open(f3, "rb").read())
  rc, out, err = run(["validate", npz])
  tally.check(
      "5: in an .npz the line names "
      "the file once and the member", rc == 1 and all(l.count("f3.npz") == 1 for l in out.splitlines()[:-1]) and
      "a.npy" in out and "'<f3'" in out, f"{rc} {out!r}")
  be = os.path.join(tmp, "be.gguf")
  open(be, "wb").write(b"GGUF" + struct.pack(">IQQ", 3, 0, 0))  # gguf.md: a big-endian file writes its version so too
  said = trouble("5: the loader refuses a big-endian GGUF", [be], [be, "big-endian GGUF is not supported"])
  rc, out, err = run(["validate", be])
  tally.check(
      "5: validate says what the loader says, "
      "not 'version 50331648' (a note: exit 0)", rc == 0 and "big-endian GGUF is not supported" in out and
      str(struct.unpack("<I", struct.pack(">I", 3))[0]) not in out, f"{rc} {out!r} (loader: {said!r})")


def main():
  global BASE_KIB
  BASE_KIB = peak_rss_kib(["5"])[3]
  with tempfile.TemporaryDirectory() as tmp:
    finding1_duplicate_keys(tmp)
    finding3_validate_memory(tmp)
    finding3_deflated_storage(tmp)
    finding3_endless_device()
    finding4_methods(tmp)
    finding5_messages(tmp)
  return tally.summary()


if __name__ == "__main__":
  sys.exit(main())
