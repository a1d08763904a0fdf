#!/usr/bin/python3
"""Checks that moving floats keeps every bit: NaN payloads and signalling NaNs survive a
flip, a transpose, a slice or a pad and are then seen as integers (bitcast) or as bytes
(--view-as B), as NumPy's views of the same arrays show them (tinygrad's CPU kernels copy
such elements with plain loads and stores, which change no bit either).

Usage: /usr/bin/python3 tests/nan_bits.py BUILD/tensor-inspect
Exit status 0 when every case agrees, 1 otherwise.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

BIN = sys.argv[1]
INTS = {np.float16: (np.uint16, np.int16, "int16"), np.float32: (np.uint32, np.int32, "int32"),
        np.float64: (np.uint64, np.int64, "int64")}
# Quiet and signalling NaNs with payloads, both signs, next to ordinary values.
PATTERNS = {
    np.float16: [0x7C01, 0x7E55, 0xFD00, 0x7DFF, 0x3C00, 0x8000],
    np.float32: [0x7F800001, 0x7FC12345, 0xFFC00001, 0xFF80FFFF, 0x3F800000, 0x80000000],
    np.float64: [0x7FF0000000000001, 0x7FF8DEADBEEF0001, 0xFFF4000000000000, 0x3FF0000000000000, 0, 1],
}


def run(path, expr, *extra):
    out = subprocess.run([BIN, path, "-e", expr, "--json", *extra], capture_output=True, text=True)
    if out.returncode != 0:
        return f"exit {out.returncode}: {out.stderr.strip()}"
    return json.loads(out.stdout)["tolist"]


failures = 0
with tempfile.TemporaryDirectory() as tmp:
    for ftype, bits in PATTERNS.items():
        utype, itype, iname = INTS[ftype]
        flat = np.array(bits, dtype=utype).view(ftype)
        grid = flat.reshape(2, 3)
        for name, a in (("flat", flat), ("grid", grid)):
            path = os.path.join(tmp, f"{np.dtype(ftype).name}_{name}.npy")
            np.save(path, a)
            moves = {"x[::-1]": a[::-1], "x[1:]": a[1:]}
            if a.ndim == 2:
                moves["x.T"] = a.T
                moves["x[:, ::-2]"] = a[:, ::-2]
            else:
                moves["x.pad(((2, 1),))"] = np.pad(a, (2, 1))
            for expr, moved in moves.items():
                want = np.ascontiguousarray(moved)
                cases = [(f"{expr}.bitcast(dtypes.{iname})", (), want.view(itype).tolist()),
                         (f"{expr}.contiguous().bitcast(dtypes.{iname})", (), want.view(itype).tolist()),
                         (expr, ("--view-as", "B"), want.view(np.uint8).reshape(-1).tolist())]
                for e, extra, expected in cases:
                    got = run(path, e, *extra)
                    if got != expected:
                        failures += 1
                        print(f"FAIL {np.dtype(ftype).name} {name} {e} {' '.join(extra)}: got {got}, want {expected}")
print(f"nan_bits: {failures} failure(s)")
sys.exit(1 if failures else 0)
