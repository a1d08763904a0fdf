#!/usr/bin/python3
"""Writes samples/quants.gguf byte for byte from the GGUF description (ggml docs/gguf.md),
with NumPy and struct and no gguf package, plus samples/gguf_expected.json: the float32
values each quantized tensor dequantizes to, computed here with NumPy from the block
formulas of ggml's dequantize_row_* (float32 arithmetic, one rounding per operation, the
order ggml uses).

GGUF v3, little-endian:
  1. "GGUF", u32 version 3, u64 tensor count, u64 metadata count,
  2. metadata: key (u64 length + bytes), u32 value type, value,
  3. tensor infos: name, u32 n_dims, u64 dims (innermost first), u32 ggml type, u64 offset,
  4. padding to general.alignment (64 here), then the data; each tensor aligned.

Run from anywhere: /usr/bin/python3 samples/make_gguf_samples.py
"""
import json
import os
import struct

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ALIGN = 64
F32 = np.float32
rng = np.random.default_rng(20240611)

# GGUF value types (docs/gguf.md)
U8, I8, U16, I16, U32, I32, FLT32, BOOL, STRING, ARRAY, U64, I64, FLT64 = range(13)
SCALAR_FMT = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", FLT32: "<f",
              BOOL: "<?", U64: "<Q", I64: "<q", FLT64: "<d"}


def gguf_string(b):
    if isinstance(b, str):
        b = b.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def write_gguf(path, tensors):
    """A GGUF v3 file without metadata, alignment 32, for tests. tensors: (name, numpy
    shape, ggml type id, raw bytes)."""
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), 0)
    data, offset = b"", 0
    for name, shape, tid, raw in tensors:
        dims = list(reversed(shape))
        out += gguf_string(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", tid, offset)
        pad = (-len(raw)) % 32
        data += raw + bytes(pad)
        offset += len(raw) + pad
    out += bytes((-len(out)) % 32)
    with open(path, "wb") as f:
        f.write(out + data)


def gguf_value(vtype, v):
    if vtype == STRING:
        return gguf_string(v)
    if vtype == ARRAY:
        etype, items = v
        out = struct.pack("<IQ", etype, len(items))
        return out + b"".join(gguf_value(etype, x) for x in items)
    return struct.pack(SCALAR_FMT[vtype], v)


def half(x):
    """(bytes, float32 value) of x rounded to float16."""
    h = np.array([x], "<f2")
    return h.tobytes(), F32(h[0])


def u8s(n):
    return rng.integers(0, 256, n, dtype=np.uint8)


# ---- blocks: each returns (raw bytes of one block, float32 values it dequantizes to) ----

def q4_0():
    db, d = half(0.0123)
    qs = u8s(16)
    lo = ((qs & 0xF).astype(np.int32) - 8).astype(F32) * d
    hi = ((qs >> 4).astype(np.int32) - 8).astype(F32) * d
    return db + qs.tobytes(), np.concatenate([lo, hi])


def q4_1():
    db, d = half(0.0371)
    mb, m = half(-0.4512)
    qs = u8s(16)
    lo = (qs & 0xF).astype(F32) * d + m
    hi = (qs >> 4).astype(F32) * d + m
    return db + mb + qs.tobytes(), np.concatenate([lo, hi])


def fifth_bits(qh):
    bits = np.array([(qh >> j) & 1 for j in range(32)], dtype=np.int32)
    return bits[:16] << 4, bits[16:] << 4


def q5_0():
    db, d = half(0.0077)
    qh = int(rng.integers(0, 2**32, dtype=np.uint64))
    qs = u8s(16)
    h0, h1 = fifth_bits(qh)
    lo = (((qs & 0xF).astype(np.int32) | h0) - 16).astype(F32) * d
    hi = (((qs >> 4).astype(np.int32) | h1) - 16).astype(F32) * d
    return db + struct.pack("<I", qh) + qs.tobytes(), np.concatenate([lo, hi])


def q5_1():
    db, d = half(0.0213)
    mb, m = half(-0.3333)
    qh = int(rng.integers(0, 2**32, dtype=np.uint64))
    qs = u8s(16)
    h0, h1 = fifth_bits(qh)
    lo = ((qs & 0xF).astype(np.int32) | h0).astype(F32) * d + m
    hi = ((qs >> 4).astype(np.int32) | h1).astype(F32) * d + m
    return db + mb + struct.pack("<I", qh) + qs.tobytes(), np.concatenate([lo, hi])


def q8_0():
    db, d = half(0.00391)
    qs = u8s(32).view(np.int8)
    return db + qs.tobytes(), qs.astype(F32) * d


def q2_k():
    scales = u8s(16)
    qs = u8s(64)
    db, d = half(0.0625 * 1.37)
    mb, dmin = half(0.0172)
    out = []
    for n in range(2):  # two halves of 128 elements, each reading 32 bytes of qs
        q = qs[32 * n: 32 * n + 32]
        for j in range(4):
            shift = 2 * j
            for part in range(2):
                sc = scales[8 * n + 2 * j + part]
                dl = d * F32(sc & 0xF)
                ml = dmin * F32(sc >> 4)
                vals = ((q[16 * part: 16 * part + 16] >> shift) & 3).astype(F32)
                out.append(dl * vals - ml)
    return scales.tobytes() + qs.tobytes() + db + mb, np.concatenate(out)


def q3_k():
    hmask = u8s(32)
    qs = u8s(64)
    sc = u8s(12)
    db, d = half(0.0419)
    # 16 six-bit scales: low nibbles in bytes 0..7 (j < 8 low nibble, j >= 8 high nibble
    # of byte j - 8), two high bits of scale j in byte 8 + j % 4 at bit 2 * (j // 4).
    scale = []
    for j in range(16):
        low = (sc[j] & 0xF) if j < 8 else (sc[j - 8] >> 4)
        high = (sc[8 + j % 4] >> (2 * (j // 4))) & 3
        scale.append(int(low | (high << 4)) - 32)
    out = []
    m = 1
    for n in range(2):
        q = qs[32 * n: 32 * n + 32]
        for j in range(4):
            shift = 2 * j
            for part in range(2):
                dl = d * F32(scale[8 * n + 2 * j + part])
                k = slice(16 * part, 16 * part + 16)
                low2 = ((q[k] >> shift) & 3).astype(np.int32)
                minus = np.where(hmask[k] & m, 0, 4)
                out.append(dl * (low2 - minus).astype(F32))
            m <<= 1
    return hmask.tobytes() + qs.tobytes() + sc.tobytes() + db, np.concatenate(out)


def scale_min_k4(j, s):
    if j < 4:
        return int(s[j] & 63), int(s[j + 4] & 63)
    return int((s[j + 4] & 0xF) | ((s[j - 4] >> 6) << 4)), int((s[j + 4] >> 4) | ((s[j] >> 6) << 4))


def q4_k():
    db, d = half(0.0051)
    mb, dmin = half(0.0113)
    sc = u8s(12)
    qs = u8s(128)
    out = []
    for g in range(4):  # 4 groups of 64 elements over 32 bytes of qs
        q = qs[32 * g: 32 * g + 32]
        s1, m1 = scale_min_k4(2 * g, sc)
        s2, m2 = scale_min_k4(2 * g + 1, sc)
        out.append((d * F32(s1)) * (q & 0xF).astype(F32) - dmin * F32(m1))
        out.append((d * F32(s2)) * (q >> 4).astype(F32) - dmin * F32(m2))
    return db + mb + sc.tobytes() + qs.tobytes(), np.concatenate(out)


def q5_k():
    db, d = half(0.0029)
    mb, dmin = half(0.0088)
    sc = u8s(12)
    qh = u8s(32)
    qs = u8s(128)
    out = []
    for g in range(4):
        q = qs[32 * g: 32 * g + 32]
        s1, m1 = scale_min_k4(2 * g, sc)
        s2, m2 = scale_min_k4(2 * g + 1, sc)
        b1 = np.where(qh & (1 << (2 * g)), 16, 0)
        b2 = np.where(qh & (2 << (2 * g)), 16, 0)
        out.append((d * F32(s1)) * ((q & 0xF).astype(np.int32) + b1).astype(F32) - dmin * F32(m1))
        out.append((d * F32(s2)) * ((q >> 4).astype(np.int32) + b2).astype(F32) - dmin * F32(m2))
    return db + mb + sc.tobytes() + qh.tobytes() + qs.tobytes(), np.concatenate(out)


def q6_k():
    ql = u8s(128)
    qh = u8s(64)
    sc = u8s(16).view(np.int8)
    db, d = half(0.0031)
    y = np.zeros(256, F32)
    for n in range(2):
        L, H, S = ql[64 * n: 64 * n + 64], qh[32 * n: 32 * n + 32], sc[8 * n: 8 * n + 8]
        for l in range(32):
            i = l // 16
            q1 = int((L[l] & 0xF) | (((H[l] >> 0) & 3) << 4)) - 32
            q2 = int((L[l + 32] & 0xF) | (((H[l] >> 2) & 3) << 4)) - 32
            q3 = int((L[l] >> 4) | (((H[l] >> 4) & 3) << 4)) - 32
            q4 = int((L[l + 32] >> 4) | (((H[l] >> 6) & 3) << 4)) - 32
            base = 128 * n + l
            y[base] = d * F32(S[i]) * F32(q1)
            y[base + 32] = d * F32(S[i + 2]) * F32(q2)
            y[base + 64] = d * F32(S[i + 4]) * F32(q3)
            y[base + 96] = d * F32(S[i + 6]) * F32(q4)
    return ql.tobytes() + qh.tobytes() + sc.tobytes() + db, y


def q8_k():
    d = F32(0.0157)
    qs = u8s(256).view(np.int8)
    bsums = qs.astype(np.int16).reshape(16, 16).sum(axis=1).astype("<i2")
    return struct.pack("<f", d) + qs.tobytes() + bsums.tobytes(), d * qs.astype(F32)


# kvalues_iq4nl and kvalues_fp4 (ggml-common.h): IQ4_NL's levels and the E2M1 values doubled.
IQ4NL_VALUES = np.array([-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113], np.int8)
FP4_VALUES = np.array([0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12], np.int8)


def iq4_nl():
    db, d = half(0.0213)
    qs = u8s(16)
    lo = d * IQ4NL_VALUES[qs & 0xF].astype(F32)
    hi = d * IQ4NL_VALUES[qs >> 4].astype(F32)
    return db + qs.tobytes(), np.concatenate([lo, hi])


def mxfp4():
    e = 121  # E8M0: 2^(121 - 127); ggml halves it for its doubled E2M1 values
    d = F32(2.0 ** (e - 128))
    qs = u8s(16)
    lo = FP4_VALUES[qs & 0xF].astype(F32) * d
    hi = FP4_VALUES[qs >> 4].astype(F32) * d
    return bytes([e]) + qs.tobytes(), np.concatenate([lo, hi])


def tq2_0():
    db, d = half(0.0311)
    qs = u8s(64)
    # element 32 * (4 * j + l) + m is bits 2l..2l+1 of qs[32 * j + m], minus 1, times d
    q = (qs.reshape(2, 1, 32) >> (2 * np.arange(4, dtype=np.uint8)).reshape(1, 4, 1)) & 3
    return qs.tobytes() + db, (q.reshape(-1).astype(np.int32) - 1).astype(F32) * d


# name, ggml type id, type name, block function, blocks per row, rows
QUANTS = [
    ("q4_0", 2, "Q4_0", q4_0, 1, 2),
    ("q4_1", 3, "Q4_1", q4_1, 1, 2),
    ("q5_0", 6, "Q5_0", q5_0, 1, 2),
    ("q5_1", 7, "Q5_1", q5_1, 1, 2),
    ("q8_0", 8, "Q8_0", q8_0, 2, 1),
    ("q2_k", 10, "Q2_K", q2_k, 1, 1),
    ("q3_k", 11, "Q3_K", q3_k, 1, 1),
    ("q4_k", 12, "Q4_K", q4_k, 1, 1),
    ("q5_k", 13, "Q5_K", q5_k, 1, 1),
    ("q6_k", 14, "Q6_K", q6_k, 1, 1),
    ("q8_k", 15, "Q8_K", q8_k, 1, 1),
    ("iq4_nl", 20, "IQ4_NL", iq4_nl, 1, 1),
    ("mxfp4", 39, "MXFP4", mxfp4, 2, 1),
    ("tq2_0", 35, "TQ2_0", tq2_0, 1, 1),
]


def build():
    tensors = []  # (name, dims innermost first, type id, raw bytes)
    expected = {}
    tensors.append(("f32", [3, 2], 0, (np.arange(6, dtype="<f4") * F32(0.5) - F32(1)).tobytes()))
    tensors.append(("f16", [4], 1, np.array([0.1, -2.0, 0.5, 1024.0], "<f2").tobytes()))
    tensors.append(("i32", [2], 26, np.array([-7, 123456], "<i4").tobytes()))
    for name, tid, tname, fn, blocks, rows in QUANTS:
        raw, vals = b"", []
        for _ in range(blocks * rows):
            b, v = fn()
            raw += b
            vals.append(v.astype(F32))
        row = len(vals[0]) * blocks
        dims = [row] if rows == 1 else [row, rows]
        tensors.append((name, dims, tid, raw))
        flat = np.concatenate(vals)
        expected[name] = {"type": tname, "shape": list(reversed(dims)),
                          "values": [float(x) for x in flat]}
    # Q8_1 (ggml type 9): listed, but not dequantized (ggml and gguf-py have no dequantization for it).
    tensors.append(("q8_1", [32], 9, bytes(36)))

    metadata = [
        ("general.architecture", STRING, "llama"),
        ("general.alignment", U32, ALIGN),
        ("test.u8", U8, 200),
        ("test.i8", I8, -5),
        ("test.u16", U16, 65535),
        ("test.i16", I16, -300),
        ("test.i32", I32, -70000),
        ("test.u64", U64, 2**63 + 5),
        ("test.i64", I64, -(2**40)),
        ("test.f32", FLT32, 0.1),
        ("test.f64", FLT64, 0.1),
        ("test.bool", BOOL, True),
        ("test.strings", ARRAY, (STRING, ["a", "b\r", "caf\u00e9"])),
        ("test.bad_utf8", STRING, b"ok\xff\r\n"),
        ("test.nested", ARRAY, (ARRAY, [(I32, [1, 2]), (I32, [3])])),
        ("test.empty", ARRAY, (FLT32, [])),
    ]

    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(metadata))
    for key, vtype, v in metadata:
        out += gguf_string(key) + struct.pack("<I", vtype) + gguf_value(vtype, v)
    offset = 0
    data = b""
    for name, dims, tid, raw in tensors:
        out += gguf_string(name) + struct.pack("<I", len(dims))
        out += b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", tid, offset)
        pad = (-len(raw)) % ALIGN
        data += raw + bytes(pad)
        offset += len(raw) + pad
    out += bytes((-len(out)) % ALIGN)
    out += data
    with open(os.path.join(HERE, "quants.gguf"), "wb") as f:
        f.write(out)
    with open(os.path.join(HERE, "gguf_expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    build()
