#!/usr/bin/env python3
"""tests/validate/make_broken.py OUT_DIR — writes a corpus of broken tensor files, each
with the faults planted in it (several per file where the format allows), and
OUT_DIR/manifest.json: {file: [rule, ...]} — the rules `tensor-inspect validate` must
report for it. Files are built byte by byte here (struct, zipfile, pickle opcodes), from
the formats' specifications, never by our tool.
"""
import json, os, struct, sys, zipfile, zlib

OUT = sys.argv[1]
manifest = {}


def put(name, data, rules):
    path = os.path.join(OUT, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f: f.write(data)
    if rules is not None: manifest[name] = rules


# ---------------------------------------------------------------- safetensors
def st(header, data=b"", pad=b" ", align=8, raw=None):
    text = raw if raw is not None else json.dumps(header).encode()
    if align:
        while (8 + len(text)) % align: text += pad
    return struct.pack("<Q", len(text)) + text + data


f32 = lambda *v: struct.pack(f"<{len(v)}f", *v)
put("st_overlap_hole.safetensors", st({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                                       "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]},
                                       "c": {"dtype": "F32", "shape": [1], "data_offsets": [16, 20]}}, bytes(20)),
    ["safetensors.overlap", "safetensors.hole"])
put("st_size_bounds.safetensors", st({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]},
                                      "b": {"dtype": "F32", "shape": [24], "data_offsets": [4, 100]}}, bytes(8)),
    ["safetensors.size", "safetensors.bounds"])
put(
    "st_dtype_key_trailing.safetensors",
    st(
        {
            "a": {
                "dtype": "F33",
                "shape": [1],
                "data_offsets": [0, 4]
            },
            "b": {
                "dtype": "F32",
                "shape": [1],
                "data_offsets": [4, 8],
                "foo": 1
            }
        }, bytes(12)), ["safetensors.dtype", "safetensors.entry_key", "safetensors.trailing"])
put("st_duplicate_metadata.safetensors",
    st(None, bytes(8), raw=b'{"__metadata__": {"n": 5}, "a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, '
                           b'"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}'),
    ["safetensors.duplicate_key", "safetensors.metadata"])
put("st_nul_padding_misaligned.safetensors",
    st(None, f32(1.0), align=0, raw=b'{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}\0\0'),
    ["safetensors.header_padding", "safetensors.alignment"])
put("st_header_length.safetensors", struct.pack("<Q", 4096) + b'{"a": 1}', ["safetensors.header_length"])
put("st_bad_json.safetensors", st(None, raw=b'{"a": {"dtype": "F32", "shape": '
                                  b'[1], "data_offsets": [0, 4]'), ["safetensors.json"])
# A number beyond a double: nlohmann throws out_of_range (406), not parse_error (found by fuzz_validate).
put("st_number_overflow.safetensors",
    st(None, raw=b'{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4], "x": 1e999999}}', data=bytes(4)),
    ["safetensors.json"])
put("index_number_overflow/model.safetensors.index.json", b'{"weight_map": {"a": 1e999999}}',
    ["safetensors-index.json"])
put("st_deep.safetensors", st(None, raw=b'{"a": ' + b"[" * 100 + b"]" * 100 + b"}"), ["safetensors.depth"])
put("st_shape_offsets.safetensors", st({"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]},
                                        "b": {"dtype": "F32", "shape": [1], "data_offsets": [8, 4]}}, bytes(4)),
    ["safetensors.shape", "safetensors.data_offsets"])
put("st_not_object.safetensors", st(None, raw=b'{"a": 1}'[0:0] + b'{"x": [1, 2]}'), ["safetensors.entry"])
put("st_hole_first_trailing.safetensors", st({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, bytes(12)),
    ["safetensors.hole", "safetensors.trailing"])
put("st_entry_missing_dtype.safetensors", st({"a": 5, "b": {"shape": [1], "data_offsets": [0, 4]}}, bytes(4)),
    ["safetensors.entry", "safetensors.dtype"])

# The header's JSON cut short or empty: a finding in the project's words, never nlohmann's.
put("st_header_empty.safetensors", struct.pack("<Q", 0), ["safetensors.json"])
put("st_header_cut.safetensors", st(None, raw=b'{"a":', align=0), ["safetensors.json"])

# ---------------------------------------------------------------- GGUF
def gstr(s): s = s.encode() if isinstance(s, str) else s; return struct.pack("<Q", len(s)) + s
def kv(key, vtype, payload): return gstr(key) + struct.pack("<I", vtype) + payload
def tinfo(name, dims, ttype, offset):
    return gstr(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims) + struct.pack(
        "<IQ", ttype, offset)
def gguf(kvs, tensors, data=b"", version=3, align=32):
    head = b"GGUF" + struct.pack("<IQQ", version, len(tensors), len(kvs)) + b"".join(kvs) + b"".join(tensors)
    head += bytes(-len(head) % align)
    return head + data

U32 = lambda v: struct.pack("<I", v)
put("gguf_duplicates.gguf", gguf([kv("general.name", 8, gstr("x")), kv("general.name", 8, gstr("y"))],
                                 [tinfo("w", [4], 0, 0), tinfo("w", [4], 0, 32)], bytes(64)),
    ["gguf.duplicate_key", "gguf.duplicate_tensor"])
put("gguf_alignment_offset.gguf", gguf([kv("general.alignment", 4, U32(24))], [tinfo("w", [4], 0, 8)], bytes(64)),
    ["gguf.alignment", "gguf.offset_alignment"])
put("gguf_alignment_type_tensor_type.gguf", gguf([kv("general.alignment", 10, struct.pack("<Q", 32))],
                                                 [tinfo("w", [4], 4, 0)], bytes(64)),
    ["gguf.alignment", "gguf.tensor_type"])
put("gguf_blocks_bool.gguf", gguf([kv("flag", 7, b"\x02")], [tinfo("q", [31], 2, 0)], bytes(64)),
    ["gguf.blocks", "gguf.bool"])
put("gguf_overlap_bounds.gguf",
    gguf([], [tinfo("a", [16], 0, 0), tinfo("b", [16], 0, 32),
              tinfo("c", [64], 0, 64)], bytes(96)), ["gguf.overlap", "gguf.bounds"])
put("gguf_version1.gguf", b"GGUF" + struct.pack("<III", 1, 0, 0), ["gguf.version"])
put("gguf_value_type.gguf", gguf([kv("a", 1, b"\x01"), kv("a", 13, b"\x00" * 8)], []),
    ["gguf.duplicate_key", "gguf.value_type"])
put("gguf_ndims.gguf", gguf([kv("k", 4, U32(1)), kv("k", 4, U32(2))], [tinfo("w", [1, 1, 1, 1, 1], 0, 0)], bytes(32)),
    ["gguf.duplicate_key", "gguf.n_dims"])
put("gguf_name_key_empty.gguf", gguf([kv("", 4, U32(1))], [tinfo("n" * 70, [4], 0, 0)], bytes(32)),
    ["gguf.key_empty", "gguf.name_length"])
put("gguf_magic.gguf", b"GGUX" + struct.pack("<IQQ", 3, 0, 0), ["gguf.magic"])
put("gguf_truncated.gguf", gguf([], [tinfo("w", [4], 0, 0)])[:40], ["gguf.structure"])
# A valid ggml type the loader cannot dequantize (9: Q8_1, 32 elements in 36 bytes).
put("gguf_unsupported_type.gguf", gguf([], [tinfo("q", [32], 9, 0)], bytes(64)), ["gguf.unsupported"])
# Bytes after the last tensor's data beyond its padding to the alignment (gguf-py pads
# each tensor's data to it, the last one's too, and writes nothing more).
put("gguf_trailing.gguf", gguf([], [tinfo("w", [4], 0, 0)], f32(1, 2, 3, 4) + bytes(16) + b"junk"), ["gguf.trailing"])
put("gguf_array_type_dup_tensor.gguf", gguf([kv("arr", 9, struct.pack("<IQ", 77, 1))], []), ["gguf.value_type"])

# ---------------------------------------------------------------- .npy
def npy(header, data=b"", version=(1, 0), align=64, newline=True):
    h = header.encode("latin1") if isinstance(header, str) else header
    pre = 10 if version[0] == 1 else 12
    if align:
        total = pre + len(h) + (1 if newline else 0)
        h += b" " * (-total % align)
    if newline: h += b"\n"
    lenfield = struct.pack("<H", len(h)) if version[0] == 1 else struct.pack("<I", len(h))
    return b"\x93NUMPY" + bytes(version) + lenfield + h + data

good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"
put("npy_align_newline_trailing.npy", npy(good, f32(1, 2) + b"xx", align=0, newline=False),
    ["npy.alignment", "npy.newline", "npy.trailing"])
put("npy_keys_short.npy", npy("{'descr': '<f4', 'shape': (4,), 'foo': 1}", f32(1)), ["npy.keys", "npy.data_short"])
put("npy_version.npy", npy(good, f32(1, 2), version=(4, 0)), ["npy.version"])
put("npy_shape_fortran.npy", npy("{'descr': '<f4', 'fortran_order': 'yes', 'shape': (-1, 2), }", f32(1, 2)),
    ["npy.shape", "npy.fortran_order"])
put("npy_header_length.npy", b"\x93NUMPY\x01\x00" + struct.pack("<H", 5000) + b"{'descr'", ["npy.header_length"])
put("npy_not_dict.npy", npy("[1, 2]", f32(1, 2)), ["npy.header"])
put("npy_v3_utf8.npy",
    npy(b"{'descr': '<f4', 'fortran_order': "
        b"False, 'shape': (2,), '\xff': 1}", f32(1, 2), version=(3, 0)), ["npy.utf8", "npy.keys"])
put("npy_duplicate_key.npy",
    npy("{'descr': '<f4', 'descr': '<f4', "
        "'fortran_order': False, 'shape': (2,), }", f32(1, 2)), ["npy.keys"])
put("npy_short_misaligned.npy", npy("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 3), }", bytes(8), align=16),
    ["npy.data_short", "npy.alignment"])

# Valid NEP 1 headers whose dtype has no tinygrad dtype: the loader refuses them, so they
# are findings (np.save writes these descrs for datetime64, object and structured arrays).
put("npy_datetime.npy", npy("{'descr': '<M8[ns]', 'fortran_order': "
                            "False, 'shape': (1,), }", bytes(8)), ["npy.unsupported"])
put("npy_object.npy", npy("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", bytes(8)), ["npy.unsupported"])
put("npy_structured.npy", npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", f32(1, 2)),
    ["npy.unsupported"])

# ---------------------------------------------------------------- zip: .npz and torch.save
def zip_of(members, method=zipfile.ZIP_STORED):
    import io
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", method) as z:
        for name, data in members:
            z.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), data)
    return bytearray(b.getvalue())

def patch_crc(z, name):
    """Flips the CRC of member `name` in its local header and its central entry."""
    n = name.encode()
    for sig, crc_at in ((b"PK\x03\x04", 14), (b"PK\x01\x02", 16)):
        i = 0
        while (i := z.find(sig, i)) >= 0:
            name_at = i + (30 if sig == b"PK\x03\x04" else 46)
            if z[name_at:name_at + len(n)] == n: z[i + crc_at] ^= 0xFF
            i += 4
    return z

def patch_method(z, name, method):
    n = name.encode()
    for sig, at, name_at in ((b"PK\x03\x04", 8, 30), (b"PK\x01\x02", 10, 46)):
        i = 0
        while (i := z.find(sig, i)) >= 0:
            if z[i + name_at:i + name_at + len(n)] == n: z[i + at:i + at + 2] = struct.pack("<H", method)
            i += 4
    return z

good_npy = npy(good, f32(1, 2))
put(
    "npz_crc_keys.npz",
    bytes(
        patch_crc(zip_of([("a.npy", good_npy), ("b.npy", npy("{'descr': '<f4', 'shape': (2,), }", f32(1, 2)))]),
                  "a.npy")), ["npz.crc", "npy.keys"])
put("npz_duplicate.npz", bytes(zip_of([("a.npy", good_npy), ("a.npy", good_npy)])), ["npz.duplicate_member"])
put("npz_member_warnings.npz",
    bytes(zip_of([("a.npy", npy(good, f32(1, 2) + b"zz", align=0)), ("b.npy", good_npy)], zipfile.ZIP_DEFLATED)),
    ["npy.alignment", "npy.trailing"])
# Members np.savez never writes: np.load lists them under their full names.
put("npz_member_name.npz", bytes(zip_of([("a.npy", good_npy), ("b.bin", good_npy), ("notes.txt", b"hello")])),
    ["npz.member_name"])
put("npz_method_short.npz", bytes(patch_method(zip_of([("a.npy", good_npy), ("b.npy", npy(good, f32(1)))]), "a.npy",
                                               6)), ["npz.method", "npy.data_short"])

def pkl(*ops): return b"".join(ops)
P2, STOP = b"\x80\x02", b"."
def g(mod, name): return b"c" + mod.encode() + b"\n" + name.encode() + b"\n"
def u(s): s = s.encode(); return b"\x8c" + bytes([len(s)]) + s

def pt(pickle, extra=(), top="archive"):
    return bytes(zip_of([(f"{top}/data.pkl", pickle), (f"{top}/version", b"3\n")] + list(extra)))

put("pt_globals.pt", pt(pkl(P2, b"}", g("os", "system"), u("id"), b"\x85R", b"0", g("builtins", "eval"), b"0", STOP)),
    ["pickle.global"])
bad_crc = patch_crc(bytearray(pt(pkl(P2, b"}", b"\xff", STOP), [("archive/data/0", bytes(8))])), "archive/data/0")
put("pt_opcode_crc.pt", bytes(bad_crc), ["pickle.opcode", "pytorch.crc"])
put("pt_no_stop_layout.pt", pt(pkl(P2, b"}"), [("other/data/0", bytes(4))]), ["pickle.no_stop", "pytorch.layout"])
put("pt_two_pickles_protocol.pt", pt(pkl(b"\x80\x06", b"}", STOP), [("archive/x/data.pkl", pkl(P2, b"}", STOP))]),
    ["pytorch.layout", "pickle.protocol"])
put("pt_stack_global_trailing.pt",
    pt(pkl(b"\x80\x04", u("subprocess"), b"\x94", u("check_output"), b"\x94", b"\x93", b"0", b"}", STOP, b"junk")),
    ["pickle.global", "pickle.trailing"])
# a real torch.save pickle (samples/state_dict.pt) whose storages are gone
here = os.path.dirname(os.path.abspath(__file__))
with zipfile.ZipFile(os.path.join(here, "..", "..", "samples", "state_dict.pt")) as z:
    real = [(n, z.read(n)) for n in z.namelist() if "/data/" not in n]
put("pt_missing_storage.pt", bytes(zip_of(real)), ["pytorch.loader"])

# ---------------------------------------------------------------- sharded index
shard = st({"c": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, f32(1))
put("index/model-1.safetensors", shard, None)
put("index/model.safetensors.index.json",
    json.dumps({"metadata": {}, "weight_map": {"a": "missing.safetensors", "b": "model-1.safetensors"}}).encode(),
    ["safetensors-index.missing_shard", "safetensors-index.unmapped"])
put("index_bad_shard/model-1.safetensors", st({"c": {
    "dtype": "F32",
    "shape": [2],
    "data_offsets": [0, 4]
}}, f32(1)), None)
put("index_bad_shard/model.safetensors.index.json",
    json.dumps({"weight_map": {"c": "model-1.safetensors", "d": "../escape.safetensors"}}).encode(),
    ["safetensors-index.shard_name", "safetensors.size"])

# A weight_map naming a tensor twice: JSON allows it, json.load keeps the last silently.
put("index_duplicate/model-1.safetensors", shard, None)
put("index_duplicate/model.safetensors.index.json",
    b'{"weight_map": {"c": "model-1.safetensors", "c": "model-1.safetensors"}}', ["safetensors-index.duplicate_key"])

with open(os.path.join(OUT, "manifest.json"), "w") as f: json.dump(manifest, f, indent=1)
print(f"{len(manifest)} broken files, {sum(len(v) for v in manifest.values())} planted faults in {OUT}")
