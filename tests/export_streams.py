"""export beyond the plain file: .npz with zip64 records (forced on a small archive by the
test switch TI_ZIP64_FROM, read by Python's zipfile and NumPy and checked byte by byte against
PKWARE's APPNOTE.TXT), and `-o -` (standard output, a pipe or a file; --format required; a
terminal refused).

Run: python3 tests/export_streams.py build/tensor-inspect
"""
import io, os, pty, shutil, struct, subprocess, sys, tempfile, zipfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally

BIN = os.path.abspath(sys.argv[1])
tmp = tempfile.mkdtemp(prefix="ti-export-streams-")
def path(n): return os.path.join(tmp, n)


def run(args, env=None, stdout=subprocess.PIPE):
  e = dict(os.environ, **(env or {}))
  p = subprocess.run([BIN] + args, stdout=stdout, stderr=subprocess.PIPE, env=e)
  return p.returncode, p.stdout, p.stderr.decode(errors="replace")


def same_bits(a, b):
  return a.dtype == b.dtype and a.shape == b.shape and a.tobytes(order="C") == b.tobytes(order="C")


rng = np.random.default_rng(2026)
arrays = {"w": rng.standard_normal((5, 7)).astype(np.float32), "b": np.arange(-3, 9, dtype=np.int64),
          "mask": rng.random((2, 3, 4)) > 0.5, "scalar": np.array(-0.0, np.float64)}
np.savez(path("src.npz"), **arrays)


def npz_members_equal(data):
  """np.load reads every member equal and zipfile finds every CRC-32 right."""
  with np.load(io.BytesIO(data)) as z:
    got = {k: z[k] for k in z.files}
  with zipfile.ZipFile(io.BytesIO(data)) as z:
    crcs_ok = z.testzip() is None
  return sorted(got) == sorted(arrays) and all(same_bits(got[k], arrays[k]) for k in arrays) and crcs_ok


def end_records(data):
  """The end of central directory record (APPNOTE 4.3.16) and, when the zip64 locator
  (4.3.15) precedes it, the zip64 end record (4.3.14) it points to, parsed here by hand."""
  end = data.rindex(b"PK\x05\x06")
  _, _, _, n_disk, n, cd_size, cd_off, _ = struct.unpack("<IHHHHIIH", data[end:end + 22])
  classic = {"entries": n, "cd_size": cd_size, "cd_offset": cd_off}
  if end < 20 or data[end - 20:end - 16] != b"PK\x06\x07":
    return classic, None
  _, _, z64_at, disks = struct.unpack("<IIQI", data[end - 20:end])
  sig, rec_size, made, need, _, _, n_disk64, n64, cd_size64, cd_off64 = struct.unpack(
      "<IQHHIIQQQQ", data[z64_at:z64_at + 56])
  z64 = {"sig": sig, "size": rec_size, "need": need, "entries": n64, "cd_size": cd_size64, "cd_offset": cd_off64,
         "disks": disks, "right_before_locator": z64_at + 56 == end - 20}
  return classic, z64


def central_zip64_fields(data):
  """Each central directory header's fixed size/offset fields and zip64 extra field (4.5.3)."""
  classic, z64 = end_records(data)
  at = (z64 or classic)["cd_offset"]
  out = []
  while data[at:at + 4] == b"PK\x01\x02":
    (need, flags, csize, usize, nlen, xlen, clen, local) = struct.unpack("<6xHH10xIIHHH8xI", data[at:at + 46])
    extra = data[at + 46 + nlen:at + 46 + nlen + xlen]
    fields = None
    if extra[:2] == b"\x01\x00":
      fields = struct.unpack("<QQQ", extra[4:4 + 24]) if struct.unpack("<H", extra[2:4])[0] == 24 else extra
    out.append({"need": need, "flags": flags, "fixed": (usize, csize, local), "zip64": fields})
    at += 46 + nlen + xlen + clen
  return out


# 1. zip64 forced on a small archive, written to a seekable file.
rc, _, err = run(["export", path("src.npz"), "--all", "-o", path("z64.npz")], env={"TI_ZIP64_FROM": "0"})
data = open(path("z64.npz"), "rb").read() if rc == 0 else b""
try:
  ok = rc == 0 and npz_members_equal(data)
except Exception as e:  # noqa: BLE001 - a failed check
  ok, err = False, repr(e)
tally.check("TI_ZIP64_FROM=0: a zip64 .npz that np.load reads equal and zipfile finds every CRC right", ok, err)
try:
  classic, z64 = end_records(data)
  central = central_zip64_fields(data)
  infos = zipfile.ZipFile(io.BytesIO(data)).infolist()
  ok = (z64 is not None and z64["sig"] == 0x06064b50 and z64["size"] == 44 and z64["need"] == 45 and
        z64["disks"] == 1 and z64["right_before_locator"] and z64["entries"] == len(arrays) and
        classic["cd_size"] == 0xFFFFFFFF and classic["cd_offset"] == 0xFFFFFFFF and
        classic["entries"] == len(arrays) and z64["cd_offset"] + z64["cd_size"] == data.rindex(b"PK\x06\x06"))
  tally.check("... ends with a zip64 end record (44 bytes after its size field, 4.5 needed) and locator, "
              "the classic record's offset and size 0xFFFFFFFF", ok, f"{classic} {z64}")
  ok = len(central) == len(arrays) and all(
      c["need"] == 45 and c["fixed"] == (0xFFFFFFFF,) * 3 and isinstance(c["zip64"], tuple)
      and c["zip64"][0] == c["zip64"][1] == i.file_size and c["zip64"][2] == i.header_offset and c["flags"] == 0
      for c, i in zip(central, infos))
  tally.check("... each central header: sizes and offset 0xFFFFFFFF, the real ones in a 24-byte zip64 extra "
              "field, as zipfile reads them", ok, repr(central[:2]))
  local = infos[1].header_offset
  _, need, flags, _, _, _, crc, csize, usize, nlen, xlen = struct.unpack("<IHHHHHIIIHH", data[local:local + 30])
  extra = data[local + 30 + nlen:local + 30 + nlen + xlen]
  ok = (need == 45 and (csize, usize) == (0xFFFFFFFF, 0xFFFFFFFF) and crc == infos[1].CRC
        and extra == struct.pack("<HHQQ", 1, 16, infos[1].file_size, infos[1].file_size))
  tally.check("... each local header: 4.5 needed, its CRC-32, sizes in a 16-byte zip64 extra field", ok,
              f"{need} {csize:#x} {usize:#x} {extra!r}")
except Exception as e:  # noqa: BLE001
  tally.check("... zip64 records parsed by hand", False, repr(e))
rc, out, err = run([path("z64.npz"), "--name", "b", "--json"])
tally.check("... and the tool reads "
            "its own zip64 archive back", rc == 0 and b'"tolist": [-3, -2' in out.replace(b"\n", b""),
            err + out.decode()[:200])

rc, _, err = run(["export", path("src.npz"), "--all", "-o", path("plain.npz")])
data = open(path("plain.npz"), "rb").read() if rc == 0 else b""
classic, z64 = end_records(data) if data else (None, "?")
tally.check(
    "without the switch: no zip64 record in a small archive, read back equal", rc == 0 and z64 is None and
    npz_members_equal(data) and all(c["zip64"] is None for c in central_zip64_fields(data)), err)

# 2. Standard output: a pipe (not seekable: data descriptors), a file the shell opened.
rc, out, err = run(["export", path("src.npz"), "--all", "--format", "npz", "-o", "-"])
try:
  infos = zipfile.ZipFile(io.BytesIO(out)).infolist()
  ok = rc == 0 and npz_members_equal(out) and all(i.flag_bits & 0x08 for i in infos)
  for i in infos:  # each member's data is followed by its descriptor: signature, CRC-32, 4-byte sizes
    _, _, _, _, _, _, crc, csize, usize, nlen, xlen = struct.unpack("<IHHHHHIIIHH",
                                                                    out[i.header_offset:i.header_offset + 30])
    end = i.header_offset + 30 + nlen + xlen + i.file_size
    ok = ok and (crc, csize, usize) == (0, 0, 0) and out[end:end + 16] == struct.pack(
        "<IIII", 0x08074b50, i.CRC, i.file_size, i.file_size)
except Exception as e:  # noqa: BLE001
  ok, err = False, err + repr(e)
tally.check("-o - --format npz into a pipe: np.load reads it equal; each member streamed with a data descriptor "
            "(flag bit 3, zero CRC and sizes in its local header)", ok, err)
rc, out, err = run(["export", path("src.npz"), "--all", "--format", "npz", "-o", "-"], env={"TI_ZIP64_FROM": "0"})
try:
  infos = zipfile.ZipFile(io.BytesIO(out)).infolist()
  ok = rc == 0 and npz_members_equal(out) and end_records(out)[1] is not None
  for i in infos:  # zip64: 8-byte sizes in the descriptor (4.3.9.1)
    _, _, _, _, _, _, _, _, _, nlen, xlen = struct.unpack("<IHHHHHIIIHH", out[i.header_offset:i.header_offset + 30])
    end = i.header_offset + 30 + nlen + xlen + i.file_size
    ok = ok and out[end:end + 24] == struct.pack("<IIQQ", 0x08074b50, i.CRC, i.file_size, i.file_size)
except Exception as e:  # noqa: BLE001
  ok, err = False, err + repr(e)
tally.check("... zip64 and streamed: descriptors with 8-byte sizes, read back equal", ok, err)

with open(path("stdout.safetensors"), "wb") as f:
  rc, _, err = run(
      ["export", path("src.npz"), "--name", "w", "--name", "b", "--format", "safetensors", "-o", "-"], stdout=f)
try:
  b = open(path("stdout.safetensors"), "rb").read()
  n = struct.unpack("<Q", b[:8])[0]
  import json
  h = json.loads(b[8:8 + n])
  got = {
      k: np.frombuffer(b[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]], {
          "F32": "<f4",
          "I64": "<i8"
      }[v["dtype"]]).reshape(v["shape"]) for k, v in h.items() if k != "__metadata__"
  }
  ok = rc == 0 and sorted(got) == ["b", "w"] and all(same_bits(got[k], arrays[k]) for k in got)
except Exception as e:  # noqa: BLE001
  ok, err = False, err + repr(e)
tally.check("-o - --format safetensors into a file (> out): read back equal by hand", ok, err)

with open(path("appended.npy"), "wb") as f: f.write(b"KEEP")
with open(path("appended.npy"), "ab") as f:
  rc, _, err = run(["export", path("src.npz"), "--name", "w", "--format", "npy", "-o", "-"], stdout=f)
b = open(path("appended.npy"), "rb").read()
tally.check("-o - --format npy appended (>> out): the file's first bytes kept, the .npy after them",
            rc == 0 and b[:4] == b"KEEP" and same_bits(np.load(io.BytesIO(b[4:])), arrays["w"]), err)
with open(path("appended.npz"), "wb") as f: f.write(b"KEEP")
with open(path("appended.npz"), "ab") as f:  # appending cannot seek back: streamed with descriptors
  rc, _, err = run(["export", path("src.npz"), "--all", "--format", "npz", "-o", "-"], stdout=f)
b = open(path("appended.npz"), "rb").read()
tally.check("... and an .npz appended: streamed "
            "(descriptors), read back equal", rc == 0 and b[:4] == b"KEEP" and npz_members_equal(b[4:]), err)

# Standard output a regular file past a prefix (`{ printf KEEP; tensor-inspect ... -o -; } > out`): each
# member's CRC, patched into its local header after its data, goes at that header's place, not at the
# file's byte 14 + offset (which overwrote the prefix's method and time fields).
with open(path("prefixed.npz"), "wb") as f:
  f.write(b"KEEP")
  f.flush()
  rc, _, err = run(["export", path("src.npz"), "--all", "--format", "npz", "-o", "-"], stdout=f)
b = open(path("prefixed.npz"), "rb").read()
z = b[4:]
try:
  members = zipfile.ZipFile(io.BytesIO(z)).infolist()
  local_crcs = [struct.unpack("<I", z[m.header_offset + 14:m.header_offset + 18])[0] for m in members]
  ok = (rc == 0 and b[:4] == b"KEEP" and npz_members_equal(z) and local_crcs == [m.CRC for m in members]
        and all(z[m.header_offset:m.header_offset + 4] == b"PK\x03\x04" for m in members))
except Exception as e:  # noqa: BLE001
  ok, err = False, err + repr(e)
tally.check("... an .npz into a regular file past a prefix (> out, seekable): each local header's CRC is "
            "the central directory's, the prefix kept", ok, err)

os.mkfifo(path("fifo.npz"))
import threading
received = []
reader = threading.Thread(target=lambda: received.append(open(path("fifo.npz"), "rb").read()), daemon=True)
reader.start()
rc, _, err = run(["export", path("src.npz"), "--all", "-o", path("fifo.npz")])
if reader.is_alive() and rc != 0:  # the tool never opened it: release the reader
  os.close(os.open(path("fifo.npz"), os.O_WRONLY | os.O_NONBLOCK))
reader.join(60)
got = received[0] if received else b""
tally.check("-o FIFO.npz (exists, no --force needed): written through, streamed, read back equal; the FIFO kept",
            rc == 0 and npz_members_equal(got) and os.path.exists(path("fifo.npz")) and
            __import__("stat").S_ISFIFO(os.stat(path("fifo.npz")).st_mode), err)

rc, out, err = run(["export", path("src.npz"), "--name", "w", "-o", "-"])
tally.check("-o - without --format: exit 2 "
            "naming --format, nothing on stdout", rc == 2 and "--format" in err and out == b"", err)
rc, out, err = run(["export", path("src.npz"), "--name", "w", "--format", "npz", "-o", path("x.npy")])
tally.check("--format npz -o x.npy: exit 2 (they contradict), nothing written",
            rc == 2 and "contradicts" in err and not os.path.exists(path("x.npy")), err)
rc, out, err = run(["export", path("src.npz"), "--name", "w", "--format", "png", "-o", "-"])
tally.check("--format png: exit 2 "
            "naming the three formats", rc == 2 and "npy, npz or safetensors" in err and out == b"", err)
rc, out, err = run(["export", path("src.npz"), "--name", "w", "--format", "npy", "-o", path("noext")])
tally.check("--format npy -o noext: written as .npy", rc == 0 and
            same_bits(np.load(path("noext"), allow_pickle=False), arrays["w"]), err)

master, slave = pty.openpty()
rc, out, err = run(["export", path("src.npz"), "--name", "w", "--format", "npy", "-o", "-"], stdout=slave)
os.close(slave)
os.set_blocking(master, False)
try:
  leaked = os.read(master, 4096)
except (BlockingIOError, OSError):
  leaked = b""
os.close(master)
tally.check("-o - on a terminal: exit 2 naming "
            "it, no byte on the terminal", rc == 2 and "terminal" in err and not leaked, f"{err} {leaked[:40]!r}")

leftovers = [n for n in os.listdir(tmp) if ".tmp-" in n]
tally.check("no temporary file is left behind", not leftovers, repr(leftovers))
shutil.rmtree(tmp)
sys.exit(tally.summary())
