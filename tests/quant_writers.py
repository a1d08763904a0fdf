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
    config = {
        "architectures": ["LlamaForCausalLM"],
        "hidden_size": 256,
        "torch_dtype": "bfloat16",
        key: quantization_config
    }
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


def gptq_pack(intweight, zeros, scales, bits, v2=False):
    """AutoGPTQ's QuantLinear.pack (auto_gptq/nn_modules/qlinear/qlinear_cuda_old.py) for 2/4/8
    bits: intweight [in, out] packed along the input axis into int32 rows, zeros [groups, out]
    stored minus 1 (gptq; gptq_v2 stores them as they are) packed along the output axis.
    Returns qweight, qzeros (int32 arrays) and scales as float16."""
    pack = 32 // bits
    iw = intweight.astype(np.uint32)
    qweight = np.zeros((iw.shape[0] // pack, iw.shape[1]), dtype=np.uint32)
    for j in range(pack):
        qweight |= iw[j::pack] << (bits * j)
    z = (zeros.astype(np.int64) - (0 if v2 else 1)).astype(np.uint32) & ((1 << bits) - 1)
    qzeros = np.zeros((z.shape[0], z.shape[1] // pack), dtype=np.uint32)
    for j in range(pack):
        qzeros |= z[:, j::pack] << (bits * j)
    return qweight.view(np.int32), qzeros.view(np.int32), scales.astype(np.float16)


def gptq_dequant(qweight, qzeros, scales, g_idx, bits, v2=False):
    """AutoGPTQ's forward: (qweight >> wf) & maxq, (qzeros >> wf) & maxq + 1 (gptq), then
    scales[g_idx] * (weight - zeros[g_idx]); in float32, as [out, in]."""
    pack, mask = 32 // bits, (1 << bits) - 1
    qw = qweight.view(np.uint32)
    w = np.stack([(qw >> (bits * j)) & mask for j in range(pack)], axis=1).reshape(-1, qw.shape[1])  # [in, out]
    qz = qzeros.view(np.uint32)
    z = np.stack([(qz >> (bits * j)) & mask for j in range(pack)], axis=2).reshape(qz.shape[0], -1)  # [groups, out]
    z = z.astype(np.int64) + (0 if v2 else 1)
    s = scales.astype(np.float32)
    out = s[g_idx] * (w.astype(np.int64) - z[g_idx]).astype(np.float32)
    return np.ascontiguousarray(out.T).astype(np.float32)


AWQ_ORDER = [0, 2, 4, 6, 1, 3, 5, 7]
AWQ_REVERSE_ORDER = [0, 4, 1, 5, 2, 6, 3, 7]


def awq_pack(intweight, zeros):
    """AutoAWQ's WQLinear_GEMM.from_linear packing: for each 8 outputs, output
    AWQ_ORDER[j] goes to field j of the word. intweight [in, out], zeros [groups, out]."""
    def pack(a):
        a = a.astype(np.uint32)
        out = np.zeros((a.shape[0], a.shape[1] // 8), dtype=np.uint32)
        for j in range(8):
            out |= a[:, AWQ_ORDER[j]::8] << (4 * j)
        return out.view(np.int32)
    return pack(intweight), pack(zeros)


def awq_dequant(qweight, qzeros, scales, group_size):
    """AutoAWQ awq/utils/packing_utils.py dequantize_gemm in float32, transposed to [out, in]."""
    def unpack(q):
        u = q.view(np.uint32)
        v = np.stack([(u >> (4 * j)) & 0xF for j in range(8)], axis=2).reshape(u.shape[0], -1)
        rev = np.arange(v.shape[1]).reshape(-1, 8)[:, AWQ_REVERSE_ORDER].reshape(-1)
        return v[:, rev].astype(np.int64)
    w, z = unpack(qweight), unpack(qzeros)
    z = np.repeat(z, group_size, axis=0)
    s = np.repeat(scales.astype(np.float32), group_size, axis=0)
    return np.ascontiguousarray(((w - z).astype(np.float32) * s).T).astype(np.float32)


def mlx_quantize(w, bits, group):
    """mlx.core.quantize (affine): per group of `group` inputs, scale = (max - min) / (2**bits - 1),
    bias = min, q = round((w - bias) / scale); codes packed into uint32 along the input axis,
    least significant bits first. Returns (packed uint32 [out, in*bits/32], scales, biases) with
    scales/biases as float16, as mlx-lm saves them for a float16 model."""
    out, inn = w.shape
    g = w.reshape(out, inn // group, group)
    lo, hi = g.min(axis=2), g.max(axis=2)
    scale = ((hi - lo) / ((1 << bits) - 1)).astype(np.float16)
    bias = lo.astype(np.float16)
    s32 = np.where(scale == 0, 1, scale).astype(np.float32)
    q = np.clip(np.rint((g - bias.astype(np.float32)[..., None]) / s32[..., None]), 0,
                (1 << bits) - 1).astype(np.uint32)
    q = q.reshape(out, inn)
    pack = 32 // bits
    packed = np.zeros((out, inn // pack), dtype=np.uint32)
    for j in range(pack):
        packed |= q[:, j::pack] << (bits * j)
    return packed, scale, bias


def mlx_dequant(packed, scales, biases, bits, group):
    """mlx's _qmm_t per value: scale * q + bias, in float32."""
    pack, mask = 32 // bits, (1 << bits) - 1
    q = np.stack([(packed >> (bits * j)) & mask for j in range(pack)], axis=2).reshape(packed.shape[0], -1)
    s = np.repeat(scales.astype(np.float32), group, axis=1)
    b = np.repeat(biases.astype(np.float32), group, axis=1)
    return (s * q.astype(np.float32) + b).astype(np.float32)
