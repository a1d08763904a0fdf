#!/usr/bin/env python3
"""fuzz/make_seeds.py — writes the seed corpora fuzz/seeds/<harness>/ from samples/ and
the conformance cases, each in its harness's input form (see the fuzz_*.cpp headers and
zip_input.hpp). Deterministic: rerunning it rewrites the same files.

    python3 fuzz/make_seeds.py            # rewrites fuzz/seeds/
"""
import hashlib, json, os, shutil, struct, sys, zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "samples")
OUT = os.path.join(ROOT, "fuzz", "seeds")
# DType enum order (lib/include/tensor_inspect/dtype.hpp)
DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "bfloat16", "float32", "float64", "fp8e4m3", "fp8e5m2"]
ITEMSIZE = [1, 1, 1, 2, 2, 4, 4, 8, 8, 2, 2, 4, 8, 1, 1]
NO_DTYPE = 0xFF


def put(harness, data, name=None):
    d = os.path.join(OUT, harness)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str): data = data.encode()
    name = name or hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), "wb") as f: f.write(data)


def sample(name):
    with open(os.path.join(SAMPLES, name), "rb") as f: return f.read()


def members_form(path):
    """A zip in zip_input.hpp's member-list form, or its raw form when a member does not fit."""
    out = bytearray([0])
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            data, name = z.read(info), info.filename.encode()
            if len(data) > 0xFFFF or len(name) > 0xFF:
                with open(path, "rb") as f: return b"\x01" + f.read()
            flags = 1 if info.compress_type == zipfile.ZIP_DEFLATED else 0
            out += bytes([flags, len(name)]) + name + struct.pack("<H", len(data)) + data
    return bytes(out)


def cases():
    with open(os.path.join(ROOT, "tests", "conformance", "cases.jsonl")) as f:
        return [json.loads(l) for l in f if l.strip()]


def dcp_seeds():
    """torch.distributed.checkpoint .metadata files as tests/dcp_writer.py makes them (PyTorch 2.x's
    pickle of DCP's classes): one rank with a non-tensor item, and a 2x2 grid over two ranks. Needs
    torch (python3-torch) for torch.Size and the chunk archives; skipped without it."""
    try:
        sys.path.insert(0, os.path.join(ROOT, "tests"))
        import torch, dcp_writer
    except ImportError:
        print("dcp seeds skipped: torch does not import")
        return
    import tempfile
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)  # a relative folder: StorageMeta.checkpoint_id is the same on every run
        try:
            dcp_writer.write_dcp("one", {"step": 3, "w": torch.arange(6.).reshape(2, 3),
                                         "b": torch.tensor([1, 2], dtype=torch.int8)}, save_id="seed-one")
            grid = [(0, [0, 0], [3, 4]), (1, [0, 4], [3, 3]), (0, [3, 0], [2, 4]), (1, [3, 4], [2, 3])]
            dcp_writer.write_dcp("grid", {"g": torch.zeros(5, 7), "v": torch.zeros(4, dtype=torch.bfloat16)},
                                 shards={"g": grid, "v": [(1, [0], [4])]}, ranks=2, save_id="seed-grid")
            for name in ("one", "grid"):
                with open(os.path.join(name, ".metadata"), "rb") as f: put("dcp", f.read(), name + ".metadata")
        finally:
            os.chdir(here)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    files = sorted(os.listdir(SAMPLES))
    cs = cases()
    # literals and expressions: one seed per distinct input and per distinct expression
    seen_in, seen_ex = set(), set()
    for c in cs:
        d = DTYPES.index(c["dtype"]) if c["dtype"] in DTYPES else NO_DTYPE
        if c["input"] is not None and (c["input"], d) not in seen_in:
            seen_in.add((c["input"], d))
            put("literal", bytes([d]) + c["input"].encode())
        if c["expr"] is not None and c["expr"] not in seen_ex:
            seen_ex.add(c["expr"])
            put("expr", c["expr"])
            # expr_realize: x is a 2x3 tensor of a dtype the case names (default float32)
            dt = d if d != NO_DTYPE else DTYPES.index("float32")
            shape_byte = 2 | (2 << 2) | (3 << 4)
            body = bytes(range(1, 1 + 6 * ITEMSIZE[dt]))
            put("expr_realize", bytes([dt, shape_byte]) + body + c["expr"].encode())
    for f in files:
        p = os.path.join(SAMPLES, f)
        if not os.path.isfile(p) or f.endswith((".py", ".json", ".md")): continue
        data = sample(f)
        put("inspect", data, f)
        ext = {".npy": 0, ".npz": 1, ".safetensors": 2, ".gguf": 3, ".pt": 4}.get(os.path.splitext(f)[1])
        if ext is not None: put("validate", bytes([ext]) + data, f)
        if f.endswith(".npy"):
            put("npy", data, f)
            put("raw", bytes([DTYPES.index("uint8"), 0]) + data, f)
        elif f.endswith(".npz"):
            put("npz", members_form(p), f)
        elif f.endswith(".safetensors"):
            put("safetensors", data, f)
        elif f.endswith(".gguf"):
            put("gguf", data, f)
        elif f.endswith(".onnx"):
            put("onnx", data, f)
        elif f.endswith(".h5"):
            put("hdf5", data, f)
        elif f.endswith(".keras"):
            with zipfile.ZipFile(p) as z:
                put("hdf5", z.read("model.weights.h5"), f + ".weights.h5")
        elif f.endswith(".pt"):
            if zipfile.is_zipfile(p):
                put("pytorch", members_form(p), f)
                with zipfile.ZipFile(p) as z:
                    for n in z.namelist():
                        if n.endswith(".pkl"): put("pickle", z.read(n), f + ".pkl")
            else:
                put("pytorch", b"\x01" + data, f)
                put("pytorch_legacy", data, f)
                put("pickle", data, f)
    # raw: float32 2x2 and big-endian int16 with an explicit shape and no offset
    put("raw", bytes([DTYPES.index("float32"), 2]) + bytes([2, 2]) + sample("raw_f32.bin")[:16], "raw_f32")
    put("raw", bytes([DTYPES.index("int16"), 0x80]) + sample("raw_be_i16.bin"), "raw_be_i16")
    put("raw", bytes([DTYPES.index("float64"), 1 | (8 << 2)]) + bytes([2]) + bytes(24), "raw_offset8")
    # the sharded checkpoint of samples/sharded/
    sh = os.path.join(SAMPLES, "sharded")
    shards = sorted(n for n in os.listdir(sh) if n.endswith(".safetensors"))
    blob = bytearray([len(shards)])
    for n in shards:
        with open(os.path.join(sh, n), "rb") as f: data = f.read()
        put("inspect", data, n)
        put("safetensors", data, n)
        blob += bytes([len(n)]) + n.encode() + struct.pack("<H", len(data)) + data
    with open(os.path.join(sh, "model.safetensors.index.json"), "rb") as f: index = f.read()
    put("safetensors_index", bytes(blob) + index, "sharded")
    with open(os.path.join(SAMPLES, "onnx_external", "model.onnx"), "rb") as f: put("onnx", f.read(), "external.onnx")
    put("inspect", index, "model.safetensors.index.json")
    # validate: the broken corpus of tests/validate/make_broken.py, one planted fault set each
    import subprocess, tempfile
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "validate", "make_broken.py"), tmp], check=True,
                       capture_output=True)
        for name in sorted(json.load(open(os.path.join(tmp, "manifest.json")))):
            if "/" in name: continue  # the index cases need their shards beside them
            ext = [".npy", ".npz", ".safetensors", ".gguf", ".pt"].index(os.path.splitext(name)[1])
            with open(os.path.join(tmp, name), "rb") as fh: put("validate", bytes([ext]) + fh.read(), name)
    # view_as: float32 [1.0, 2.0] -> B -> i ; int16 bytes -> B (2, 4) -> B
    put("view_as", bytes([DTYPES.index("float32"), 8]) + struct.pack("<2f", 1.0, 2.0) + b"B\x03i\x03", "f32_B_i")
    put("view_as", bytes([DTYPES.index("int16"), 8]) + bytes(range(8)) + b"B\x02\x02\x04B\x03", "i16_B_2x4")
    put("view_as", bytes([DTYPES.index("uint8"), 4]) + bytes(4) + b"f\x00", "u8_f_0d")
    scheme_seeds()
    dcp_seeds()
    print("seeds:", ", ".join(f"{h} {len(os.listdir(os.path.join(OUT, h)))}" for h in sorted(os.listdir(OUT))))


def scheme_seeds():
    """fuzz_schemes: a config line, then a small safetensors file of each scheme's parts."""
    def st(tensors):
        header, off, blob = {}, 0, b""
        for name, (tag, shape, raw) in tensors.items():
            header[name] = {"dtype": tag, "shape": shape, "data_offsets": [off, off + len(raw)]}
            off += len(raw)
            blob += raw
        text = json.dumps(header).encode()
        return struct.pack("<Q", len(text)) + text + blob
    fp8 = {"l.weight": ("F8_E4M3", [4, 6], bytes(range(0x30, 0x48))),
           "l.weight_scale_inv": ("F32", [1, 1], struct.pack("<f", 0.5))}
    put("schemes", b'{"quantization_config": {"quant_method": "fp8", "weight_block_size": [2, 4]}}\n' +
        st({"l.weight": fp8["l.weight"], "l.weight_scale_inv": ("F32", [2, 2], struct.pack("<4f", 1, 2, 3, 4))}), "fp8_block")
    put("schemes", b"\n" + st(fp8), "fp8_block_detected")
    put("schemes", b'{"quantization_config": {"quant_method": "fbgemm_fp8"}}\n' +
        st({"l.weight": fp8["l.weight"], "l.weight_scale": ("BF16", [4, 1], bytes([0, 0x3f] * 4))}), "fp8_channel")
    put("schemes", b'{"quantization_config": {"quant_method": "mxfp4"}}\n' +
        st({"e.down_proj_blocks": ("U8", [1, 2, 1, 16], bytes(range(32))),
            "e.down_proj_scales": ("U8", [1, 2, 1], bytes([127, 255]))}), "mxfp4")
    put("schemes", b'{"quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4"}}\n' +
        st({"l.weight": ("U8", [2, 8], bytes(range(16))), "l.weight_scale": ("F8_E4M3", [2, 1], bytes([0x38, 0x40])),
            "l.weight_scale_2": ("F32", [], struct.pack("<f", 0.25))}), "nvfp4")
    # bitsandbytes 4-bit: 5 values [1, 5] in blocks of 32 (one partial block), F32 absmax; nested: U8 absmax codes.
    nf4 = {"l.weight": ("U8", [3, 1], bytes([0x0F, 0x7A, 0x30])), "l.weight.quant_map": ("F32", [16], struct.pack(
        "<16f", -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635,
        -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725,
        0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941, 0.7229568362236023,
        1.0))}
    state = {"quant_type": "nf4", "blocksize": 32, "dtype": "bfloat16", "shape": [1, 5]}
    put("schemes", b'{"quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": true}}\n' +
        st({**nf4, "l.weight.absmax": ("F32", [1], struct.pack("<f", 0.5)),
            "l.weight.quant_state.bitsandbytes__nf4": ("U8", [len(json.dumps(state))], json.dumps(state).encode())}),
        "bnb_nf4")
    state.update({"nested_blocksize": 256, "nested_dtype": "float32", "nested_offset": 0.25})
    put("schemes", b"\n" + st({**nf4, "l.weight.absmax": ("U8", [1], bytes([200])),
                               "l.weight.nested_absmax": ("F32", [1], struct.pack("<f", 0.5)),
                               "l.weight.nested_quant_map": ("F32", [256], bytes(1024)),
                               "l.weight.quant_state.bitsandbytes__nf4": ("U8", [len(json.dumps(state))],
                                                                          json.dumps(state).encode())}),
        "bnb_nf4_nested_detected")
    put("schemes", b"\n" + st({"s": ("F8_E8M0", [4], bytes([0, 127, 128, 255])), "f": ("F4", [2, 4], bytes([0x21, 0xF7, 0x80, 0x08]))}),
        "minifloats")


if __name__ == "__main__":
    sys.exit(main())
