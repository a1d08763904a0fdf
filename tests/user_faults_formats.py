#!/usr/bin/env python3
"""What a new user found that surprised them, each fault rebuilt and checked from outside:
inside container formats: .npz member CRCs (fault 5), GGUF tensor names (7), a summary of a
large deflated member in bounded memory (8), validate of a model folder.

    python3 tests/user_faults_formats.py path/to/tensor-inspect

Inputs are made here (NumPy, zipfile, hand-built bytes) in a temporary folder; what each
check expects is computed from those inputs (headers read back with json/zipfile/zlib),
never copied from the tool's output. Trouble must be exit status 2, one line on stderr
naming the input and the place, nothing on stdout (user_faults_common.trouble). Closes
with `N passed, M failed`.
"""
import json, os, struct, subprocess, sys, tempfile, time, zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally
from user_faults_common import BIN, MIXED, run, trouble


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
        tally.check("5: a summary of a stored member "
                    "reads part of it and says nothing", rc == 0 and "summary:" in out and not err, f"{rc} {err!r}")
        rc, out, err = run([bad, "--list"])
        tally.check("5: a listing says nothing", rc == 0 and not err, f"{rc} {err!r}")
      rc, out, err = run(["validate", bad])
      tally.check(f"5: validate {kind} {m} still finds it", rc == 1 and "crc" in out.lower(), f"{rc} {out[:200]!r}")
    rc, out, err = run([path, "--all", "--full"])
    tally.check(f"5: an intact {os.path.basename(path)} "
                f"prints whole without complaint", rc == 0 and not err, f"{rc} {err!r}")


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
  tally.check("7: validate finds the name that is "
              "not UTF-8 (rule gguf.utf8, its byte)", rc == 1 and "[gguf.utf8]" in out and f"(byte {bad_at})" in out and
              "duplicate" not in out, f"{rc} {out!r} {err!r}")

  literal = os.path.join(tmp, "literal.gguf")
  open(literal, "wb").write(gguf_bytes([text, b"w"]))
  names = [text.decode(), "w"]
  rc, out, err = run([literal, "--list", "--json"])
  got = [t["name"] for t in json.loads(out)["tensors"]] if rc == 0 else None
  tally.check("7: JSON lists a backslash-x name as "
              "its text, next to a distinct one", got == names, f"{rc} {got} {err!r}")
  rc, out, err = run([literal, "--list"])
  first = out.splitlines()[1].split()[0] if rc == 0 and len(out.splitlines()) > 1 else None
  tally.check("7: the text listing escapes "
              "its backslash (unambiguous)", first == names[0].replace("\\", "\\\\"), f"{rc} {first!r} {err!r}")
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
  tally.check(f"8: a summary of a {member_kib} KiB "
              f"deflated member peaks below a third of it", rc == 0 and "summary: 36 of" in out and small(rss),
              f"{rc} peak {rss} KiB")
  rc, out, rss = peak_rss_kib([path, "--name", "a", "--stats", "--json"])
  j = json.loads(out) if rc == 0 else {}
  tally.check(
      "8: --stats of it is NumPy's "
      "and peaks below a third of it", rc == 0 and j["min"] == float(a.min()) and j["max"] == float(a.max()) and
      abs(j["mean"] - a.astype(np.float64).mean()) < 1e-9 and small(rss), f"{rc} peak {rss} KiB {out[:200]!r}")
  for expr, want in (("x", a), ("x[::-1]", a[::-1]), ("x.T", a.T), ("x[:, ::-1] * 2", a[:, ::-1] * 2)):
    rc, out, err = run([path, "--name", "a", "-e", expr, "--json", "--threshold", "1000"])
    got = json.loads(out)["tolist"] if rc == 0 else None
    tally.check(f"8: the summary of {expr} over "
                f"it shows NumPy's elements", got == edges(want), f"{rc} {str(got)[:200]} {err!r}")
  z = zipfile.ZipFile(path)
  bad = os.path.join(tmp, "big_deflated_badcrc.npz")
  crc = z.getinfo("a.npy").CRC
  with_crc(path, "a.npy", crc ^ 1, bad)
  trouble("8: a summary of it with a wrong CRC is refused naming both CRCs", [bad, "--name", "a"],
          [bad, "'a.npy'", f"0x{crc:08x}", f"0x{crc ^ 1:08x}"])


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
  with tempfile.TemporaryDirectory() as tmp:
    fault5_npz_crc(tmp)
    fault7_gguf_names(tmp)
    fault8_deflated_summary(tmp)
    validate_folder(tmp)
  return tally.summary()


if __name__ == "__main__":
  sys.exit(main())
