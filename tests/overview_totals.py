"""--list totals and --overview on a 32-layer llama-like model folder written here (tiny
shapes, two shards and an index, a config.json): the totals equal the sums NumPy makes of
the shapes, --overview groups each per-layer tensor into one row with x32 in natural order,
its facts are config.json's, and the parameter count equals the one the config implies
(computed here from the tensors written, not from the tool's formula).

Run: python3 tests/overview_totals.py build/tensor-inspect
"""
import glob, json, os, re, shutil, struct, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tally

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
tmp = tempfile.mkdtemp(prefix="ti-overview-")
folder = os.path.join(tmp, "tiny-llama")
os.mkdir(folder)

LAYERS, HIDDEN, HEADS, KV, HEAD_DIM, FF, VOCAB, CONTEXT = 32, 8, 2, 1, 4, 12, 40, 2048
config = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "num_hidden_layers": LAYERS,
    "hidden_size": HIDDEN,
    "num_attention_heads": HEADS,
    "num_key_value_heads": KV,
    "intermediate_size": FF,
    "vocab_size": VOCAB,
    "max_position_embeddings": CONTEXT,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16"
}
with open(os.path.join(folder, "config.json"), "w") as f: json.dump(config, f)

per_layer = {
    "input_layernorm.weight": (HIDDEN,),
    "self_attn.q_proj.weight": (HEADS * HEAD_DIM, HIDDEN),
    "self_attn.k_proj.weight": (KV * HEAD_DIM, HIDDEN),
    "self_attn.v_proj.weight": (KV * HEAD_DIM, HIDDEN),
    "self_attn.o_proj.weight": (HIDDEN, HEADS * HEAD_DIM),
    "post_attention_layernorm.weight": (HIDDEN,),
    "mlp.gate_proj.weight": (FF, HIDDEN),
    "mlp.up_proj.weight": (FF, HIDDEN),
    "mlp.down_proj.weight": (HIDDEN, FF)
}
tensors = {"model.embed_tokens.weight": (VOCAB, HIDDEN)}
for i in range(LAYERS):
  for k, shape in per_layer.items(): tensors[f"model.layers.{i}.{k}"] = shape
tensors["model.norm.weight"] = (HIDDEN,)
tensors["lm_head.weight"] = (VOCAB, HIDDEN)


def numel(shape):
  n = 1
  for d in shape: n *= d
  return n


def write_shard(path, names):
  header, at = {}, 0
  for n in names:
    size = 2 * numel(tensors[n])
    header[n] = {"dtype": "BF16", "shape": list(tensors[n]), "data_offsets": [at, at + size]}
    at += size
  h = json.dumps(header).encode()
  with open(path, "wb") as f: f.write(struct.pack("<Q", len(h)) + h + bytes(at))


names = list(tensors)
half = len(names) // 2
shards = {"model-00001-of-00002.safetensors": names[:half], "model-00002-of-00002.safetensors": names[half:]}
for shard, ns in shards.items(): write_shard(os.path.join(folder, shard), ns)
with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
  json.dump({"metadata": {}, "weight_map": {n: s for s, ns in shards.items() for n in ns}}, f)

params = sum(numel(s) for s in tensors.values())
# What the config implies, counted from the config's own numbers (llama: embeddings and an
# untied head, per layer q k v o, gate up down, two norms; a final norm).
implied = 2 * VOCAB * HIDDEN + HIDDEN + LAYERS * (HIDDEN * HEADS * HEAD_DIM * 2 + 2 * HIDDEN * KV * HEAD_DIM +
                                                  3 * HIDDEN * FF + 2 * HIDDEN)


def run(args):
  p = subprocess.run([BIN] + args, capture_output=True, text=True)
  return p.returncode, p.stdout, p.stderr


def validate(doc, sid):
  import jsonschema
  schemas = {}
  for path in glob.glob(os.path.join(ROOT, "schemas", "*.schema.json")):
    with open(path) as f: s = json.load(f)
    schemas[s["$id"]] = s
  resolver = jsonschema.RefResolver(base_uri=sid, referrer=schemas[sid], store=dict(schemas))
  jsonschema.Draft202012Validator(schemas[sid], resolver=resolver).validate(doc)


tally.check("the folder written: 291 tensors, the config's count", len(tensors) == 291 and implied == params,
            f"{len(tensors)} {implied} {params}")
rc, out, err = run([folder, "--list", "--json"])
try:
  listing = json.loads(out)
  validate(listing, "listing.schema.json")
  t = listing["totals"]
except Exception as e:  # noqa: BLE001 - a failed check
  t = repr(e)
tally.check(
    "--list --json: totals of 291 tensors, the parameters NumPy sums, 2 bytes each as bfloat16 (schema'd)", t == {
        "tensors": 291,
        "parameters": params,
        "nbytes": 2 * params,
        "unknown": 0,
        "by_type": [{
            "type": "bfloat16",
            "tensors": 291,
            "parameters": params,
            "nbytes": 2 * params
        }]
    }, f"{rc} {t} {err!r}")
rc, out, err = run([folder, "--list"])
last = out.splitlines()[-1] if out else ""
tally.check("--list ends with the totals line", rc == 0 and last.startswith(f"{params:,} parameters, ") and
            "bfloat16" in last and "(291 tensors)" in last, repr(last))

rc, out, err = run([folder, "--overview"])
lines = out.splitlines()
tally.check(
    "--overview: the config's facts first", rc == 0 and lines[:1] == [
        f"llama (config.json): {LAYERS} layers, hidden "
        f"{HIDDEN}, {HEADS} heads ({KV} kv), vocab {VOCAB}, "
        f"context {CONTEXT}, feed-forward {FF}"
    ], f"{rc} {lines[:2]} {err!r}")
tally.check(
    "--overview: the parameter count, equal to what config.json implies",
    len(lines) > 1 and lines[1].startswith(f"{params:,} parameters (config.json "
                                           f"implies {implied:,}: equal)"), repr(lines[1:2]))
rows = [re.split(r"\s{2,}", l) for l in lines[2:]]
want = [["lm_head.weight", "bfloat16", f"({VOCAB}, {HIDDEN})"],
        ["model.embed_tokens.weight", "bfloat16", f"({VOCAB}, {HIDDEN})"]]
want += [[f"model.layers.{{0..31}}.{k}", "bfloat16", repr(tuple(s)), "\u00d732"] for k, s in sorted(per_layer.items())]
want += [["model.norm.weight", "bfloat16", f"({HIDDEN},)"]]
tally.check("--overview: one row per repeated tensor with x32, in natural order", rows == want,
            "\n".join("  ".join(r) for r in rows))
rc, out, err = run([folder, "--overview", "--json"])
try:
  ov = json.loads(out)
  validate(ov, "overview.schema.json")
  a = ov["architecture"]
  ok = (a["layers"], a["hidden_size"], a["heads"], a["kv_heads"], a["vocab_size"], a["context_length"], a["name"]) == \
       (LAYERS, HIDDEN, HEADS, KV, VOCAB, CONTEXT, "llama") and ov["implied_parameters"] == implied and \
       [(g["name"], g["count"]) for g in ov["groups"]] == [(w[0], 32 if len(w) > 3 else 1) for w in want] and \
       ov["totals"]["parameters"] == params
except Exception as e:  # noqa: BLE001
  ok, ov = False, repr(e)
tally.check("--overview --json: the same facts, groups and counts (schema'd)", ok, str(ov)[:400])

# Natural order of indices and a layer that differs: layers 0..11 of another model where
# layer 2's weight has another shape, and one index that is no run.
odd = os.path.join(tmp, "odd.safetensors")
tensors = {f"h.{i}.w": ((3, 2) if i == 2 else (2, 2)) for i in range(12)}
tensors.update({"e.0.w": (1,), "e.3.w": (1,), "e.7.w": (1,)})
write_shard(odd, list(tensors))
rc, out, err = run([odd, "--overview"])
rows = [re.split(r"\s{2,}", l) for l in out.splitlines()[1:]]
tally.check("--overview: indices {0,3,7}; layer 2's other shape a row of its own, before {0..11}'s others",
            rows == [["e.{0,3,7}.w", "bfloat16", "(1,)", "\u00d73"], ["h.2.w", "bfloat16", "(3, 2)"],
                     ["h.{0,1,3,...,11}.w", "bfloat16", "(2, 2)", "\u00d711"]],
            "\n".join("  ".join(r) for r in rows) + err)
rc, out, err = run([os.path.join(ROOT, "samples", "quants.gguf"), "--list", "--json"])
try:
  t = json.loads(out)["totals"]
  ok = t["tensors"] == len(json.loads(out)["tensors"]) and sum(x["nbytes"] for x in t["by_type"]) == t["nbytes"] == \
       sum(e["nbytes"] for e in json.loads(out)["tensors"])
except Exception as e:  # noqa: BLE001
  ok, t = False, repr(e)
tally.check("GGUF totals: stored bytes by quantization type add up to the listing's", ok, str(t)[:300])
# A GGUF file written here (gguf.md: magic, version 3, counts, key/values, tensor infos with
# ne innermost first, data aligned to 32): llama metadata, 2 blocks, untied output.
def gguf_str(x):
  b = x.encode()
  return struct.pack("<Q", len(b)) + b


def gguf_kv(key, vtype, payload):
  return gguf_str(key) + struct.pack("<I", vtype) + payload


L = 2
kvs = [
    gguf_kv("general.architecture", 8, gguf_str("llama")),
    gguf_kv("llama.block_count", 4, struct.pack("<I", L)),
    gguf_kv("llama.embedding_length", 4, struct.pack("<I", HIDDEN)),
    gguf_kv("llama.attention.head_count", 4, struct.pack("<I", HEADS)),
    gguf_kv("llama.attention.head_count_kv", 4, struct.pack("<I", KV)),
    gguf_kv("llama.context_length", 4, struct.pack("<I", 64)),
    gguf_kv("llama.feed_forward_length", 4, struct.pack("<I", FF)),
    gguf_kv("tokenizer.ggml.tokens", 9,
            struct.pack("<IQ", 8, VOCAB) + b"".join(gguf_str(f"t{i}") for i in range(VOCAB)))
]
gt = {"token_embd.weight": (VOCAB, HIDDEN)}
for i in range(L):
  gt.update({
      f"blk.{i}.attn_norm.weight": (HIDDEN,),
      f"blk.{i}.attn_q.weight": (HEADS * HEAD_DIM, HIDDEN),
      f"blk.{i}.attn_k.weight": (KV * HEAD_DIM, HIDDEN),
      f"blk.{i}.attn_v.weight": (KV * HEAD_DIM, HIDDEN),
      f"blk.{i}.attn_output.weight": (HIDDEN, HEADS * HEAD_DIM),
      f"blk.{i}.ffn_norm.weight": (HIDDEN,),
      f"blk.{i}.ffn_gate.weight": (FF, HIDDEN),
      f"blk.{i}.ffn_up.weight": (FF, HIDDEN),
      f"blk.{i}.ffn_down.weight": (HIDDEN, FF)
  })
gt.update({"output_norm.weight": (HIDDEN,), "output.weight": (VOCAB, HIDDEN)})
infos, data = b"", b""
for name, shape in gt.items():
  infos += gguf_str(name) + struct.pack("<I", len(shape)) + b"".join(struct.pack("<Q", d) for d in reversed(shape))
  infos += struct.pack("<IQ", 0, len(data))  # F32
  data += bytes(4 * numel(shape))
  data += bytes(-len(data) % 32)
head = b"GGUF" + struct.pack("<IQQ", 3, len(gt), len(kvs)) + b"".join(kvs) + infos
gguf = os.path.join(tmp, "tiny.gguf")
with open(gguf, "wb") as f: f.write(head + bytes(-len(head) % 32) + data)
g_params = sum(numel(s) for s in gt.values())
g_implied = 2 * VOCAB * HIDDEN + HIDDEN + L * (HIDDEN * HEADS * HEAD_DIM * 2 + 2 * HIDDEN * KV * HEAD_DIM +
                                               3 * HIDDEN * FF + 2 * HIDDEN)
rc, out, err = run([gguf, "--overview"])
lines = out.splitlines()
tally.check(
    "GGUF --overview: the metadata's facts (vocab: the tokenizer's 40 tokens) and the implied count, equal", rc == 0 and
    lines[:1] == [
        f"llama (gguf): {L} layers, hidden {HIDDEN}, {HEADS} "
        f"heads ({KV} kv), vocab {VOCAB}, context 64, "
        f"feed-forward {FF}"
    ] and g_implied == g_params and
    lines[1].startswith(f"{g_params:,} parameters (gguf implies {g_implied:,}: equal)") and
    ["blk.{0..1}.ffn_down.weight", "float32", f"({HIDDEN}, {FF})", "\u00d72"
    ] in [re.split(r"\s{2,}", l) for l in lines], f"{rc} {out!r} {err!r}")

rc, out, err = run([folder, "--overview", "--list"])
tally.check("--overview with --list: "
            "a usage error naming both", rc == 2 and "--overview" in err and "--list" in err and not out, err)

shutil.rmtree(tmp)
sys.exit(tally.summary())
