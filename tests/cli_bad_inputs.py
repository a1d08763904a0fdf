#!/usr/bin/env python3
"""Every bad input gives exit status 2, exactly one line on stderr, and nothing on stdout.

    python3 tests/cli_bad_inputs.py path/to/tensor-inspect

Bad literals, malformed expressions, and corrupt or hostile files of every format (built
here byte by byte, into a temporary folder). A crash, a hang, a second stderr line or any
stdout counts as a failure. Closes with `N passed, M failed`.
"""
import io, json, os, random, struct, subprocess, sys, tempfile, zipfile, zlib

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

def npy(header: str, data: bytes = b"", magic=b"\x93NUMPY", version=b"\x01\x00") -> bytes:
  h = header.encode("latin1")
  pad = (64 - (10 + len(h) + 1) % 64) % 64
  h = h + b" " * pad + b"\n"
  return magic + version + struct.pack("<H", len(h)) + h + data

def safetensors(header, data: bytes = b"", length=None) -> bytes:
  h = json.dumps(header).encode() if not isinstance(header, bytes) else header
  return struct.pack("<Q", len(h) if length is None else length) + h + data

def gguf(version=3, n_tensors=0, n_kv=0, body=b"") -> bytes:
  return b"GGUF" + struct.pack("<IQQ", version, n_tensors, n_kv) + body

def gstr(s: bytes) -> bytes:
  return struct.pack("<Q", len(s)) + s

def zip_bytes(members) -> bytes:
  import io
  b = io.BytesIO()
  with zipfile.ZipFile(b, "w") as z:
    for name, data, compress in members:
      z.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED)
  return b.getvalue()

def declare_size(zip_data: bytes, size: int) -> bytes:
  """The archive with every member's declared uncompressed size (local and central) set to `size`."""
  b = bytearray(zip_data)
  at = 0
  while (at := b.find(b"PK\x03\x04", at)) >= 0:
    struct.pack_into("<I", b, at + 22, size); at += 4
  at = 0
  while (at := b.find(b"PK\x01\x02", at)) >= 0:
    struct.pack_into("<I", b, at + 24, size); at += 4
  return bytes(b)

good_npy = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", struct.pack("<2f", 1.0, 2.0))

FILES = {
    # .npy
    "npy_bad_magic.npy":
        b"\x93NUMPZ\x01\x00" + good_npy[8:],
    "npy_version_9.npy":
        npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", b"\0" * 8, version=b"\x09\x00"),
    "npy_truncated_magic.npy":
        b"\x93NUM",
    "npy_header_len_past_eof.npy":
        b"\x93NUMPY\x01\x00" + struct.pack("<H", 60000) + b"{'descr'",
    "npy_short_data.npy":
        npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", b"\0" * 40),
    "npy_unclosed_dict.npy":
        npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), ", b"\0" * 8),
    "npy_missing_shape.npy":
        npy("{'descr': '<f4', 'fortran_order': False, }", b"\0" * 8),
    "npy_extra_key.npy":
        npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1, }", b"\0" * 8),
    "npy_bad_descr.npy":
        npy("{'descr': '<z9', 'fortran_order': False, 'shape': (2,), }", b"\0" * 8),
    "npy_complex.npy":
        npy("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", b"\0" * 8),
    "npy_object.npy":
        npy("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", b"\0" * 8),
    "npy_string.npy":
        npy("{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }", b"\0" * 12),
    "npy_datetime.npy":
        npy("{'descr': '<M8[s]', 'fortran_order': False, 'shape': (1,), }", b"\0" * 8),
    "npy_structured.npy":
        npy("{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,), }", b"\0" * 4),
    "npy_negative_dim.npy":
        npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", b"\0" * 8),
    "npy_overflow_shape.npy":
        npy("{'descr': '<f8', 'fortran_order': False, "
            "'shape': (4294967296, 4294967296, 4294967296), }"),
    "npy_fortran_not_bool.npy":
        npy("{'descr': '<f4', 'fortran_order': 2, 'shape': (2,), }", b"\0" * 8),
    "npy_empty_file.npy":
        b"",
    # safetensors
    "st_len_past_eof.safetensors":
        safetensors({"a": {
            "dtype": "F32",
            "shape": [1],
            "data_offsets": [0, 4]
        }}, b"\0" * 4, length=1000),
    "st_len_over_cap.safetensors":
        struct.pack("<Q", 200_000_000) + b"{" + b" " * 100,
    "st_not_json.safetensors":
        safetensors(b'{"a": nope}    '),
    "st_offsets_past_end.safetensors":
        safetensors({"a": {
            "dtype": "F32",
            "shape": [4],
            "data_offsets": [0, 16]
        }}, b"\0" * 8),
    "st_size_mismatch.safetensors":
        safetensors({"a": {
            "dtype": "F32",
            "shape": [3],
            "data_offsets": [0, 8]
        }}, b"\0" * 8),
    "st_overlap.safetensors":
        safetensors(
            {
                "a": {
                    "dtype": "F32",
                    "shape": [2],
                    "data_offsets": [0, 8]
                },
                "b": {
                    "dtype": "F32",
                    "shape": [2],
                    "data_offsets": [4, 12]
                }
            }, b"\0" * 12),
    "st_hole.safetensors":
        safetensors({"a": {
            "dtype": "F32",
            "shape": [1],
            "data_offsets": [4, 8]
        }}, b"\0" * 8),
    "st_unknown_dtype.safetensors":
        safetensors({"a": {
            "dtype": "Q7",
            "shape": [1],
            "data_offsets": [0, 4]
        }}, b"\0" * 4),
    "st_negative_offset.safetensors":
        safetensors({"a": {
            "dtype": "F32",
            "shape": [1],
            "data_offsets": [-4, 0]
        }}, b"\0" * 4),
    "st_duplicate.safetensors":
        safetensors(
            b'{"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}, '
            b'"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}}', b"\0"),
    "st_huge_shape.safetensors":
        safetensors({"a": {
            "dtype": "F32",
            "shape": [2**40, 2**40],
            "data_offsets": [0, 4]
        }}, b"\0" * 4),
    # GGUF
    "gguf_v1.gguf":
        gguf(version=1),
    "gguf_truncated.gguf":
        b"GGUF\x03\x00",
    "gguf_kv_count_huge.gguf":
        gguf(n_kv=2**60),
    "gguf_string_past_eof.gguf":
        gguf(n_kv=1, body=struct.pack("<Q", 10**12) + b"key"),
    "gguf_unknown_value_type.gguf":
        gguf(n_kv=1, body=gstr(b"k") + struct.pack("<I", 99)),
    "gguf_array_count_huge.gguf":
        gguf(n_kv=1, body=gstr(b"k") + struct.pack("<IIQ", 9, 4, 2**62)),
    "gguf_bad_alignment.gguf":
        gguf(n_kv=1, body=gstr(b"general.alignment") + struct.pack("<II", 4, 3)),
    "gguf_unknown_tensor_type.gguf":
        gguf(n_tensors=1, body=gstr(b"t") + struct.pack("<IQIQ", 1, 4, 99, 0)),
    "gguf_too_many_dims.gguf":
        gguf(n_tensors=1,
             body=gstr(b"t") + struct.pack("<I", 9) + struct.pack("<9Q", *[1] * 9) + struct.pack("<IQ", 0, 0)),
    "gguf_data_past_eof.gguf":
        gguf(n_tensors=1, body=gstr(b"t") + struct.pack("<IQIQ", 1, 1 << 20, 0, 0)),
    # npz and PyTorch
    "npz_truncated.npz":
        zip_bytes([("a.npy", good_npy, False)])[:40],
    "npz_bad_member.npz":
        zip_bytes([("a.npy", b"\x93NUMPY garbage", False)]),
    # fault 3: a member declaring 4 GB (and a shape to match) from a few compressed bytes
    "npz_declares_4GB.npz":
        declare_size(
            zip_bytes([("a.npy", npy("{'descr': '<i2', 'fortran_order': "
                                     "False, 'shape': (2147483616,), }"), True)]), 0xFFFFFF00),
    # fault 5: 20 MB of '[' as a safetensors header, and a deep index
    "st_deep_nesting.safetensors":
        safetensors(b"[" * 20_000_000),
    "st_deep_field.safetensors":
        safetensors(
            b'{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":' + b"[" * 1_000_000 + b"]" * 1_000_000 + b"}}",
            b"\0"),
    "deep.safetensors.index.json":
        b'{"weight_map": {}, "metadata": ' + b"[" * 1_000_000 + b"]" * 1_000_000 + b"}",
    # fault 20: NUL bytes after the header
    "st_nul_after_header.safetensors":
        safetensors(b'{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}\0\0\0\0', b"\0"),
    "npz_deflate_bomb.npz":
        zip_bytes([("a.npy", npy("{'descr': '<f4', 'fortran_order': "
                                 "False, 'shape': (2,), }", b"\0" * 10_000_000), True)]),
    "pt_unknown_opcode.pt":
        zip_bytes([("archive/data.pkl", b"\x80\x02\xff", False), ("archive/version", b"3\n", False)]),
    "pt_missing_storage.pt":
        zip_bytes([(
            "archive/data.pkl",
            b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n(X\x07\x00\x00\x00storageq\x00ctorch\nFloatStorage\n"
            b"X\x01\x00\x00\x000X\x03\x00\x00\x00cpuK\x02tQK\x00K\x02\x85K\x01\x85\x89ccollections\nOrderedDict\n"
            b")Rtq\x01R.",
            False), ("archive/version", b"3\n", False)]),
    "pt_legacy.pt":
        b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19.",
    "unknown_format.bin":
        b"hello, this is not a tensor file\n",
}

LITERALS = ["[1, 2", "[1,, 2]", "[1 2]", "[[1, 2], [3]]", "[[1], 2]", "'abc'", "[None]", "[nan]", "[1] 2", "((1, 2)",
            "[1, 2)", "1j", "007", "[" * 100 + "]" * 100, "[1e]", "[0x]", "[float('pear')]", "[True, 'x']", ""]
EXPRS = [
    "x.frobnicate()", "x.reshape(5)", "x.reshape(-1, -1)", "x +", "(x", "x[1:2:0]", "x[5]", "x.cast(dtypes.float128)",
    "x.permute(0, 0)", "x + Tensor([1, 2, 3])", "x / Tensor([[1, 2, 3]])", "x.sum(axis=3)", "x.expand(3, 3)", "foo",
    "x.reshape(2, 2, 2, 2)", "x @ x.reshape(4, 1)", "x.bitcast(dtypes.int64).bitcast(dtypes.float16)[7]",
    "x.pad(((1, 1),))", "x[None, None, ..., ...]", "Tensor.arange(1e13)", "x.", "1 +* 2", "x.shrink(((0, 9), None))"
]
OPTIONS = [["--dtype", "float128", "[1]"], ["--frobnicate"], ["--default-float", "int32", "1.5"],
           ["--view-as", "i", "[1.0]"], ["--view-as", "B:3", "[1.0]"], ["--strict", "--dtype", "bfloat16", "[1]"],
           ["--raw", "float32", "--shape", "3"], ["--name", "nope",
                                                  os.path.join(ROOT, "samples", "mixed.safetensors")], ["--list"],
           ["no_such_file.npy"]]

def run(args, stdin=b""):
  try:
    if isinstance(stdin, bytes):
      p = subprocess.run([BIN] + args, input=stdin, capture_output=True, timeout=20)
    else:  # a file to redirect from (/dev/zero)
      with open(stdin, "rb") as f:
        p = subprocess.run([BIN] + args, stdin=f, capture_output=True, timeout=20)
  except subprocess.TimeoutExpired:
    return "hang"
  err = p.stderr.decode("utf-8", "replace")
  if p.returncode != 2: return f"exit status {p.returncode}, expected 2 (stderr: {err.strip()[:200]!r})"
  if p.stdout: return f"stdout not empty: {p.stdout[:80]!r}"
  lines = err.splitlines()
  if len(lines) != 1: return f"stderr has {len(lines)} lines: {err[:300]!r}"
  if "Sanitizer" in err or "runtime error" in err: return f"sanitizer report: {err[:300]!r}"
  return None

def main():
  passed = failed = 0
  def check(label, args, stdin=b""):
    nonlocal passed, failed
    problem = run(args, stdin)
    if problem:
      failed += 1
      print(f"FAIL {label}: {problem}")
    else:
      passed += 1
  with tempfile.TemporaryDirectory() as tmp:
    for name, data in FILES.items():
      path = os.path.join(tmp, name)
      with open(path, "wb") as f: f.write(data)
      check(f"file {name}", [path])
      if name.endswith(".npy"): check(f"stdin {name}", ["-"], data)
    for lit in LITERALS: check(f"literal {lit[:30]!r}", ["--", lit])
    for e in EXPRS: check(f"expression {e!r}", ["[[1.0, 2.0], [3.0, 4.0]]", "-e", e])
    for o in OPTIONS: check(f"options {o}", o)
    # fault 10: a name holding a NUL byte keeps the whole close-matches hint on its one line
    nul = os.path.join(tmp, "nul_name.safetensors")
    with open(nul, "wb") as f:
      f.write(safetensors(b'{"ab\\u0000cd":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', b"\0"))
    p = subprocess.run([BIN, nul, "--name", "abcd"], capture_output=True, timeout=20)
    if p.returncode != 2 or not p.stderr.decode().rstrip().endswith("close matches: 'ab\\x00cd'"):
      failed += 1; print(f"FAIL fault 10: NUL in a name cuts the hint: {p.stderr!r}")
    else: passed += 1
    # Many tensors in one run: a failure after the first tensors leaves nothing printed
    # (--strict refused before any block; a bad member after good ones drops the blocks).
    mixed = os.path.join(ROOT, "samples", "mixed.safetensors")
    for mode in ([], ["--json"], ["--jsonl"]):
      check(f"--all --strict {mode} on a file with bfloat16", [mixed, "--all", "--strict", *mode])
    # b.npy's header is fine (the listing opens), its deflate stream is damaged 30 KB in:
    # the failure comes while realizing b, after a's block was formatted.
    good_then_bad = os.path.join(tmp, "good_then_bad.npz")
    member = io.BytesIO()
    with zipfile.ZipFile(member, "w", zipfile.ZIP_DEFLATED) as z:
      z.writestr("a.npy", good_npy)
      rnd = random.Random(0)
      z.writestr("b.npy", npy("{'descr': '|i1', 'fortran_order': False, 'shape': (200000,), }",
                              bytes(rnd.randrange(10) for _ in range(200000))))
    damaged = bytearray(member.getvalue())
    at = damaged.find(b"b.npy") + 40 + 30000
    for k in range(64): damaged[at + k] ^= 0x5A
    with open(good_then_bad, "wb") as f: f.write(bytes(damaged))
    for mode in ([], ["--json"]):
      check(f"--all {mode}: a member damaged past its header, after a good one", [good_then_bad, "--all", *mode])
    # fault 11: empty dimensions and negative offsets are usage errors
    raw = os.path.join(tmp, "four.bin")
    with open(raw, "wb") as f: f.write(b"\0" * 4)
    check("fault 11: --shape 2,,2", [raw, "--raw", "uint8", "--shape", "2,,2"])
    check("fault 11: --shape ,4", [raw, "--raw", "uint8", "--shape", ",4"])
    check("fault 11: --offset -1", [raw, "--raw", "uint8", "--offset", "-1"])
    # fault 12: a forced format that does not fit the file
    check("fault 12: --format "
          "npz on a PyTorch file", [os.path.join(ROOT, "samples", "state_dict.pt"), "--format", "npz"])
    check("fault 12: --format gguf on a .npy", [os.path.join(ROOT, "samples", "int8.npy"), "--format", "gguf"])
    # fault 22: --strict refuses a pickle naming a global torch.load(weights_only=True) refuses
    unsafe = os.path.join(tmp, "os_system.pt")
    with open(unsafe, "wb") as f:
      f.write(
          zip_bytes([("archive/data.pkl", b"\x80\x02}X\x01\x00\x00\x00xcos\nsystem\nX\x04\x00\x00\x00true\x85Rs.",
                      False), ("archive/version", b"3\n", False)]))
    check("fault 22: --strict on os.system", [unsafe, "--strict", "--list"])
    # fault 7: endless devices and pipes stop at the stream cap (lowered here to keep the test small)
    cap = ["--limit", "stream_bytes=1M"]
    check("fault 7: /dev/zero", ["/dev/zero"] + cap)
    check("fault 7: - < /dev/zero", ["-"] + cap, "/dev/zero")
    check("fault 7: --raw on /dev/zero", ["--raw", "uint8", "/dev/zero"] + cap)
    check("fault 7: --raw - < /dev/zero", ["--raw", "uint8", "-"] + cap, "/dev/zero")
  print(f"{passed} passed, {failed} failed")
  return 0 if failed == 0 else 1

if __name__ == "__main__":
  sys.exit(main())
