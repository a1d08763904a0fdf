#!/usr/bin/python3
"""safetensors' dtypes tinygrad has no dtype for: F8_E8M0 and F4 are listed with their
stored type and shown as float32 (the OCP MX v1.0 formulas in tests/quant_writers.py);
F6_E2M3, F6_E3M2 and C64 are listed and their values refused (exit 2, naming the dtype).

Usage: /usr/bin/python3 tests/safetensors_minifloats.py BUILD/tensor-inspect
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally  # noqa: E402
tally.passes = False
import quant_writers as qw  # noqa: E402

BIN = sys.argv[1]


def floats(v):
    return np.array([float(x) for x in np.array(v, dtype=object).ravel()], dtype=np.float64)


rng = np.random.default_rng(3)
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "mx.safetensors")
    e8m0 = rng.integers(0, 256, size=(4, 8), dtype=np.uint8)
    e8m0[0, :4] = [0, 127, 254, 255]
    fp4 = rng.integers(0, 16, size=(3, 10), dtype=np.uint8)
    fp4[0, :4] = [1, 2, 7, 15]
    qw.write_safetensors(path, {
        "scales": ("F8_E8M0", e8m0.shape, e8m0.tobytes()),
        "w4": ("F4", fp4.shape, qw.fp4_pack(fp4).tobytes()),
        "w6": ("F6_E2M3", (4,), bytes(3)),
        "c": ("C64", (2,), np.array([1 + 2j, 3 - 4j], dtype="<c8").tobytes()),
    })
    out = subprocess.run([BIN, path, "--list", "--json"], capture_output=True, text=True)
    tally.check(f"--list: {out.stderr}", out.returncode == 0)
    rows = {t["name"]: t for t in json.loads(out.stdout)["tensors"]} if out.returncode == 0 else {}
    for name, tag, shape in [("scales", "F8_E8M0", [4, 8]), ("w4", "F4", [3, 10])]:
        r = rows.get(name, {})
        tally.check(f"{name} listed: {r}",
                    r.get("stored_type") == tag and r.get("dtype") == "float32" and r.get("shape") == shape
                    and "float32" in (r.get("note") or ""))
    tally.check("F6/C64 listed without a dtype",
                rows.get("w6", {}).get("dtype") is None and rows.get("c", {}).get("dtype") is None)

    for name, want in [("scales", qw.e8m0_decode(e8m0)), ("w4", qw.FP4_VALUES[fp4])]:
        out = subprocess.run([BIN, path, "--name", name, "--json"], capture_output=True, text=True)
        tally.check(f"{name}: exit {out.returncode} {out.stderr}", out.returncode == 0)
        if out.returncode == 0:
            doc = json.loads(out.stdout)
            got = floats(doc["tolist"]).reshape(want.shape)
            tally.check(
                f"{name}: {got} vs {want}", doc["shape"] == list(want.shape) and
                np.array_equal(got, want.astype(np.float64), equal_nan=True))
            tally.check(f"{name}: format {doc['format']} (float32 values)", doc["format"] == "f")
    # Signs of zero survive (FP4 code 8 is -0.0).
    out = subprocess.run([BIN, path, "--name", "w4", "-e", "x[0, 0:4]"], capture_output=True, text=True)
    tally.check(f"w4 first codes: {out.stdout}", "[0.5, 1.0, 6.0, -6.0]" in out.stdout)
    for name, words in [("w6", ["F6_E2M3", "bit order"]), ("c", ["C64", "complex"])]:
        out = subprocess.run([BIN, path, "--name", name], capture_output=True, text=True)
        tally.check(f"{name}: exit {out.returncode} {out.stderr.strip()}",
                    out.returncode == 2 and out.stdout == "" and all(w in out.stderr for w in words))

sys.exit(tally.summary())
