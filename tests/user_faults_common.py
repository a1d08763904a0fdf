"""Helpers of the user_faults_*.py scripts: running the binary (given as argv[1]) and
checking trouble, and inputs written by hand (safetensors) or by NumPy (.npy bytes).

    from user_faults_common import BIN, ROOT, run, trouble
    trouble("name", ["5", "-e", "x.T"], ["of shape ()"])    # exit 2, one stderr line, stdout empty
"""
import io, json, os, struct, subprocess, sys

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


def trouble_stdin(name, args, stdin, must_contain=()):
  rc, out, err = run(args, stdin=stdin)
  ok = rc == 2 and not out and len(err.splitlines()) == 1 and all(m in err for m in must_contain)
  tally.check(name, ok, f"{rc} {out[:80]!r} {err!r}")


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


def safetensors_bytes(tensors):
  """A safetensors file of {name: float32 list}, written by hand (8-byte length, JSON, data)."""
  header, data = {}, b""
  for name, values in tensors.items():
    header[name] = {"dtype": "F32", "shape": [len(values)], "data_offsets": [len(data), len(data) + 4 * len(values)]}
    data += struct.pack(f"<{len(values)}f", *values)
  h = json.dumps(header).encode()
  return struct.pack("<Q", len(h)) + h + data


def write_pt(path, tensors):
  """A PyTorch zip checkpoint written by hand, as torch.save lays it out (archive/data.pkl,
  pickle protocol 2; archive/data/<key> the storage bytes; archive/version): a dict
  {name: (storage type, storage bytes, storage numel, size, stride)} of tensors, each viewed
  with torch._utils._rebuild_tensor_v2 from offset 0, so a stride 0 is a saved expand and
  a stride (1, 2) of a (2, 3) a saved transpose. The type is torch's class name
  ("FloatStorage", "ComplexFloatStorage")."""
  import zipfile
  def tup(ints):
    return b"(" + b"".join(b"J" + struct.pack("<i", v) for v in ints) + b"t"
  def ustr(s):
    s = s.encode()
    return b"X" + struct.pack("<I", len(s)) + s
  pkl, members = b"\x80\x02}", {}
  for key, (name, (storage_type, data, numel, size, stride)) in enumerate(tensors.items()):
    members[f"archive/data/{key}"] = data
    storage = (b"(" + ustr("storage") + b"ctorch\n" + storage_type.encode() + b"\n" + ustr(str(key)) + ustr("cpu") +
               b"J" + struct.pack("<i", numel) + b"tQ")
    pkl += (ustr(name) + b"ctorch._utils\n_rebuild_tensor_v2\n(" + storage + b"J\x00\x00\x00\x00" + tup(size) +
            tup(stride) + b"\x89ccollections\nOrderedDict\n)RtRs")
  pkl += b"."
  with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
    z.writestr("archive/data.pkl", pkl)
    for name, data in members.items(): z.writestr(name, data)
    z.writestr("archive/version", "3\n")
