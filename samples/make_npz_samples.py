#!/usr/bin/python3
"""Writes the .npz samples with NumPy itself (run: /usr/bin/python3 samples/make_npz_samples.py).

arrays.npz is np.savez (members STORED), arrays_compressed.npz np.savez_compressed
(members DEFLATED); both hold the same five arrays, and npz_expected.json records each
member's descr, shape and tolist() as NumPy gives them.
"""
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

ARRAYS = {
    "weights": np.array([[0.1, -0.2, 0.3], [1.5, -2.25, 1e-3]], dtype=np.float32),
    "ids": np.array([1, -2, 2**40, -(2**63)], dtype=np.int64),
    "mask": np.array([True, False, True], dtype=np.bool_),
    "big": np.array([1.5, -0.0, 1e300], dtype=">f8"),
    "fortran": np.asfortranarray(np.arange(6, dtype=np.int16).reshape(2, 3) - 3),
}

np.savez(os.path.join(HERE, "arrays.npz"), **ARRAYS)
np.savez_compressed(os.path.join(HERE, "arrays_compressed.npz"), **ARRAYS)

expected = {}
for name, a in ARRAYS.items():
    expected[name] = {"descr": a.dtype.str, "shape": list(a.shape), "tolist": repr(a.tolist())}
with open(os.path.join(HERE, "npz_expected.json"), "w") as f:
    json.dump(expected, f, indent=1)
    f.write("\n")

# Check the archives with NumPy's own reader.
for path in ("arrays.npz", "arrays_compressed.npz"):
    with np.load(os.path.join(HERE, path)) as z:
        assert list(z.keys()) == list(ARRAYS), z.keys()
        for name, a in ARRAYS.items():
            assert z[name].tolist() == a.tolist()
print("wrote arrays.npz, arrays_compressed.npz, npz_expected.json")
