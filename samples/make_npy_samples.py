#!/usr/bin/python3
"""Writes the .npy samples with NumPy itself (run: /usr/bin/python3 samples/make_npy_samples.py).

Each file is tiny and holds values that are easy to get wrong: negatives, -0.0, nan,
inf, subnormals, 0.1 (not exact in binary), and the extremes of each integer type.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def save(name, array):
    np.save(os.path.join(HERE, name), array, allow_pickle=False)


def floats(dtype):
    info = np.finfo(dtype)
    return np.array([0.0, -0.0, 0.1, -1.5, 1.0 / 3.0, float(info.max), float(info.tiny),
                     float(info.smallest_subnormal), np.nan, np.inf, -np.inf], dtype=dtype)


def ints(dtype):
    info = np.iinfo(dtype)
    return np.array([0, 1, info.min, info.max, info.min + 1, info.max // 3, 7], dtype=dtype)


save("bool.npy", np.array([True, False, False, True], dtype=np.bool_))
for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64):
    save(np.dtype(t).name + ".npy", ints(t))
for t in (np.float16, np.float32, np.float64):
    save(np.dtype(t).name + ".npy", floats(t))

save("weights_f32.npy", np.array([[0.1, -0.2, 0.3], [1.5, -2.25, 1e-3]], dtype=np.float32))
save("big_endian_f8.npy", np.array([[0.1, -0.0, 1e300], [np.inf, -2.5, 5e-324]], dtype=">f8"))
save("big_endian_i2.npy", np.array([1, -2, 258, -32768, 32767], dtype=">i2"))
save("fortran_i4.npy", np.asfortranarray(np.arange(24, dtype=np.int32).reshape(2, 3, 4) - 5))
save("scalar_f8.npy", np.array(0.1, dtype=np.float64))
save("empty_f4.npy", np.zeros((0,), dtype=np.float32))
save("empty_3x0_i8.npy", np.zeros((3, 0), dtype=np.int64))
with open(os.path.join(HERE, "version2_u2.npy"), "wb") as f:
    np.lib.format.write_array(f, np.array([[1, 2], [65535, 0]], dtype=np.uint16), version=(2, 0))
