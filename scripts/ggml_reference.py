#!/usr/bin/python3
"""Writes tests/data/ggml_ref/: for each ggml quant type gguf-py can dequantize, a small GGUF file of
random blocks with realistic scales and the float32 values gguf-py's quants.py dequantizes them to.

    GGUF_PY=/path/to/llama.cpp/gguf-py /usr/bin/python3 scripts/ggml_reference.py

gguf-py (llama.cpp's Python package) is the independent reference: its own NumPy formulas and its
own encoding of the IQ grids. Each <TYPE>.gguf holds two tensors: `v`, 1-D, three blocks, the
second with a scale of +inf and the third with a NaN scale where the type has a float16 scale
(so gguf-py's values hold inf and NaN there), and `m`, 2-D, two rows of two blocks. <TYPE>.npz
holds gguf-py's values for both (keys v and m). Seeded: a rerun writes the same files.
"""
import os
import struct
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, os.environ["GGUF_PY"])
from gguf import quants  # noqa: E402  (gguf-py's own module)
from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "ggml_ref"
ALIGN = 32

# Byte offsets of each type's float16 scales (ggml-common.h block layouts): d first, then a
# min or second scale. IQ1_M and MXFP4 store their scale otherwise (see make_blocks).
HALF_SCALES = {
    "Q4_0": [0], "Q4_1": [0, 2], "Q5_0": [0], "Q5_1": [0, 2], "Q8_0": [0],
    "Q2_K": [80, 82], "Q3_K": [108], "Q4_K": [0, 2], "Q5_K": [0, 2], "Q6_K": [208],
    "TQ1_0": [52], "TQ2_0": [64], "IQ2_XXS": [0], "IQ2_XS": [0], "IQ2_S": [0], "IQ3_XXS": [0],
    "IQ3_S": [0], "IQ1_S": [0], "IQ4_NL": [0], "IQ4_XS": [0], "IQ1_M": [], "MXFP4": [],
}
SPECIAL = {"inf": 0x7C00, "nan": 0x7E00}


def realistic_half(rng):
    """float16 bits of a scale in 1e-4..1e-1 (log-uniform), either sign."""
    value = 10.0 ** rng.uniform(-4, -1) * (1 if rng.random() < 0.8 else -1)
    return int(np.array([value], np.float16).view(np.uint16)[0])


def set_half(block, at, bits):
    block[at:at + 2] = [bits & 0xFF, bits >> 8]


def make_blocks(name, count, rng, special):
    """`count` random blocks of type `name`; special[i] ('inf', 'nan' or None) replaces block i's d."""
    _, size = GGML_QUANT_SIZES[GGMLQuantizationType[name]]
    blocks = rng.integers(0, 256, size=(count, size), dtype=np.uint8)
    for i in range(count):
        b = blocks[i]
        for at in HALF_SCALES[name]:
            set_half(b, at, realistic_half(rng))
        d_bits = SPECIAL[special[i]] if special[i] else realistic_half(rng)
        if HALF_SCALES[name]:
            set_half(b, HALF_SCALES[name][0], d_bits)
        elif name == "IQ1_M":  # the half d is the top nibble of each of the four u16 scales
            sc = b[48:56].view("<u2")
            for k in range(4):
                sc[k] = (sc[k] & 0x0FFF) | (((d_bits >> (4 * k)) & 0xF) << 12)
        elif name == "MXFP4":  # E8M0 exponent: realistic 2^-10..2^3, or the extremes 0, 1 and 255
            b[0] = {"inf": 255, "nan": 0}.get(special[i], int(rng.integers(117, 131)))
    return blocks


def gguf_bytes(tensors):
    """A GGUF v3 file: no metadata, `tensors` = [(name, ggml type id, dims innermost first, data bytes)]."""
    def string(s):
        raw = s.encode()
        return struct.pack("<Q", len(raw)) + raw

    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), 0)
    offset, infos, datas = 0, b"", b""
    for name, type_id, dims, data in tensors:
        infos += string(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        infos += struct.pack("<IQ", type_id, offset)
        pad = -len(data) % ALIGN
        datas += data + b"\0" * pad
        offset += len(data) + pad
    header = head + infos
    return header + b"\0" * (-len(header) % ALIGN) + datas


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20261203)
    for name in HALF_SCALES:
        qtype = GGMLQuantizationType[name]
        block_elems, _ = GGML_QUANT_SIZES[qtype]
        v = make_blocks(name, 3, rng, [None, "inf", "nan"])
        m = make_blocks(name, 4, rng, [None] * 4)
        with np.errstate(invalid="ignore", over="ignore"):  # the inf and NaN scales, on purpose
            v_values = quants.dequantize(v.reshape(1, -1), qtype).reshape(-1)
            m_values = quants.dequantize(m.reshape(2, -1), qtype)
        assert v_values.dtype == np.float32 and m_values.shape == (2, 2 * block_elems)
        (OUT / f"{name}.gguf").write_bytes(gguf_bytes([
            ("v", int(qtype), [3 * block_elems], v.tobytes()),
            ("m", int(qtype), [2 * block_elems, 2], m.tobytes()),
        ]))
        np.savez(OUT / f"{name}.npz", v=v_values, m=m_values)
        print(f"{name}: nan {int(np.isnan(v_values).sum())}, inf {int(np.isinf(v_values).sum())}")


if __name__ == "__main__":
    main()
