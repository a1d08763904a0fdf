#!/usr/bin/env python3
"""export streams what it writes: a computed tensor is never held whole, and stored bits stay bits.

    /usr/bin/python3 tests/export_memory.py build/tensor-inspect

export bitcast a tensor to unsigned ints to write its bytes, which made a computed one (`-e 'x * 2'`,
`--dtype float16`) a kernel of its own, realized whole first: 300 and 168 MiB for a 256 MiB file.
It now streams the bytes realize would store (realize/encoded_stream.hpp).
1. Bits: a float32 .npy holding NaNs with payloads (quiet and signalling), -0.0 and infinities is
   exported as it is, as `-e 'x[::2]'` and as `-e 'x.T'`; each file holds NumPy's same view's
   bytes, bit for bit (the stored elements are copied, never decoded).
2. Memory (not under ASan): over a 256 MiB float32 file of small integers, `--dtype float16`,
   `-e 'x * 2'` and `-e 'x.T[::2] + 1'` write NumPy's values and peak under the idle peak + 64 MiB;
   so does `-e 'x.T'` of one of 32,768 rows (its column walk went through the file map: 271 MiB).
Prints one line per check and `N passed, M failed`.
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally
from tally import check
from peak_rss import run_measured
import numpy as np

MiB = 1 << 20


def export(binary, src, out, *extra):
    p = subprocess.run([binary, "export", src, "--all", "-o", out, "--force", *extra], capture_output=True, text=True,
                       timeout=300)
    return p.returncode, p.stderr


def main():
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory(prefix="ti-export-memory-") as tmp:
        bits = np.arange(4 * 6, dtype=np.uint32).view(np.float32).copy().reshape(4, 6)
        special = [0x7FC01234, 0x7F800001, 0xFFC0ABCD, 0x80000000, 0x7F800000, 0xFF800000]
        bits.view(np.uint32).flat[[1, 4, 7, 10, 15, 22]] = special
        src = os.path.join(tmp, "bits.npy")
        np.save(src, bits)
        for label, extra, view in (("as stored", [], bits), ("-e 'x[::2]'", ["-e", "x[::2]"], bits[::2]),
                                   ("-e 'x.T'", ["-e", "x.T"], bits.T)):
            out = os.path.join(tmp, "out.npy")
            status, err = export(binary, src, out, *extra)
            got = np.load(out) if status == 0 else None
            check(f"export {label}: NumPy's bytes, NaN payloads and -0.0 kept", got is not None and
                  got.shape == view.shape and got.tobytes() == np.ascontiguousarray(view).tobytes(),
                  f"exit {status}: {err[-300:]}")
        if "ASAN_OPTIONS" in os.environ:  # CI's instrumented run: the bits; peak RSS is Release's
            return tally.summary()
        tiny, big = os.path.join(tmp, "tiny.npy"), os.path.join(tmp, "big.npy")
        np.save(tiny, np.ones((4, 4), np.float32))
        a = np.random.default_rng(41).integers(-100, 100, (8192, 8192)).astype(np.float32)
        # 32,768 rows: x.T reads them through caches of 512- or 256-byte blocks (block_reads.hpp).
        tall = np.random.default_rng(42).integers(-100, 100, (32768, 2048)).astype(np.float32)
        cases = (("--dtype float16", ["--dtype", "float16"], a, lambda: a.astype(np.float16)),
                 ("-e 'x * 2'", ["-e", "x * 2"], a, lambda: a * 2),
                 ("-e 'x.T[::2] + 1'", ["-e", "x.T[::2] + 1"], a, lambda: a.T[::2] + 1),
                 ("-e 'x.T' (32,768 rows)", ["-e", "x.T"], tall, lambda: tall.T))
        for label, extra, src, want in cases:
            np.save(big, src)
            out = os.path.join(tmp, "out.npy")
            _, _, _, idle = run_measured(binary, ["export", tiny, "--all", "-o", out, "--force"] + extra, 60)
            status, _, err, peak = run_measured(binary, ["export", big, "--all", "-o", out, "--force"] + extra, 300)
            got = np.load(out, mmap_mode="r") if status == 0 else None
            check(f"export {label} of 256 MiB writes NumPy's values", got is not None and np.array_equal(got, want()),
                  f"exit {status}: {err[-300:]}")
            check(f"export {label} of 256 MiB peaks under idle + 64 MiB", status == 0 and peak < idle + 64 * MiB,
                  f"peak {peak / MiB:.0f} MiB, idle {idle / MiB:.0f} MiB")
            del got
    return tally.summary()


if __name__ == "__main__":
    tally.pass_details = True
    sys.exit(main())
