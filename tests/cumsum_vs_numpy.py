#!/usr/bin/python3
"""cumsum against tinygrad's own bits, and what a long one costs.

    /usr/bin/python3 tests/cumsum_vs_numpy.py build/tensor-inspect

tinygrad's cumsum (Tensor._split_cumalu in tinygrad 0.13) is a graph of window sums, and
the order it adds in fixes every float32 output's bits. tinygrad_cumsum() below writes that
graph in NumPy, whose float32 np.cumsum adds in order, in float32: a row of up to 512 is
summed whole; a longer row is padded in front to a multiple of 256 and cut into chunks of
256, and an output is its chunk's running sum plus the sum of the chunk totals before it
(both rounded to the result dtype, then added in it); that last window sum is cut in parts
when tinygrad's scheduler splits it (split_reduceop: 32768 totals or more). Every case is
also pinned to tinygrad itself: TINYGRAD holds the SHA-256 of tinygrad's data() bytes for the
same input (tinygrad 0.13, DEV=CPU; the inputs are an integer hash, made the same way there).

Then resources, measured with /usr/bin/time (peak RSS of the tool alone): a slice of a long
cumsum reads up to its end and keeps only the slice, a whole one costs about its output,
and each finishes inside a generous timeout (no time is asserted).

Prints one line per check and a closing `N passed, M failed`; exit 0 when all passed.
"""
import hashlib
import json
import os
import sys
import tempfile

import numpy as np

import tally
from peak_rss import run_measured
from tally import check

tally.pass_details = True

MiB = 1 << 20
TIMEOUT = 120  # seconds: generous; the quadratic cumsum took over a minute for 10**5 elements

# name: (elements, hash salt, shape, axis, slice or None, sha256 of tinygrad's data() bytes)
ALL = slice(None)
TINYGRAD = {
    "1d_300": (300, 1, (300,), 0, ALL, "cb3b812da379b098c935be230a8f791656707de43fa3b4fa70034a094968d736"),
    "1d_1000": (1000, 2, (1000,), 0, ALL, "e68bf553ef4db75f020b3832be3e1af56a708c263752b35a9d9391f3d4f89983"),
    "1d_5000": (5000, 3, (5000,), 0, ALL, "eccb9a1d43ba81590b059a3476ecdecce807f0b3984eb2e0331c87fb15dc88fc"),
    "1d_70000": (70000, 4, (70000,), 0, ALL, "0f4dc72be27e1968e12e8944989a9ad0904c581e281a298612593bc250a1e458"),
    "rows": (22200, 5, (37, 600), 1, ALL, "0cbbd229797f6eaa6b6cac56c83a1a83eb681826674f813a4a8e57812d9ddcff"),
    "cols": (22200, 6, (600, 37), 0, ALL, "db9499a832f5b7616753877183132b51c1888899cc30a34400edcfa1dac96a6e"),
    "mid": (8400, 7, (3, 700, 4), 1, ALL, "f6ed881c06e3178986a480be2427b27c9b4eab01c89b0c1a6f4d9f52156eed4c"),
    "double": (5000, 8, (5000,), 0, ALL, "2eb7ace56ce3f0fd099dfd250f74ad79b56db9f33818f5236742161d8cd0caae"),
    # a float16 tensor read as such (tinygrad folds x.half() into the float32 sum when the cast is
    # in the same graph, so there its input was realized first)
    "half": (5000, 9, (5000,), 0, ALL, "4aad7c56d4eb28dc370b07c86e5200a69930b142cf9bb846e7616b0ea3f0d0c5"),
    # 2**23 elements: 32768 chunk totals, whose window sum tinygrad splits in 128 parts of 256
    "split": (1 << 23, 10, (1 << 23,), 0, slice(None, None, 4099),
              "804b58823978ad2a6d77192f8c579e05391a58fbdd2f5bfa86f23a5e51eaf443"),
    "split_tail": (1 << 23, 10, (1 << 23,), 0, slice(-300, None),
                   "a063ab36de0aceaa9ec9c42dcbac579eaf18e75cfa7673ea24f7dbd8b121f058"),
}


def slice_text(cut):
    """A slice as Python writes it in brackets, '' for the whole."""
    if cut == ALL:
        return ""
    return "[" + ":".join("" if v is None else str(v) for v in (cut.start, cut.stop, cut.step)) + "]"


def hashed_floats(n, salt):
    """float32 values in [-4, 4) from an integer hash (tinygrad's side made the same ones)."""
    i = np.arange(n, dtype=np.uint64)
    h = (i * np.uint64(2654435761) + np.uint64(salt)) % np.uint64(1 << 32)
    return ((h.astype(np.float64) / 2.0**32 - 0.5) * 8).astype(np.float32)


# --- the model ---------------------------------------------------------------------------

def split_parts(lanes, chunks):
    """tinygrad's split_reduceop on the bases' window sum: its number of parts, or 0."""
    if chunks < 32768 or lanes * chunks > (1 << 22) // 8:
        return 0
    for d in range(min(256, (1 << 22) // (lanes * chunks)), 7, -1):
        if chunks % d == 0:
            return d
    return 0


def window_sums(totals, parts):
    """Output m of the bases' window sum (m + 1 totals, padded in front to `chunks`) per lane."""
    lanes, c = totals.shape
    acc = totals.dtype.type
    if not parts:
        return np.cumsum(totals, axis=1, dtype=acc)
    blk = c // parts
    out = np.zeros((lanes, c), acc)
    for lane in range(lanes):
        padded = np.concatenate([np.zeros(c - 1, acc), totals[lane]])
        # W(j): totals [j, j + blk) of the padded window, added in order from 0.0
        w = np.zeros(2 * c - blk, acc)
        for b in range(blk):
            w += padded[b:b + w.size]
        for a in range(parts):  # then the parts, in order
            out[lane] += w[blk * a:blk * a + c]
    return out


def tinygrad_cumsum(x, axis, out_dtype):
    """tinygrad's cumsum of x (already in the accumulation dtype) along axis, as its graph adds."""
    moved = np.moveaxis(x, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    lanes, s = rows.shape
    acc = rows.dtype.type
    if s <= 512:
        out = np.cumsum(rows, axis=1, dtype=acc).astype(out_dtype)
    else:
        pad = (-s) % 256
        padded = np.concatenate([np.zeros((lanes, pad), acc), rows], axis=1).reshape(lanes, -1, 256)
        chunks = np.cumsum(padded, axis=2, dtype=acc).astype(out_dtype)
        totals = chunks[:, :, -1].astype(acc)
        sums = window_sums(totals, split_parts(lanes, totals.shape[1]))
        base = np.concatenate([np.zeros((lanes, 1), out_dtype), sums[:, :-1].astype(out_dtype)], axis=1)
        out = (chunks + base[:, :, None]).astype(out_dtype).reshape(lanes, -1)[:, pad:]
    return np.moveaxis(out.reshape(moved.shape), -1, axis)


# --- running the tool --------------------------------------------------------------------

def run(binary, args, timeout=TIMEOUT):
    """(exit status, stdout, stderr, peak RSS in bytes) of one run; status None on timeout."""
    return run_measured(binary, args, timeout)


def tool_values(binary, path, expr, dtype):
    status, out, err, _ = run(binary, [path, "-e", expr, "--json"])
    if status != 0:
        return None, f"exit {status}: {err.strip()}"
    j = json.loads(out)
    return np.array(j["tolist"], dtype=dtype), j["dtype"]


def values_vs_tinygrad(binary, tmp):
    for name, (n, salt, shape, axis, cut, sha) in TINYGRAD.items():
        x = hashed_floats(n, salt).reshape(shape)
        if name == "half":
            x = x.astype(np.float16)
        path = os.path.join(tmp, f"{name}.npy")
        np.save(path, x)
        expr = ("x.double()" if name == "double" else "x") + f".cumsum({axis})" + slice_text(cut)
        if name == "double":
            want = tinygrad_cumsum(x.astype(np.float64), axis, np.float64)[cut]
        else:
            want = tinygrad_cumsum(x.astype(np.float32), axis, x.dtype)[cut]
        got, dtype = tool_values(binary, path, expr, want.dtype)
        if got is None:
            check(f"{name}: {expr}", False, dtype)
            continue
        check(f"{name}: {expr} is tinygrad's "
              f"graph, bit for bit", got.shape == want.shape and got.tobytes() == want.tobytes(),
              f"{dtype}, {want.size} values" if got.shape == want.shape else f"shape {got.shape}")
        check(f"{name}: {expr} has tinygrad's own bytes", hashlib.sha256(got.tobytes()).hexdigest() == sha)


def ints_and_slices(binary, tmp):
    # ints wrap in the sum's dtype, in any order (NumPy's cumsum in that dtype)
    v = (hashed_floats(3000, 11) * 40).astype(np.int8)
    path = os.path.join(tmp, "i8.npy")
    np.save(path, v)
    got, dtype = tool_values(binary, path, "x.cumsum()", np.int32)
    check("int8 cumsum is int32, as "
          "NumPy's cumsum(dtype=int32)", dtype == "int32" and np.array_equal(got, np.cumsum(v, dtype=np.int32)))
    u = np.full(70000, 255, np.uint8)
    path = os.path.join(tmp, "u8.npy")
    np.save(path, u)
    got, dtype = tool_values(binary, path, "x.cumsum()[-3:]", np.uint32)
    check("uint8 cumsum is uint32", dtype == "uint32" and np.array_equal(got, np.cumsum(u, dtype=np.uint32)[-3:]))
    # slices of a long one: only the slice is kept, its values are the whole scan's
    x = hashed_floats(100000, 12)
    path = os.path.join(tmp, "long.npy")
    np.save(path, x)
    whole = tinygrad_cumsum(x, 0, np.float32)
    for expr, want in [("x.cumsum()[:3]", whole[:3]), ("x.cumsum()[-1]", whole[-1]),
                       ("x.cumsum()[5:70000:7]", whole[5:70000:7]),
                       ("x.reshape(100, 1000).cumsum(1)[:, -1]", tinygrad_cumsum(x.reshape(100, 1000), 1,
                                                                                 np.float32)[:, -1])]:
        got, _ = tool_values(binary, path, expr, np.float32)
        check(f"{expr} equals the same "
              f"elements of the whole scan", got is not None and got.tobytes() == np.asarray(want).tobytes())


def resources(binary, tmp):
    with open(binary, "rb") as f:
        sanitized = b"__asan_init" in f.read()  # ASan's shadow memory: no RSS bound there
    # 10**5 elements from a file: the quadratic scan was killed at 60 s; the summary shows the last
    path = os.path.join(tmp, "ones.npy")
    np.save(path, np.ones(100000, np.float32))
    status, out, err, _ = run(binary, [path, "-e", "x.cumsum()"])
    check("x.cumsum() of 10**5 ones finishes, ending at 100000.0", status == 0 and "100000.0]" in out, err.strip())
    # a slice at the end of 10**8: one pass, nothing stored but the slice
    status, out, err, rss = run(binary, ["-e", "Tensor.ones(10**8).cumsum()[-1]"])
    check("Tensor.ones(10**8).cumsum()[-1] is 100000000.0 in under 64 MiB", status == 0 and "tolist: 100000000.0" in out
          and (sanitized or 0 < rss < 64 * MiB), f"peak RSS {rss / MiB:.0f} MiB, exit {status} {err.strip()}")
    # a whole scan of 10**8 along axis 0 costs its 400 MB output (it held 4.7 GB of window sums)
    status, out, err, rss = run(binary, ["-e", "Tensor.ones(10**4, 10**4).cumsum(axis=0)"])
    check(
        "Tensor.ones(10**4, 10**4).cumsum(axis=0) ends in rows of 10000.0 under 480 MiB", status == 0 and
        "[10000.0, 10000.0, 10000.0, ..., "
        "10000.0, 10000.0, 10000.0]]" in out and (sanitized or 0 < rss < 480 * MiB),
        f"peak RSS {rss / MiB:.0f} MiB, exit {status} {err.strip()}")


def main():
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        resources(binary, tmp)
        values_vs_tinygrad(binary, tmp)
        ints_and_slices(binary, tmp)
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
