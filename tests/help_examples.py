#!/usr/bin/env python3
"""Every example of `tensor-inspect --help` runs, and says what its line says it does.

    /usr/bin/python3 tests/help_examples.py build/tensor-inspect

The examples are read from `--help` itself (the "Examples:" block), each run by bash (pipes,
`jq`, `OMP_NUM_THREADS=1`, `~`) in a folder of files under the names they use:
tests/doc_fixtures.py's llama-shaped checkpoint (`model.safetensors`, its `hf-model/` folder,
`x.npy`, `big.npy`) and, written here, `m.safetensors` (the same with a sparse bfloat16
`lm_head.weight` of 32000 x 4096), `model.gguf` and `b.gguf` (GGUF v3 by hand), `dump.bin`,
and copies of samples. `https://host/` is a local nginx and `hf://` reaches it through
TI_HF_ENDPOINT. Each example's check is the fact its line states (a value, a shape, an exit
status, a file written), computed here with NumPy or read off the line; an example this file
has no check for fails, so the help and its checks change together. Prints one line per
check and `N passed, M failed`.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np

import doc_fixtures
import tally
from tally import check
from nginx_server import servers

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "samples"))
from make_gguf_samples import FLT32, STRING, U32, gguf_string, gguf_value  # noqa: E402


def write_gguf(path, metadata, tensors):
    """GGUF v3, alignment 32: metadata (key, type, value), then float32 tensors (name, array)."""
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(metadata))
    for key, vtype, value in metadata:
        out += gguf_string(key) + struct.pack("<I", vtype) + gguf_value(vtype, value)
    data = b""
    for name, a in tensors:
        dims = list(reversed(a.shape))
        out += gguf_string(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims)
        out += struct.pack("<IQ", 0, len(data))  # type 0: F32
        data += a.astype("<f4").tobytes() + bytes(-a.nbytes % 32)
    out += bytes(-len(out) % 32)
    with open(path, "wb") as f:
        f.write(out + data)


def make_files(d):
    doc_fixtures.make(d, ROOT)
    x = np.load(os.path.join(d, "x.npy"))
    for name in ("weights.npy", "w.npy"):
        shutil.copy(os.path.join(d, "x.npy"), os.path.join(d, name))
    shutil.copytree(os.path.join(d, "my-model"), os.path.join(d, "hf-model"))
    shutil.copy(os.path.join(ROOT, "samples", "state_dict.pt"), os.path.join(d, "model.pt"))
    shutil.copy(os.path.join(d, "a.npz"), os.path.join(d, "x.npz"))
    np.arange(6, dtype="<f4").tofile(os.path.join(d, "dump.bin"))
    tensors = doc_fixtures.llama_tensors()
    # m.safetensors: the small tensors in bfloat16, then lm_head.weight (32000, 4096) as a hole.
    header, offset, blobs = {}, 0, []
    for n, a in tensors.items():
        if n != "lm_head.weight":
            blob = doc_fixtures.bf16_bytes(a)
            header[n] = {"dtype": "BF16", "shape": list(a.shape), "data_offsets": [offset, offset + len(blob)]}
            offset += len(blob)
            blobs.append(blob)
    header["lm_head.weight"] = {
        "dtype": "BF16",
        "shape": [32000, 4096],
        "data_offsets": [offset, offset + 2 * 32000 * 4096]
    }
    text = json.dumps(header).encode()
    with open(os.path.join(d, "m.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
        f.truncate(8 + len(text) + offset + 2 * 32000 * 4096)
    # a.safetensors and b.gguf: the same two tensors under transformers' and llama.cpp's names.
    emb, norm = tensors["model.embed_tokens.weight"], tensors["model.norm.weight"]
    doc_fixtures.write_safetensors(os.path.join(d, "a.safetensors"), {
        "model.embed_tokens.weight": ("F32", emb.shape, emb.astype("<f4").tobytes()),
        "model.norm.weight": ("F32", norm.shape, norm.astype("<f4").tobytes())})
    write_gguf(os.path.join(d, "b.gguf"), [], [("token_embd.weight", emb), ("output_norm.weight", norm)])
    q = tensors["model.layers.0.self_attn.q_proj.weight"]
    write_gguf(os.path.join(d, "model.gguf"), [("general.architecture", STRING, "llama"),
                                               ("llama.block_count", U32, 2), ("llama.rope.freq_base", FLT32, 10000.0)],
               [("blk.0.attn_q.weight", q), ("output_norm.weight", norm)])
    return x, tensors


def examples(binary):
    """(command, description) of each example in --help, in order."""
    text = subprocess.run([binary, "--help"], capture_output=True, text=True, check=True).stdout
    block = text.split("Examples:\n", 1)[1].split("\n\n", 1)[0]
    out = []
    for line in block.splitlines():
        if line.startswith("   "):  # a description that goes on under the one before
            out[-1][1] += " " + line.strip()
        else:
            parts = re.split(r"\s{2,}", line.strip(), maxsplit=1)
            out.append([parts[0], parts[1] if len(parts) > 1 else ""])
    return out


def tolist_is(want):
    """stdout's `tolist:` line is Python's repr of `want`."""
    return lambda r, d: f"tolist: {want!r}\n" in r.stdout


def jsonl(r):
    return [json.loads(line) for line in r.stdout.splitlines() if line.strip()]


def checks(x, tensors):
    """{example command: (expected exit status, check(result, folder) -> bool)}."""
    mlp = [n for n in tensors if re.fullmatch(r"model\.layers\.\d+\.mlp\..*", n)]  # in file order
    xx = x @ x.T
    return {
        "tensor-inspect '[[1, 2], [3, 4]]'":
            (0, lambda r, d: "format: i\n" in r.stdout and "shape: (2, 2)\n" in r.stdout),
        "tensor-inspect --dtype float16 '[0.1, 65520, -0.0]'": (0, tolist_is([0.0999755859375,
                                                                              float("inf"), -0.0])),
        "tensor-inspect '[1.5, True]' --json | jq .tolist": (0, lambda r, d: json.loads(r.stdout) == [1.5, 1.0]),
        "tensor-inspect weights.npy": (0, lambda r, d: "format: f\n" in r.stdout and "shape: (3, 4)\n" in r.stdout),
        "tensor-inspect model.safetensors":
            (0, lambda r, d: "model.norm.weight" in r.stdout and "tolist" not in r.stdout),
        "tensor-inspect model.safetensors --name model.norm.weight": (0, lambda r, d: "shape: (16,)\n" in r.stdout),
        "tensor-inspect model.safetensors --name 'model.layers.*.mlp.*' --header --jsonl | jq -c '{name, shape}'":
            (0,
             lambda r, d: [o["name"] for o in jsonl(r)] == mlp and all(list(o) == ["name", "shape"] for o in jsonl(r))),
        "tensor-inspect ./hf-model/ --list": (0, lambda r, d: all(n in r.stdout for n in tensors)),
        "tensor-inspect m.safetensors --name lm_head.weight --expect dtype=bfloat16 --expect shape=32000,4096":
            (0, lambda r, d: True),
        "tensor-inspect x.npy --assert '(x.abs() < 100).all()'": (0, lambda r, d: True),
        "tensor-inspect diff a.safetensors b.gguf --names hf-gguf --rtol 1e-3":
            (0, lambda r, d: "0 of 2 compared tensors differ" in r.stdout),
        "tensor-inspect model.gguf --meta":
            (0, lambda r, d: "general.architecture" in r.stdout and "llama" in r.stdout),
        "tensor-inspect x.npy -e 'x.T[0, ::-1] * 2'": (0, tolist_is((x.T[0, ::-1] * 2).tolist())),
        "tensor-inspect -e 'Tensor.arange(6).reshape(2, 3)'": (0, tolist_is(np.arange(6).reshape(2, 3).tolist())),
        "tensor-inspect x.npy -e 'x.isfinite().all(axis=1)'": (0, tolist_is(np.isfinite(x).all(axis=1).tolist())),
        "tensor-inspect w.npy -e 'x @ x.T'": (0, tolist_is(xx.tolist())),
        "OMP_NUM_THREADS=1 tensor-inspect x.npy -e 'x.sum()'": (0, tolist_is(float(x.sum(dtype=np.float64)))),
        "tensor-inspect '[1.0]' --view-as B --view-as i": (0, tolist_is([1065353216])),
        "tensor-inspect -vv x.npy -e 'x.sum()'": (0, lambda r, d: "info:" in r.stderr and "debug:" in r.stderr),
        "tensor-inspect dump.bin --raw float32 --shape 2,3": (0, tolist_is(np.arange(6.0).reshape(2, 3).tolist())),
        "tensor-inspect big.npy": (0, lambda r, d: "tolist: [0.0, 1.0, 2.0, ..., "
                                   "4997.0, 4998.0, 4999.0]\n" in r.stdout),
        "tensor-inspect big.npy "
        "--edgeitems 1 --threshold 10": (0, lambda r, d: "tolist: [0.0, ..., 4999.0]\n" in r.stdout),
        "tensor-inspect big.npy --json --threshold 1000":
            (0, lambda r, d: json.loads(r.stdout)["tolist"] == [0.0, 1.0, 2.0, "...", 4997.0, 4998.0, 4999.0]),
        "tensor-inspect big.npy --header": (0, lambda r, d: "nbytes: 20000\n" in r.stdout and "tolist" not in r.stdout),
        "cat x.npy | tensor-inspect -": (0, tolist_is(x.tolist())),
        "tensor-inspect model.pt --list --strict": (0, lambda r, d: "name" in r.stdout),
        # Quiet: no message when head closes the pipe first; the status is then SIGPIPE's (128 + 13), as
        # yes | head's, or 0 when all of it fitted in the pipe before head left.
        "tensor-inspect big.npy --full | head -c 300": ((0, 141), lambda r, d: len(r.stdout) == 300 and r.stderr == ""),
        "tensor-inspect -- -5": (0, tolist_is(-5)),
        "tensor-inspect model.safetensors --stats":
            (0, lambda r, d: all(k in r.stdout.splitlines()[0] for k in ("min", "max", "mean", "std", "absmax", "nan"))
            ),
        "tensor-inspect model.gguf --name "
        "blk.0.attn_q.weight --stats --hist=40": (0, lambda r, d: "histogram" in r.stdout),
        "tensor-inspect x.npy --plot h.png": (0, lambda r, d: png(os.path.join(d, "h.png"))),
        "tensor-inspect model.safetensors --fail-on nan,inf": (0, lambda r, d: True),
        "tensor-inspect m.safetensors --name 'model.layers.*.mlp.*' --stats --jsonl | jq -c '{name, mean}'":
            (0, lambda r, d: [o["name"] for o in jsonl(r)] == mlp and all("mean" in o for o in jsonl(r))),
        "tensor-inspect m.safetensors --all --plot 'h-{name}.png'":
            (0, lambda r, d: all(png(os.path.join(d, f"h-{n}.png")) for n in tensors)),
        "tensor-inspect validate model.safetensors x.npz": (0, lambda r, d: True),
        "tensor-inspect hash ./hf-model/ --json > m.json":
            (0, lambda r, d: json.load(open(os.path.join(d, "m.json")))["kind"] == "hash"),
        "tensor-inspect https://host/model.safetensors --list": (0, lambda r, d: all(n in r.stdout for n in tensors)),
        "tensor-inspect hf://org/model/model.safetensors --name lm_head.weight -e 'x[:2, :8]'":
            (0, lambda r, d: "shape: (2, 8)\n" in r.stdout),
        "tensor-inspect https://host/m.safetensors --stats --cache ~/.cache/ti":
            (0, lambda r, d: os.path.isdir(os.path.join(d, "home", ".cache", "ti")) and "lm_head.weight" in r.stdout),
        "tensor-inspect https://host/m.safetensors --list --timeout 5": (0, lambda r, d: "lm_head.weight" in r.stdout),
    }


def png(path):
    return os.path.isfile(path) and open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def main():
    binary = os.path.abspath(sys.argv[1])
    with servers("ti-help-") as (tmp, www, nginx, _):
        d = os.path.join(tmp, "run")
        os.mkdir(d)
        x, tensors = make_files(d)
        for name in ("model.safetensors", "m.safetensors"):
            os.link(os.path.join(d, name), os.path.join(www, name))
        bindir = os.path.join(tmp, "bin")
        os.mkdir(bindir)
        os.symlink(binary, os.path.join(bindir, "tensor-inspect"))
        os.mkdir(os.path.join(d, "home"))
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TI_", "HF_", "OMP_"))}
        env.update(PATH=bindir + os.pathsep + env["PATH"], HOME=os.path.join(d, "home"),
                   TI_HF_ENDPOINT=f"http://127.0.0.1:{nginx.port}/hf")
        table = checks(x, tensors)
        seen = examples(binary)
        check("--help has examples", len(seen) >= 30, f"{len(seen)} examples")
        for command, description in seen:
            if command not in table:
                check(f"an example with a check: {command}", False, "add its check to tests/help_examples.py")
                continue
            status, ok = table[command]
            run = command.replace("https://host/", f"http://127.0.0.1:{nginx.port}/files/")
            r = subprocess.run(["bash", "-o", "pipefail", "-c", run], cwd=d, env=env, capture_output=True,
                               text=True, timeout=120)
            good = r.returncode in (status if isinstance(status, tuple) else (status,)) and ok(r, d)
            check(f"{command}  ({description})", good, f"exit {r.returncode}; stdout {r.stdout[:300]!r}; "
                                                          f"stderr {r.stderr[:300]!r}")
        check("every check has its example", set(table) <= {c for c, _ in seen},
              f"{sorted(set(table) - {c for c, _ in seen})}")
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
