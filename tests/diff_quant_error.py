#!/usr/bin/python3
"""`diff`'s quantization error (NMSE, SQNR, parameter-weighted totals), `--tolerance torch`
and `--names hf-gguf`, against NumPy.

    /usr/bin/python3 tests/diff_quant_error.py path/to/tensor-inspect

- An original float32 model against its FP8-block and GPTQ versions, written the way their
  producers write them (tests/quant_writers.py): per tensor NMSE = sum((a-b)^2)/sum(a^2) and
  SQNR = 10 log10(sum(a^2)/sum((a-b)^2)) with a the original, and the summary's totals of
  both sums over all pairs, equal NumPy's in float64 (relative 1e-9); b is the producer's
  dequantization formula re-written in NumPy, not the tool's values.
- A tiny llama-shaped Hugging Face folder against a GGUF written as llama.cpp's
  convert_hf_to_gguf.py writes it (its names, and LlamaModel.permute of q_proj/k_proj done
  here in NumPy): `--names hf-gguf` pairs every tensor, F32 copies report zero error; the
  same GGUF with q/k left unpermuted differs (the undo is what makes them equal), and one
  without head counts says the q/k pairs are not comparable.
- `--tolerance torch`: torch/testing/_comparison.py's _DTYPE_PRECISIONS (rtol, atol) for the
  looser dtype of each pair, just inside and just outside |a - b| <= atol + rtol * |b|.
Closes with `N passed, M failed`.
"""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import quant_writers as qw  # noqa: E402
import tally  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
try:
    import jsonschema
    SCHEMA = json.load(open(os.path.join(HERE, "..", "schemas", "diff.schema.json")))
except ImportError:
    jsonschema = None


def diff(*args):
    p = subprocess.run([BIN, "diff", *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def diff_json(what, *args, code):
    rc, out, err = diff(*args, "--json")
    tally.check(f"{what}: exit {code}", rc == code, f"got {rc}; {err.strip()}")
    if rc not in (0, 1):
        return None
    doc = json.loads(out)
    if jsonschema is not None:
        try:
            jsonschema.validate(doc, SCHEMA)
        except jsonschema.ValidationError as e:
            tally.check(f"{what}: schema", False, e.message)
    return doc


def close(got, want, rel=1e-9):
    if isinstance(got, str) or got is None:
        return False
    return math.isclose(got, want, rel_tol=rel, abs_tol=0.0)


def f32(x):
    return np.asarray(x, dtype="<f4")


def st(tensors):
    """{name: float32 array} as safetensors F32 entries."""
    return {n: ("F32", a.shape, f32(a).tobytes()) for n, a in tensors.items()}


rng = np.random.default_rng(22)
with tempfile.TemporaryDirectory() as tmp:
    P = lambda *p: os.path.join(tmp, *p)  # noqa: E731

    # ---- NMSE and SQNR: an original against its FP8-block version (a lone file) ----
    q_orig = (rng.standard_normal((256, 256)) * 0.02).astype(np.float32)
    down_orig = (rng.standard_normal((128, 256)) * 0.05).astype(np.float32)
    norm = (1 + rng.standard_normal(256) * 0.1).astype(np.float32)
    qw.write_safetensors(P("orig.safetensors"), st({"model.layers.0.self_attn.q_proj.weight": q_orig,
                                                    "model.layers.0.mlp.down_proj.weight": down_orig,
                                                    "model.norm.weight": norm}))
    codes_q, sinv_q, raw_q = qw.fp8_block_quantize(q_orig)
    codes_d, sinv_d, raw_d = qw.fp8_block_quantize(down_orig)
    deq = {"model.layers.0.self_attn.q_proj.weight": qw.fp8_block_dequant(codes_q, sinv_q),
           "model.layers.0.mlp.down_proj.weight": qw.fp8_block_dequant(codes_d, sinv_d), "model.norm.weight": norm}
    qw.write_safetensors(P("fp8.safetensors"), {
        "model.layers.0.self_attn.q_proj.weight": ("F8_E4M3", codes_q.shape, codes_q.tobytes()),
        "model.layers.0.self_attn.q_proj.weight_scale_inv": ("F32", sinv_q.shape, raw_q),
        "model.layers.0.mlp.down_proj.weight": ("F8_E4M3", codes_d.shape, codes_d.tobytes()),
        "model.layers.0.mlp.down_proj.weight_scale_inv": ("F32", sinv_d.shape, raw_d),
        "model.norm.weight": ("F32", norm.shape, f32(norm).tobytes())})
    orig = {"model.layers.0.self_attn.q_proj.weight": q_orig, "model.layers.0.mlp.down_proj.weight": down_orig,
            "model.norm.weight": norm}
    doc = diff_json("fp8 against its original", P("orig.safetensors"), P("fp8.safetensors"), code=1)
    if doc:
        rows = {t["name_a"]: t for t in doc["tensors"]}
        tot_a = tot_d = 0.0
        for name, a in orig.items():
            a64, b64 = a.astype(np.float64), deq[name].astype(np.float64)
            sa, sd = float(np.sum(a64 * a64)), float(np.sum((a64 - b64) ** 2))
            tot_a, tot_d = tot_a + sa, tot_d + sd
            r = rows.get(name, {})
            if sd == 0:
                tally.check(f"fp8: {name} copy: NMSE 0, SQNR inf", r.get("nmse") == 0 and r.get("sqnr_db") == "inf", r)
                continue
            tally.check(f"fp8: {name} NMSE = NumPy", close(r.get("nmse"), sd / sa), f"{r.get('nmse')} != {sd / sa}")
            tally.check(f"fp8: {name} SQNR = NumPy", close(r.get("sqnr_db"), 10 * math.log10(sa / sd)),
                        f"{r.get('sqnr_db')} != {10 * math.log10(sa / sd)}")
            tally.check(f"fp8: {name} sums = NumPy",
                        close(r.get("sum_sq_a"), sa) and close(r.get("sum_sq_diff"), sd), r)
        s = doc["summary"]
        tally.check("fp8: total NMSE = sum of (a-b)^2 over sum of a^2", close(s.get("nmse"), tot_d / tot_a), s)
        tally.check("fp8: total SQNR = NumPy", close(s.get("sqnr_db"), 10 * math.log10(tot_a / tot_d)), s)
        tally.check("fp8: parameters counted", s.get("parameters") == sum(a.size for a in orig.values()), s)
    rc, out, err = diff(P("orig.safetensors"), P("fp8.safetensors"))
    want = f"NMSE {tot_d / tot_a:.6g}, SQNR {10 * math.log10(tot_a / tot_d):.6g} dB"
    tally.check("fp8: the text report's counts line ends with the model's NMSE and SQNR",
                rc == 1 and want in out.splitlines()[-1],
                f"{out.splitlines()[-1:]!r} wants {want!r}")
    rc2, out2, _ = diff(P("orig.safetensors"), P("fp8.safetensors"), "--json")
    os.environ["OMP_NUM_THREADS"] = "1"
    rc1, out1, _ = diff(P("orig.safetensors"), P("fp8.safetensors"), "--json")
    del os.environ["OMP_NUM_THREADS"]
    tally.check("fp8: the figures are the same on one thread", out1 == out2 and rc1 == rc2)

    # ---- GPTQ 4-bit folder (config.json) against an original near it ----
    os.mkdir(P("gptq"))
    inn, out_f, gs = 128, 64, 32
    g_idx = np.arange(inn) // gs
    intweight = rng.integers(0, 16, size=(inn, out_f))
    zeros = rng.integers(1, 16, size=(inn // gs, out_f))
    scales = (rng.random((inn // gs, out_f)) * 0.01 + 0.001).astype(np.float32)
    qweight, qzeros, sc = qw.gptq_pack(intweight, zeros, scales, 4)
    p = "model.layers.0.mlp.up_proj"
    qw.write_safetensors(P("gptq", "model.safetensors"), {
        p + ".g_idx": ("I32", (inn,), g_idx.astype("<i4").tobytes()),
        p + ".qweight": ("I32", qweight.shape, qweight.tobytes()),
        p + ".qzeros": ("I32", qzeros.shape, qzeros.tobytes()), p + ".scales": ("F16", sc.shape, sc.tobytes())})
    qw.write_config(P("gptq"), {"quant_method": "gptq", "bits": 4, "group_size": gs, "desc_act": False, "sym": False})
    b = qw.gptq_dequant(qweight, qzeros, sc, g_idx, 4)
    a = (b + rng.standard_normal(b.shape) * 0.002).astype(np.float32)
    qw.write_safetensors(P("gptq_orig.safetensors"), st({p + ".weight": a}))
    doc = diff_json("gptq against its original", P("gptq_orig.safetensors"), P("gptq"), code=1)
    if doc:
        r = doc["tensors"][0]
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        sa, sd = float(np.sum(a64 ** 2)), float(np.sum((a64 - b64) ** 2))
        tally.check("gptq: NMSE = NumPy", close(r.get("nmse"), sd / sa), f"{r.get('nmse')} != {sd / sa}")
        tally.check("gptq: SQNR = NumPy", close(r.get("sqnr_db"), 10 * math.log10(sa / sd)), r.get("sqnr_db"))
        tally.check("gptq: one pair: the summary is the tensor's",
                    close(doc["summary"].get("sqnr_db"), 10 * math.log10(sa / sd)))
    # The dtype a logical tensor counts as for torch's table: GPTQ float16, FP8 bfloat16 (the loosest of the pair wins).
    doc = diff_json("--tolerance torch on a gptq pair", P("gptq_orig.safetensors"), P("gptq"),
                    "--tolerance", "torch", code=1)
    if doc:
        tally.check("gptq counts as float16: rtol 0.001, atol 1e-5",
                    doc["tensors"][0].get("rtol") == 0.001 and doc["tensors"][0].get("atol") == 1e-5, doc["tensors"][0])
    doc = diff_json("--tolerance torch on fp8", P("orig.safetensors"), P("fp8.safetensors"),
                    "--tolerance", "torch", code=1)
    if doc:
        rows = {t["name_a"]: t for t in doc["tensors"]}
        tally.check("fp8 counts as bfloat16: rtol 0.016; a float32 copy 1.3e-6",
                    rows["model.layers.0.mlp.down_proj.weight"].get("rtol") == 0.016 and
                    rows["model.norm.weight"].get("rtol") == 1.3e-6, doc["tensors"])

    # ---- --tolerance torch at the boundary: |a - b| <= atol + rtol * |b| (b the reference) ----
    # torch/testing/_comparison.py _DTYPE_PRECISIONS: float16 (0.001, 1e-5), bfloat16 (0.016, 1e-5),
    # float32 (1.3e-6, 1e-5), float64 (1e-7, 1e-7); a pair takes the loosest of its two dtypes.
    table = {"F16": (0.001, 1e-5), "BF16": (0.016, 1e-5), "F32": (1.3e-6, 1e-5), "F64": (1e-7, 1e-7)}
    ref = np.array([1.0, -2.0, 0.5, 4.0])  # exact in every dtype here
    for tag, (rtol, atol) in table.items():
        raw = {"F16": ref.astype("<f2"), "BF16": None, "F32": ref.astype("<f4"), "F64": ref.astype("<f8")}[tag]
        raw = qw.bf16_bytes(ref.astype(np.float32)) if tag == "BF16" else raw.tobytes()
        qw.write_safetensors(P(f"ref_{tag}.safetensors"), {"w": (tag, ref.shape, raw)})
        for side, factor, code in (("inside", 0.999, 0), ("outside", 1.001, 1)):
            a = ref.copy()
            a[2] = ref[2] + factor * (atol + rtol * abs(ref[2]))  # float64 on A's side: B's dtype is the looser
            ok = abs(a[2] - ref[2]) <= atol + rtol * abs(ref[2])
            tally.check(f"torch {tag}: the NumPy rule puts {side} where meant", ok == (code == 0))
            qw.write_safetensors(P("a64.safetensors"), {"w": ("F64", a.shape, a.astype("<f8").tobytes())})
            rc, out, err = diff(P("a64.safetensors"), P(f"ref_{tag}.safetensors"),
                                "--tolerance", "torch", "--ignore-dtype")
            tally.check(f"--tolerance torch, float64 vs {tag}: just {side} passes={code == 0}",
                        rc == code, f"{rc} {out} {err}")
    rc, out, err = diff(P("a64.safetensors"), P("ref_F32.safetensors"), "--tolerance", "torch", "--rtol", "1")
    tally.check("--tolerance torch with --rtol: exit 2, naming both",
                rc == 2 and "--rtol" in err and "--tolerance" in err, err)

    # ---- --names hf-gguf: a tiny llama HF folder against the GGUF its converter would write ----
    hidden, n_head, n_kv, ffn, vocab, layers = 32, 4, 2, 64, 10, 2
    head_dim = hidden // n_head
    hf = {"model.embed_tokens.weight": (vocab, hidden), "model.norm.weight": (hidden,),
          "lm_head.weight": (vocab, hidden)}
    for i in range(layers):
        L = f"model.layers.{i}."
        hf.update({L + "input_layernorm.weight": (hidden,), L + "self_attn.q_proj.weight": (n_head * head_dim, hidden),
                   L + "self_attn.k_proj.weight": (n_kv * head_dim, hidden),
                   L + "self_attn.v_proj.weight": (n_kv * head_dim, hidden),
                   L + "self_attn.o_proj.weight": (hidden, n_head * head_dim),
                   L + "post_attention_layernorm.weight": (hidden,),
                   L + "mlp.gate_proj.weight": (ffn, hidden), L + "mlp.up_proj.weight": (ffn, hidden),
                   L + "mlp.down_proj.weight": (hidden, ffn)})
    hf = {n: rng.standard_normal(s).astype(np.float32) for n, s in hf.items()}
    os.mkdir(P("hf"))
    qw.write_safetensors(P("hf", "model.safetensors"), st(hf))
    json.dump({"architectures": ["LlamaForCausalLM"], "hidden_size": hidden, "num_attention_heads": n_head,
               "num_key_value_heads": n_kv, "torch_dtype": "float32"}, open(P("hf", "config.json"), "w"))

    # gguf-py/gguf/tensor_mapping.py (MODEL_ARCH.LLAMA) and constants.py TENSOR_NAMES, written out by hand.
    top = {"model.embed_tokens.weight": "token_embd.weight", "model.norm.weight": "output_norm.weight",
           "lm_head.weight": "output.weight"}
    per_layer = {"input_layernorm": "attn_norm", "self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k",
                 "self_attn.v_proj": "attn_v", "self_attn.o_proj": "attn_output",
                 "post_attention_layernorm": "ffn_norm",
                 "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up", "mlp.down_proj": "ffn_down"}

    def gguf_name(n):
        if n in top:
            return top[n]
        parts = n.split(".")
        return f"blk.{parts[2]}.{per_layer['.'.join(parts[3:-1])]}.weight"

    def permute(w, nh, nkv):  # convert_hf_to_gguf.py LlamaModel.permute, in NumPy
        if nkv is not None and nh != nkv:
            nh = nkv
        return w.reshape(nh, 2, w.shape[0] // nh // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)

    def gstr(s):
        b = s.encode()
        return struct.pack("<Q", len(b)) + b

    def write_gguf(path, tensors, kv):
        """GGUF v3 (ggml/docs/gguf.md): header, metadata (u32 = type 4, string = type 8), tensor infos with
        dims innermost first, data aligned to 32. tensors: (name, float32 array) stored as F32 (type 0)."""
        out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kv))
        for k, v in kv.items():
            out += gstr(k) + (struct.pack("<I", 8) + gstr(v) if isinstance(v, str) else struct.pack("<II", 4, v))
        data = b""
        for name, arr, *typed in tensors:  # typed: (ggml type id, raw blocks) of a quantized tensor
            tid, raw = typed[0] if typed else (0, f32(arr).tobytes())
            dims = list(reversed(arr.shape))
            out += gstr(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
            out += struct.pack("<IQ", tid, len(data))
            data += raw + bytes(-len(raw) % 32)
        out += bytes(-len(out) % 32)
        open(path, "wb").write(out + data)

    def converted(permuted=True):
        out = []
        for n, w in hf.items():
            if permuted and n.endswith("q_proj.weight"):
                w = permute(w, n_head, n_head)
            if permuted and n.endswith("k_proj.weight"):
                w = permute(w, n_head, n_kv)
            out.append((gguf_name(n), w))
        return out

    meta = {"general.architecture": "llama", "llama.attention.head_count": n_head,
            "llama.attention.head_count_kv": n_kv}
    write_gguf(P("model.gguf"), converted(), meta)
    tally.check("the converter's permutation moves q's rows (else the test could not fail)",
                not np.array_equal(permute(hf["model.layers.0.self_attn.q_proj.weight"], n_head, n_head),
                                   hf["model.layers.0.self_attn.q_proj.weight"]))
    doc = diff_json("hf-gguf: F32 copies", P("hf"), P("model.gguf"), "--names", "hf-gguf", code=0)
    if doc:
        s = doc["summary"]
        tally.check("hf-gguf: every tensor paired, all same", s["compared"] == len(hf) == s["same"] and
                    s["only_in_a"] == 0 and s["only_in_b"] == 0, s)
        tally.check("hf-gguf: pairs named as the converter names them",
                    all(t["name_b"] == gguf_name(t["name_a"]) for t in doc["tensors"]), doc["tensors"][:2])
        tally.check("hf-gguf: zero error everywhere",
                    all(t["nmse"] == 0 and t["max_abs"] == 0 for t in doc["tensors"]) and s["nmse"] == 0, s)
    write_gguf(P("unpermuted.gguf"), converted(permuted=False), meta)
    doc = diff_json("hf-gguf: q/k stored without the permutation", P("hf"), P("unpermuted.gguf"),
                    "--names", "hf-gguf", code=1)
    if doc:
        bad = sorted(t["name_a"] for t in doc["tensors"] if t["status"] != "same")
        tally.check("hf-gguf: an unpermuted GGUF differs in exactly q and k",
                    bad == sorted(n for n in hf if n.endswith(("q_proj.weight", "k_proj.weight"))), bad)
    # A quantized-like GGUF: one tensor perturbed, its NMSE equal to NumPy's in HF order.
    tensors = converted()
    k = [i for i, (n, _) in enumerate(tensors) if n == "blk.1.attn_k.weight"][0]
    noisy = tensors[k][1] + rng.standard_normal(tensors[k][1].shape).astype(np.float32) * 0.01
    tensors[k] = (tensors[k][0], noisy.astype(np.float32))
    write_gguf(P("noisy.gguf"), tensors, meta)
    doc = diff_json("hf-gguf: a perturbed k", P("hf"), P("noisy.gguf"), "--names", "hf-gguf", code=1)
    if doc:
        r = {t["name_a"]: t for t in doc["tensors"]}["model.layers.1.self_attn.k_proj.weight"]
        a64 = hf["model.layers.1.self_attn.k_proj.weight"].astype(np.float64)
        unperm = noisy.reshape(n_kv, head_dim // 2, 2, hidden).swapaxes(1, 2).reshape(a64.shape).astype(np.float64)
        tally.check("hf-gguf: undoing the permutation in NumPy gives the original back",
                    np.array_equal(permute(unperm, n_head, n_kv).astype(np.float32), noisy))
        sd, sa = float(np.sum((a64 - unperm) ** 2)), float(np.sum(a64 ** 2))
        tally.check("hf-gguf: perturbed k's NMSE = NumPy",
                    close(r.get("nmse"), sd / sa), f"{r.get('nmse')} != {sd / sa}")
        first = np.argwhere(np.abs(a64 - unperm) > 1e-5 + 1e-5 * np.abs(unperm))[0].tolist()
        tally.check("hf-gguf: first mismatch in A's (HF) order",
                    r.get("first_mismatch") == first, f"{r.get('first_mismatch')} {first}")
    # A Q8_0 GGUF (ggml's quantize_row_q8_0: per 32 values d = amax / 127 as float16, q = round(x / d)), its
    # permuted q dequantized by the tool, unpermuted, against the original: NMSE equal to NumPy's.
    def q8_0(x):
        raw, deq = b"", []
        for blk in x.reshape(-1, 32):
            d = np.float32(np.abs(blk).max() / 127)
            q = np.round(blk / d if d else blk * 0).astype(np.int8)
            raw += np.float16(d).tobytes() + q.tobytes()
            deq.append(q.astype(np.float32) * np.float32(np.float16(d)))
        return raw, np.concatenate(deq).reshape(x.shape)

    tensors = converted()
    k = [i for i, (n, _) in enumerate(tensors) if n == "blk.0.attn_q.weight"][0]
    raw8, deq8 = q8_0(tensors[k][1])
    tensors[k] = (tensors[k][0], tensors[k][1], (8, raw8))
    write_gguf(P("q8.gguf"), tensors, meta)
    doc = diff_json("hf-gguf: a Q8_0 attn_q", P("hf"), P("q8.gguf"), "--names", "hf-gguf", code=1)
    if doc:
        r = {t["name_a"]: t for t in doc["tensors"]}["model.layers.0.self_attn.q_proj.weight"]
        a64 = hf["model.layers.0.self_attn.q_proj.weight"].astype(np.float64)
        b64 = deq8.reshape(n_head, head_dim // 2, 2, hidden).swapaxes(1, 2).reshape(a64.shape).astype(np.float64)
        sd, sa = float(np.sum((a64 - b64) ** 2)), float(np.sum(a64 ** 2))
        tally.check("hf-gguf: Q8_0 q's NMSE = NumPy", close(r.get("nmse"), sd / sa), f"{r.get('nmse')} != {sd / sa}")
        tally.check("hf-gguf: Q8_0 q's max_abs = NumPy", close(r.get("max_abs"), float(np.abs(a64 - b64).max())), r)
        tally.check("hf-gguf: only the Q8_0 pair differs", doc["summary"]["differs"] == 1 and
                    doc["summary"]["same"] == len(hf) - 1, doc["summary"])
    write_gguf(P("noheads.gguf"), converted(), {"general.architecture": "llama"})
    doc = diff_json("hf-gguf: a GGUF without head counts", P("hf"), P("noheads.gguf"), "--names", "hf-gguf", code=1)
    if doc:
        nc = [t for t in doc["tensors"] if t["status"] == "not_comparable"]
        tally.check("hf-gguf: without head counts q and k are not comparable, saying why",
                    len(nc) == 2 * layers and all("LlamaModel.permute" in t["note"] for t in nc), nc[:1])
    rc, out, err = diff(P("model.gguf"), P("hf"), "--names", "hf-gguf")
    tally.check("hf-gguf: the GGUF given first is exit 2, naming the order", rc == 2 and "must be the GGUF" in err, err)

sys.exit(tally.summary())
