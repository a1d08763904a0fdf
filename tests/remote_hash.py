#!/usr/bin/env python3
"""`hash` of remote files, against a real nginx (Debian's nginx-light) on 127.0.0.1.

    /usr/bin/python3 tests/remote_hash.py build/tensor-inspect

A remote tensor is hashed as its bytes arrive (one request, nothing kept). Files far larger
than the 64 KiB the first request brings: a big-endian int32 .npy of an odd element count
(elements split between the pieces libcurl hands over; each is byte-swapped), a bool .npy
whose stored bytes include 2 and 255 (hashed as 1), and a safetensors file of three float32
tensors of 48 MiB in all. Each digest (`--algo sha256`) must equal hashlib's SHA-256 of the
canonical stream (the header line `DTYPE SHAPE\\n`, then the little-endian elements) and
the local file's output; a connection dropped mid-body is retried from the tensor's first
byte; peak RSS stays far under the files' size. Prints one line per check and `N passed, M
failed`.
"""
import hashlib
import json
import os
import struct
import subprocess
import sys

import numpy as np

import tally
from tally import check
from nginx_server import servers
from peak_rss import run_measured

MiB = 1 << 20


def canonical(dtype, shape, le_bytes):
    dims = "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"
    return hashlib.sha256(f"{dtype} {dims}\n".encode() + le_bytes).hexdigest()


def make_files(www):
    rng = np.random.default_rng(3)
    want = {}
    be = rng.integers(-2**31, 2**31, 300_001, dtype=np.int64).astype(">i4")
    np.save(os.path.join(www, "be.npy"), be)
    want["be.npy"] = {"be": canonical("int32", be.shape, be.astype("<i4").tobytes())}
    raw = rng.choice(np.array([0, 1, 2, 255], dtype=np.uint8), 200_003)
    np.save(os.path.join(www, "flags.npy"), raw.view(np.bool_))
    want["flags.npy"] = {"flags": canonical("bool", raw.shape, (raw != 0).astype(np.uint8).tobytes())}
    header, offset, blobs = {}, 0, []
    for name, shape in [("a", (1024, 4099)), ("b", (7,)), ("c", (2048, 4091))]:
        arr = rng.standard_normal(shape, dtype=np.float32)
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [offset, offset + arr.nbytes]}
        offset += arr.nbytes
        blobs.append(arr.tobytes())
        want.setdefault("three.safetensors", {})[name] = canonical("float32", shape, arr.tobytes())
    text = json.dumps(header).encode()
    with open(os.path.join(www, "three.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
    return want


def digests(stdout):
    return {line.split()[1]: line.split()[0] for line in stdout.splitlines() if line.strip()}


def main():
    binary = os.path.abspath(sys.argv[1])
    with servers("ti-remote-hash-") as (tmp, www, nginx, fault_url):
        want = make_files(www)
        for name, tensors in want.items():
            path = os.path.join(www, name)
            local = subprocess.run([binary, "hash", "--algo", "sha256", path], capture_output=True, text=True,
                                   timeout=120)
            for label, url in [("", nginx.url("files", name)), (" after a dropped connection",
                                                                 fault_url("drop_once", name))]:
                status, out, err, peak = run_measured(binary, ["hash", "--algo", "sha256", url], 120)
                got = digests(out)
                if name.endswith(".npy"):  # one array: named by its input, as the local output is by its path
                    got = {next(iter(tensors)): got.get(url)}
                check(f"remote hash of {name}{label}: hashlib's SHA-256 of the canonical stream",
                      status == 0 and got == tensors, f"{status} {err[-300:]!r} {got} {tensors}")
                check(f"remote hash of {name}{label}: the local file's output", out.replace(url, path) == local.stdout,
                      f"{out!r} vs {local.stdout!r}")
            size = os.path.getsize(path)
            if size > 32 * MiB:
                _, _, _, peak = run_measured(binary, ["hash", nginx.url("files", name)], 120)
                _, _, _, idle = run_measured(binary, ["hash", nginx.url("files", "flags.npy")], 120)
                check(f"remote hash of {name} keeps none of its {size // MiB} MiB", peak < idle + 24 * MiB,
                      f"peak {peak / MiB:.0f} MiB, idle {idle / MiB:.0f} MiB")
    return tally.summary()


if __name__ == "__main__":
    tally.pass_details = True
    sys.exit(main())
