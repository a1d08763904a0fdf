#!/usr/bin/env python3
"""`FILE --list` and `FILE --list --json`, which main() reads without building CLI11's
parser (app/commands/inspect/fast_list.hpp), print exactly what the same command line
parsed by CLI11 prints: the same stdout, stderr and exit status, byte for byte. CLI11's
path is reached by spelling the same command with `--` before the input (`--list -- FILE`),
which the fast path leaves alone. Inputs: GGUF files written here with struct as gguf.md
lays them out (plain and quantized tensors, a 3-D one, a vocabulary array), GGUF files
with a fault each (duplicate tensor name, truncated, bad version, data past the end),
the samples of other formats, a folder, a missing path and a literal.

    python3 tests/fast_list.py path/to/tensor-inspect

Closes with `N passed, M failed`.
"""
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally  # noqa: E402

tally.passes = False
check = tally.check

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "samples")


def gstr(s):
    b = s.encode() if isinstance(s, str) else s
    return struct.pack("<Q", len(b)) + b


def gguf(tensors, kvs=b"", n_kv=0, version=3, data=None):
    """A GGUF file: tensors as (name, dims innermost first, ggml type, offset); data zeros."""
    infos = b"".join(gstr(n) + struct.pack("<I", len(d)) + struct.pack(f"<{len(d)}Q", *d) + struct.pack("<IQ", t, o)
                     for n, d, t, o in tensors)
    head = b"GGUF" + struct.pack("<IQQ", version, len(tensors), n_kv) + kvs + infos
    head += b"\0" * (-len(head) % 32)
    return head + (data if data is not None else b"\0" * 4096)


tokens = [f"t{i}" for i in range(300)]
vocab = gstr("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, len(tokens)) + b"".join(gstr(t) for t in tokens)
name_kv = gstr("general.name") + struct.pack("<I", 8) + gstr("fast list")
# ggml types: F32 0, F16 1, Q8_0 8 (34-byte blocks of 32).
good = [("tok_embd.weight", [8, 4], 1, 0), ("blk.0.attn_q.weight", [32, 2], 8, 64), ("norm", [8], 0, 192),
        ("cube", [2, 3, 4], 0, 224)]
files = {
    "good.gguf": gguf(good, vocab + name_kv, 2),
    "empty.gguf": gguf([], name_kv, 1),
    "v2.gguf": gguf(good, name_kv, 1, version=2),
    "duplicate.gguf": gguf([("a", [4], 0, 0), ("a", [4], 0, 32)]),
    "past_end.gguf": gguf([("a", [4096], 0, 0)], data=b"\0" * 64),
    "version9.gguf": gguf(good, version=9),
    "truncated.gguf": gguf(good, vocab, 1)[:200],
    "not_gguf.gguf": b"GGUG" + b"\0" * 60,
}


def run(args):
    p = subprocess.run([BIN, *args], capture_output=True, stdin=subprocess.DEVNULL, timeout=60)
    return p.returncode, p.stdout, p.stderr


with tempfile.TemporaryDirectory() as tmp:
    for name, data in files.items():
        with open(os.path.join(tmp, name), "wb") as f:
            f.write(data)
    inputs = [os.path.join(tmp, n) for n in files] + [
        os.path.join(SAMPLES, "quants.gguf"), os.path.join(SAMPLES, "mixed.safetensors"),
        os.path.join(SAMPLES, "float32.npy"), os.path.join(SAMPLES, "arrays.npz"), os.path.join(SAMPLES, "sharded"),
        os.path.join(tmp, "missing.gguf"), tmp, "5", "[1, 2]"]
    for path in inputs:
        shown = os.path.relpath(path, tmp) if path.startswith(tmp) else os.path.relpath(path, ROOT)
        for extra in ([], ["--json"]):
            slow = run(["--list", *extra, "--", path])
            for fast_args in ([path, "--list", *extra], ["--list", *extra, path], [*extra[::-1], path, "--list"]):
                fast = run(fast_args)
                label = " ".join(a if a != path else shown for a in fast_args)
                check(f"{label}: as CLI11 parses it", fast == slow, f"{fast!r} != {slow!r}")
        # The outcome itself: the good files list, the faulty ones are one line and exit 2.
        code, out, err = run([path, "--list"])
        bad = any(k in shown for k in ("duplicate", "past_end", "version9", "truncated", "not_gguf", "missing"))
        if bad:
            check(f"{shown}: one error line, exit 2", code == 2 and out == b"" and err.count(b"\n") == 1,
                  (code, out, err))
        elif shown in ("good.gguf", "v2.gguf", "samples/quants.gguf"):
            check(f"{shown}: listed", code == 0 and b"tensors" in out and err == b"", (code, out, err))
    good_path = os.path.join(tmp, "good.gguf")
    code, out, _ = run([good_path, "--list"])
    lines = out.decode().splitlines()
    check("good.gguf: one row a tensor, in file order", [ln.split()[0] for ln in lines[1:5]] == [t[0] for t in good],
          lines)
    check("good.gguf: shapes outermost first", "(4, 3, 2)" in lines[4] and "(2, 32)" in lines[2], lines)
    # Command lines the fast path leaves to CLI11 still mean what they meant.
    code, _, err = run([good_path, "--list", "-v"])
    check("-v still logs the header parse", code == 0 and b"gguf format, 4 tensors" in err, err)
    check("--list twice: as once", run([good_path, "--list", "--list"]) == run([good_path, "--list"]))
    code, out, err = run(["diff", "--list"])
    check("diff --list: the subcommand's parse", code == 2 and out == b"" and b"A is required" in err, (code, err))
    code, out, err = run(["-", "--list"])
    check("- --list: standard input (empty here)", code == 2 and out == b"" and b"<stdin>" in err, (code, err))

sys.exit(tally.summary())
