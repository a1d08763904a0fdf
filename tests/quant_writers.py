"""Writes small quantized checkpoints the way their producers lay them out, with NumPy and
the standard library only (no torch, no safetensors package), and decodes them again by
each producer's formula, written here independently of tensor-inspect's C++:

- safetensors files: an 8-byte little-endian header length, the JSON header (sorted keys,
  data_offsets in data order), the tensors' bytes back to back (huggingface/safetensors).
- fp8 E4M3 (e4m3fn): sign, 4 exponent bits (bias 7), 3 mantissa bits, no inf, S.1111.111 NaN.
- FP4 E2M1 / E8M0: OCP Microscaling v1.0; FP4 values as transformers' integrations/mxfp4.py
  FP4_VALUES, packed two per byte with the first value in the low nibble.
"""
import json
import os
import struct

import numpy as np


def write_safetensors(path, tensors, metadata=None):
    """tensors: {name: (dtype_tag, shape, raw_bytes)} in the order their data is laid out."""
    header, offset, blobs = {}, 0, []
    for name, (tag, shape, raw) in tensors.items():
        header[name] = {"dtype": tag, "shape": list(shape), "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
        blobs.append(raw)
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)  # safetensors' Python writer pads the header to 8 bytes
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def write_config(folder, quantization_config, key="quantization_config"):
    config = {"architectures": ["LlamaForCausalLM"], "hidden_size": 256, "torch_dtype": "bfloat16", key: quantization_config}
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)


def fp8_e4m3_decode(codes):
    """float32 values of e4m3fn codes (uint8 array)."""
    c = codes.astype(np.int64)
    sign = np.where(c & 0x80, -1.0, 1.0)
    e = (c >> 3) & 0xF
    m = c & 0x7
    mag = np.where(e == 0, m / 8.0 * 2.0 ** -6, (1 + m / 8.0) * 2.0 ** (e - 7))
    mag = np.where((e == 15) & (m == 7), np.nan, mag)
    return (sign * mag).astype(np.float32)


_E4M3_ALL = fp8_e4m3_decode(np.arange(256, dtype=np.uint8))


def fp8_e4m3_encode(x):
    """Nearest e4m3fn code of each float (saturating at +-448): enough for realistic weights."""
    finite = np.where(np.isnan(_E4M3_ALL), np.inf, _E4M3_ALL).astype(np.float64)
    x = np.clip(np.asarray(x, dtype=np.float64), -448.0, 448.0)
    return np.abs(x[..., None] - finite).argmin(axis=-1).astype(np.uint8)


def bf16_bytes(x):
    """bfloat16 bytes of float32 values (round to nearest even), as torch's .to(bfloat16)."""
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return r.tobytes()


def bf16_decode(raw, shape):
    u = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
    return u.view(np.float32).reshape(shape)


FP4_VALUES = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0],
                      dtype=np.float32)


def fp4_pack(codes):
    """Packs 4-bit codes (last axis even) two per byte, the first in the low nibble."""
    c = codes.astype(np.uint8)
    return (c[..., 0::2] | (c[..., 1::2] << 4)).astype(np.uint8)


def fp4_unpack(packed):
    p = packed.astype(np.uint8)
    out = np.empty(p.shape[:-1] + (p.shape[-1] * 2,), dtype=np.uint8)
    out[..., 0::2] = p & 0x0F
    out[..., 1::2] = p >> 4
    return out


def e8m0_decode(codes):
    c = codes.astype(np.int64)
    return np.where(c == 255, np.nan, np.ldexp(np.float32(1.0), (c - 127).astype(np.int32))).astype(np.float32)


def fp8_block_quantize(w, block=(128, 128), scale_dtype="F32"):
    """DeepSeek-V3's inference/bf16_cast_fp8.py act: per block, scale = amax / 448, codes of
    w / scale; returns (codes uint8, scale_inv float32 array as stored, scale raw bytes)."""
    out, inn = w.shape
    bn, bk = block
    sr, sc = -(-out // bn), -(-inn // bk)
    scale = np.zeros((sr, sc), dtype=np.float32)
    codes = np.zeros(w.shape, dtype=np.uint8)
    for i in range(sr):
        for j in range(sc):
            blk = w[i * bn:(i + 1) * bn, j * bk:(j + 1) * bk]
            s = np.float32(max(float(np.abs(blk).max()), 1e-12) / 448.0)
            scale[i, j] = s
            codes[i * bn:(i + 1) * bn, j * bk:(j + 1) * bk] = fp8_e4m3_encode(blk / s)
    if scale_dtype == "BF16":
        raw = bf16_bytes(scale)
        scale = bf16_decode(raw, scale.shape)
    else:
        raw = scale.astype("<f4").tobytes()
    return codes, scale, raw


def fp8_block_dequant(codes, scale_inv, block=(128, 128)):
    """deepseek-ai/DeepSeek-V3 inference/kernel.py weight_dequant: x.to(float32) * s per block."""
    bn, bk = block
    s = np.repeat(np.repeat(scale_inv, bn, axis=0), bk, axis=1)[:codes.shape[0], :codes.shape[1]]
    return (fp8_e4m3_decode(codes) * s).astype(np.float32)


def mxfp4_dequant(blocks, scales):
    """transformers' integrations/mxfp4.py convert_moe_packed_tensors, in float32: FP4_VALUES
    of the low then the high nibble, torch.ldexp by scales - 127, [*prefix, G*32], then
    transpose(1, 2)."""
    *prefix, g, b = blocks.shape
    rows = int(np.prod(prefix)) * g
    blk = blocks.reshape(rows, b)
    exp = scales.astype(np.int32).reshape(rows, 1) - 127
    out = np.empty((rows, b * 2), dtype=np.float32)
    out[:, 0::2] = FP4_VALUES[blk & 0x0F]
    out[:, 1::2] = FP4_VALUES[blk >> 4]
    out = np.ldexp(out, exp).astype(np.float32)
    out = out.reshape(*prefix, g * b * 2)
    return np.ascontiguousarray(np.swapaxes(out, 1, 2))
