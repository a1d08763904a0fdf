#!/usr/bin/python3
"""Checks tensor-inspect's matrix products against NumPy.

Usage: /usr/bin/python3 tests/matmul_vs_numpy.py BUILD/tensor-inspect

float32/float64 products (OpenBLAS in the executor) must lie within the textbook error
bound of a length-K dot product, K * eps * (|A| @ |B|), of the float64 NumPy product
(and of NumPy's own float32 product, within twice that); batched and broadcast shapes
included. float16 and 1-d products take the generic reduction and must equal, bit for
bit, tinygrad's definition computed with NumPy: products rounded to the operand dtype,
summed in float32 (sum_acc_dtype) in order as tinygrad's loop does, then cast back; a float32
product over K <= 32 is tinygrad's unrolled MULACC chain instead (a0*b0 + f32(a1*b1), then
ak*bk + partial, each in double rounded once to float32: DEV=PYTHON). Every result must be
byte-identical on 1, 2 and 7 threads (OMP_NUM_THREADS). Exit status 0 when all agree.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

BIN = sys.argv[1]
failures = 0


def run(path, expr, threads=None):
    env = dict(os.environ)
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
    out = subprocess.run([BIN, path, "-e", expr, "--json"], capture_output=True, text=True, env=env, timeout=120)
    if out.returncode != 0:
        raise RuntimeError(f"{expr}: exit {out.returncode}: {out.stderr.strip()}")
    return out.stdout


def check(name, ok, detail=""):
    global failures
    if not ok:
        failures += 1
        print(f"FAIL {name} {detail}")


def blas_case(tmp, name, x, expr, a, b):
    path = os.path.join(tmp, name + ".npy")
    np.save(path, x)
    outs = [run(path, expr, t) for t in (1, 2, 7)]
    check(f"{name}: same bytes on 1, 2, 7 threads", outs[0] == outs[1] == outs[2])
    got = np.array(json.loads(outs[0])["tolist"], dtype=np.float64)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    k = a.shape[-1]
    eps = np.finfo(a.dtype).eps
    bound = k * eps * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))) + np.finfo(a.dtype).tiny
    check(f"{name}: shape", got.shape == ref.shape, f"{got.shape} vs {ref.shape}")
    if got.shape == ref.shape:
        err = np.abs(got - ref)
        check(f"{name}: within "
              f"K*eps*|A||B| of float64", bool((err <= bound).all()), f"worst "
              f"{float((err / bound).max()):.3g}x")
        own = (a @ b).astype(np.float64)
        check(f"{name}: within 2*K*eps*|A||B| of NumPy's {a.dtype}", bool((np.abs(got - own) <= 2 * bound).all()))


def exact_case(tmp, name, x, expr, a, b):
    path = os.path.join(tmp, name + ".npy")
    np.save(path, x)
    outs = [run(path, expr, t) for t in (1, 2, 7)]
    check(f"{name}: same bytes on 1, 2, 7 threads", outs[0] == outs[1] == outs[2])
    got = np.array(json.loads(outs[0])["tolist"], dtype=np.float64)
    a2 = a if a.ndim > 1 else a[None, :]
    prods = a2[..., :, None, :] * np.swapaxes(b, -1, -2)[..., None, :, :]  # rounded to the dtype
    # summed in float32 (sum_acc_dtype) in order, as tinygrad's loop adds: NumPy's cumsum is sequential
    ref = np.cumsum(prods.astype(np.float32), axis=-1, dtype=np.float32)[..., -1].astype(x.dtype)
    if x.dtype == np.float32 and a.shape[-1] <= 32:  # the MULACC chain (realize/mulacc.hpp)
        exact = a2.astype(np.float64)[..., :, None, :] * np.swapaxes(b, -1, -2).astype(np.float64)[..., None, :, :]
        ref = (exact[..., 0] + exact[..., 1].astype(np.float32)).astype(np.float32)
        for k in range(2, a.shape[-1]):
            ref = (exact[..., k] + ref.astype(np.float64)).astype(np.float32)
    if a.ndim == 1:
        ref = ref[0]
    check(f"{name}: equals tinygrad's definition", got.shape == ref.shape and bool(
        (got == ref.astype(np.float64)).all()))


rng = np.random.default_rng(20251201)
with tempfile.TemporaryDirectory() as tmp:
    x = rng.standard_normal((512, 512)).astype(np.float32)
    blas_case(tmp, "f32_512_xxT", x, "x @ x.T", x, x.T)
    # A product whose (M, N, K) broadcast holds 1300**3 = 2.2e9 elements, never stored: it
    # was refused by a fixed 2**31-element cap on every shape an expression builds.
    x = rng.standard_normal((1300, 1300)).astype(np.float32)
    blas_case(tmp, "f32_1300_xxT_corner", x, "(x @ x.T)[:4, :6]", x[:4], x.T[:, :6])
    x = rng.standard_normal((100, 70))
    blas_case(tmp, "f64_100x70_70x50", x, "x @ x[:70, :50]", x, x[:70, :50])
    x = rng.standard_normal((3, 40, 30)).astype(np.float32)
    blas_case(tmp, "f32_batched_broadcast", x, "x @ x[0, :30, :20]", x, x[0, :30, :20])
    x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
    blas_case(tmp, "f32_both_broadcast", x, "x[:, :1, :5, :] @ x[0, :, :, :4]", x[:, :1, :5, :], x[0, :, :, :4])
    x = rng.integers(-50, 50, (30, 30)).astype(np.int32)
    blas_case(tmp, "i32_cast_f32", x, "x.float() @ x.T.float()", x.astype(np.float32), x.T.astype(np.float32))
    x = (rng.standard_normal((64, 32)) * 4).astype(np.float16)
    exact_case(tmp, "f16_generic", x, "x @ x[:32, :24]", x, x[:32, :24])
    x = rng.standard_normal((30, 20)).astype(np.float32)
    exact_case(tmp, "f32_vector_matrix", x, "x[:, 0] @ x", x[:, 0], x)
    # A long K in slices (realize/matmul.cpp, kPanelBytes): 40,000 = 16,384 + 16,384 + 7,232.
    x = rng.standard_normal((40000, 256)).astype(np.float32)
    blas_case(tmp, "f32_sliced_K", x, "x[:, :200].T @ x[:, 56:]", x[:, :200].T, x[:, 56:])
    x = rng.standard_normal((30000, 200))
    blas_case(tmp, "f64_sliced_K", x, "(x.T @ x)[::7, 3:]", x.T[::7], x[:, 3:])
    # Its memory: x.T @ x of a 128 MiB float32 (131,072, 256) packed both operands whole (256 MiB)
    # and kept the file's pages of their column walks (about 400 MiB in all).
    from peak_rss import run_measured
    path = os.path.join(tmp, "tall.npy")
    x = rng.standard_normal((131072, 256)).astype(np.float32)
    np.save(path, x)
    x64 = x.astype(np.float64)
    want = (x64.T @ x64)[:3, :3]
    del x, x64
    status, out, err, peak = run_measured(BIN, [path, "-e", "(x.T @ x)[:3, :3]", "--json"], 300)
    got = np.array(json.loads(out)["tolist"]) if status == 0 else None
    check("x.T @ x of a 128 MiB file: within K*eps*|A||B| of float64", got is not None and
          bool((np.abs(got - want) <= 131072 * np.finfo(np.float32).eps * 131072 * 4).all()), err[-300:])
    if "ASAN_OPTIONS" in os.environ:  # its quarantine keeps the slices' freed panels: ASan's memory, not ours
        print(f"# x.T @ x of a 128 MiB file under ASan, not checked: {peak >> 20} MiB")
    else:
        check("x.T @ x of a 128 MiB file peaks under 128 MiB", peak < 128 << 20, f"{peak >> 20} MiB")

print(f"matmul_vs_numpy: {failures} failed")
sys.exit(1 if failures else 0)
