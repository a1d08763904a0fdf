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
        if f.endswith(".npy"):
            put("npy", data, f)
            put("raw", bytes([DTYPES.index("uint8"), 0]) + data, f)
        elif f.endswith(".npz"):
            put("npz", members_form(p), f)
        elif f.endswith(".safetensors"):
            put("safetensors", data, f)
        elif f.endswith(".gguf"):
            put("gguf", data, f)
        elif f.endswith(".pt"):
            if zipfile.is_zipfile(p):
                put("pytorch", members_form(p), f)
                with zipfile.ZipFile(p) as z:
                    for n in z.namelist():
                        if n.endswith(".pkl"): put("pickle", z.read(n), f + ".pkl")
            else:
                put("pytorch", b"\x01" + data, f)
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
    put("inspect", index, "model.safetensors.index.json")
    # view_as: float32 [1.0, 2.0] -> B -> i ; int16 bytes -> B (2, 4) -> B
    put("view_as", bytes([DTYPES.index("float32"), 8]) + struct.pack("<2f", 1.0, 2.0) + b"B\x03i\x03", "f32_B_i")
    put("view_as", bytes([DTYPES.index("int16"), 8]) + bytes(range(8)) + b"B\x02\x02\x04B\x03", "i16_B_2x4")
    put("view_as", bytes([DTYPES.index("uint8"), 4]) + bytes(4) + b"f\x00", "u8_f_0d")
    print("seeds:", ", ".join(f"{h} {len(os.listdir(os.path.join(OUT, h)))}" for h in sorted(os.listdir(OUT))))


if __name__ == "__main__":
    sys.exit(main())
