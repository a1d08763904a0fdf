#!/usr/bin/python3
"""tensor-inspect side by side with what a user would otherwise run, in one run.

    /usr/bin/python3 bench/run.py build/tensor-inspect [--pairs N] [--quick] [--keep DIR]

The cases are those of issue 10 (and ../shared/bench's harness): printing the tolist()
of float32 (1e6, 1e7), float16, big-endian float32 and int64 (1e6) .npy files as text and
as JSON against NumPy (`np.load` + `print(arr.tolist())` / `json.dumps`), tinygrad's own
`Tensor(...).data().tolist()` when a Python with tinygrad is found, listing a 1 GiB
safetensors file (200 tensors), its 3-shard index and a 20,000-tensor header against a
stdlib `struct` + `json` script, and start-up (a literal) against /bin/true. The baseline
scripts are written out below, so a fresh clone needs nothing else.

Inputs are made in a temporary directory (fixed seed; the safetensors data is a sparse
hole, so the 1 GiB file takes no disk space) and deleted afterwards unless --keep.
Each case runs baseline and product alternately, PAIRS times (default 5; start-up-bound
cases 21), stdout to /dev/null, timed from spawn to reap; the table shows the medians,
ratio = median baseline / median product (higher: tensor-inspect is faster), the median
CPU time (user + sys) of each, and the peak RSS of one run of each under GNU time. Before
timing, both outputs are compared: `same` says whether they hold the same values.
Nothing is asserted: this is a measurement, not a test. Environment: TINYGRAD_PYTHON
(an interpreter that imports tinygrad, e.g. python3.12), TINYGRAD_PATH (its PYTHONPATH).
"""
import argparse
import json
import os
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

NPY_TEXT = """import sys, numpy as np
arr = np.load(sys.argv[1]); m = memoryview(arr)
print(m.format, m.shape, m.itemsize, m.nbytes, arr.tolist())
"""
NPY_JSON = """import sys, json, numpy as np
arr = np.load(sys.argv[1]); m = memoryview(arr)
print(json.dumps({"format": m.format, "shape": list(m.shape), "itemsize": m.itemsize, "nbytes": m.nbytes,
                  "tolist": arr.tolist()}))
"""
ST_LIST = """import sys, os, json, struct
def header(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        return json.loads(f.read(n))
def show(path):
    for name, t in header(path).items():
        if name == "__metadata__": continue
        print(name, t["dtype"], t["shape"], t["data_offsets"][1] - t["data_offsets"][0])
p = sys.argv[1]
if p.endswith(".json"):
    with open(p) as f: shards = sorted(set(json.load(f)["weight_map"].values()))
    for s in shards: show(os.path.join(os.path.dirname(p), s))
else:
    show(p)
"""
TINYGRAD_TOLIST = """import sys, ast, struct
from tinygrad import Tensor, dtypes
with open(sys.argv[1], "rb") as f:
    assert f.read(6) == b"\\x93NUMPY"; major = f.read(2)[0]
    (n,) = struct.unpack("<H" if major == 1 else "<I", f.read(2 if major == 1 else 4))
    h = ast.literal_eval(f.read(n).decode("latin1")); data = f.read()
dt = {"<f4": dtypes.float32, "<f2": dtypes.float16, "<i8": dtypes.int64}[h["descr"]]
m = Tensor(data, dtype=dt).reshape(h["shape"]).data()
print(m.format, m.shape, m.itemsize, m.nbytes, m.tolist())
"""


def make_inputs(d, quick):
    rng = np.random.default_rng(20250101)
    files = {}
    for name, arr in (("f32_1e6", rng.standard_normal(
        (1000, 1000), dtype=np.float32)), ("f16_1e6", rng.standard_normal(
            (1000, 1000)).astype(np.float16)), ("f4be_1e6", rng.standard_normal((1000, 1000),
                                                                                dtype=np.float32).astype(">f4")),
                      ("i64_1e6", (rng.integers(0, 2**62,
                                                (1000, 1000), dtype=np.int64) >> rng.integers(0, 62, (1000, 1000))) *
                       np.where(rng.random((1000, 1000)) < 0.5, -1, 1))):
        files[name] = os.path.join(d, name + ".npy")
        np.save(files[name], arr)
    if not quick:
        files["f32_1e7"] = os.path.join(d, "f32_1e7.npy")
        np.save(files["f32_1e7"], rng.standard_normal((10000, 1000), dtype=np.float32))
    files["model"], files["index"] = write_model(d)
    files["many"] = os.path.join(d, "many.safetensors")
    write_safetensors(files["many"], [(f"blk.{i // 10}.t{i % 10}.weight", "F16", [64, 8]) for i in range(20000)])
    return files


def write_safetensors(path, tensors, sparse=True):
    """tensors: (name, dtype, shape); data offsets follow in order; the data is a hole."""
    size = {"F32": 4, "F16": 2, "BF16": 2, "I64": 8}
    header, offset = {"__metadata__": {"format": "pt"}}, 0
    for name, dtype, shape in tensors:
        n = size[dtype] * int(np.prod(shape))
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n]}
        offset += n
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        f.truncate(f.tell() + offset)


def write_model(d):
    """A llama-like 200-tensor layout of about 1 GiB, and the same tensors in a 3-shard index."""
    h, ff = 1536, 4608
    tensors = [("model.embed_tokens.weight", "BF16", [32000, h])]
    for i in range(18):
        p = f"model.layers.{i}."
        tensors += [(p + "input_layernorm.weight", "F32", [h])]
        tensors += [(p + f"self_attn.{x}_proj.weight", "BF16", [h, h]) for x in "qkvo"]
        tensors += [(p + "self_attn.rotary_emb.inv_freq", "F32", [64]),
                    (p + "self_attn.rotary_emb.position_ids", "I64", [1, 4096]),
                    (p + "post_attention_layernorm.weight", "F32", [h]), (p + "mlp.gate_proj.weight", "F16", [ff, h]),
                    (p + "mlp.up_proj.weight", "F16", [ff, h]), (p + "mlp.down_proj.weight", "F16", [h, ff])]
    tensors.append(("model.norm.weight", "F32", [h]))
    model = os.path.join(d, "model.safetensors")
    write_safetensors(model, tensors)
    shard_dir = os.path.join(d, "sharded")
    os.makedirs(shard_dir)
    cuts = [0, 56, 131, len(tensors)]
    weight_map = {}
    for k in range(3):
        name = f"model-{k + 1:05d}-of-00003.safetensors"
        part = tensors[cuts[k]:cuts[k + 1]]
        write_safetensors(os.path.join(shard_dir, name), part)
        weight_map.update({t[0]: name for t in part})
    index = os.path.join(shard_dir, "model.safetensors.index.json")
    with open(index, "w") as f:
        json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f)
    return model, index


def run_timed(argv, env=None):
    """(wall seconds, cpu seconds) of one run with stdout/stderr to /dev/null, or None."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as null:
        p = subprocess.Popen(argv, stdout=null, stderr=null, env=env)
        _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - start
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        return None
    return wall, usage.ru_utime + usage.ru_stime


def peak_rss_and_output(argv, env=None):
    """Peak RSS in MiB (GNU time, so this Python's size does not count) and stdout."""
    p = subprocess.run(["/usr/bin/time", "-f", "%M", *argv], capture_output=True, env=env)
    if p.returncode != 0:
        return None, None
    return int(p.stderr.decode().split()[-1]) / 1024, p.stdout


def tolist_of_text(out, product):
    if product:
        for line in out.split(b"\n"):
            if line.startswith(b"tolist: "):
                return line[8:].strip()
        return None
    return out.split(b") ", 1)[1].split(b" ", 2)[2].strip() if b") " in out else None


def same_output(kind, base, prod):
    if base is None or prod is None:
        return "failed"
    if kind == "text":
        return "yes" if tolist_of_text(base, False) == tolist_of_text(prod, True) else "NO"
    if kind == "json":
        return "yes" if json.loads(base)["tolist"] == json.loads(prod)["tolist"] else "NO"
    if kind == "list":
        want = [line.split(" ", 1)[0] for line in base.decode().splitlines()]
        got = [t["name"] for t in json.loads(prod)["tensors"]]
        return "yes" if sorted(want) == sorted(got) else "NO"
    return "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="skip the 1e7 cases")
    ap.add_argument("--keep", help="make the inputs in DIR and keep them")
    args = ap.parse_args()
    ti = os.path.abspath(args.binary)
    py = sys.executable
    d = args.keep or tempfile.mkdtemp(prefix="ti-bench-")
    os.makedirs(d, exist_ok=True)
    scripts = {}
    for name, text in (("npy_text", NPY_TEXT), ("npy_json", NPY_JSON), ("st_list", ST_LIST), ("tinygrad",
                                                                                              TINYGRAD_TOLIST)):
        # "baseline_" keeps a script from shadowing what it imports: tinygrad.py in the
        # script's folder would be imported as the tinygrad package itself.
        scripts[name] = os.path.join(d, "baseline_" + name + ".py")
        with open(scripts[name], "w") as f:
            f.write(text)
    try:
        f = make_inputs(d, args.quick)
        cases = []
        for key in ("f32_1e6", "f32_1e7", "f16_1e6", "f4be_1e6", "i64_1e6"):
            if key in f:
                cases.append((f"tolist text {key}", [py, scripts["npy_text"], f[key]], [ti, "--full",
                                                                                        f[key]], "text", None))
                cases.append((f"tolist json {key}", [py, scripts["npy_json"], f[key]], [ti, "--json",
                                                                                        f[key]], "json", None))
        tg_py = os.environ.get("TINYGRAD_PYTHON", "python3.12")
        tg_env = {**os.environ, "DEV": "PYTHON", "PYTHONPATH": os.environ.get("TINYGRAD_PATH", "/tmp/tg")}
        has_tg = shutil.which(tg_py) and subprocess.run([tg_py, "-c", "import tinygrad"], env=tg_env,
                                                         capture_output=True).returncode == 0
        if has_tg:
            cases.append(("tinygrad tolist f32_1e6", [tg_py, scripts["tinygrad"],
                                                      f["f32_1e6"]], [ti, "--full", f["f32_1e6"]], "text", tg_env))
        for label, key in (("list 1 GiB, 200 tensors", "model"), ("list 3-shard index", "index"),
                           ("list 20,000 tensors", "many")):
            cases.append((label, [py, scripts["st_list"], f[key]], [ti, "--list", "--json", f[key]], "list", None))
        cases.append(("start-up: a literal vs /bin/true", ["/bin/true"], [ti, "5"], "-", None))

        print(f"machine: {os.cpu_count()} cores, {os.uname().release}; load average {os.getloadavg()[0]:.1f} at start")
        print(f"{'case':34} {'product s':>10} {'baseline s':>10} {'ratio':>8} {'cpu prod':>9} {'cpu base':>9} "
              f"{'RSS prod':>9} {'RSS base':>9}  same")
        for label, base, prod, kind, env in cases:
            rss_b, out_b = peak_rss_and_output(base, env)
            rss_p, out_p = peak_rss_and_output(prod)
            same = same_output(kind, out_b, out_p)
            quick = label.startswith(("list", "start-up"))
            pairs = max(args.pairs, 21) if quick else args.pairs
            tb, tp = [], []
            for _ in range(pairs):
                b, p = run_timed(base, env), run_timed(prod)
                if b is None or p is None:
                    break
                tb.append(b)
                tp.append(p)
            if len(tb) < pairs:
                print(f"{label:34} a run failed")
                continue
            mb, mp = statistics.median(t[0] for t in tb), statistics.median(t[0] for t in tp)
            cb, cp = statistics.median(t[1] for t in tb), statistics.median(t[1] for t in tp)
            print(f"{label:34} {mp:10.4f} {mb:10.4f} {mb / mp:7.2f}x {cp:9.4f} "
                  f"{cb:9.4f} {rss_p:6.1f} MiB {rss_b:5.1f} MiB  {same}")
        if not has_tg:
            print(f"(tinygrad case skipped: {tg_py} cannot import tinygrad; set TINYGRAD_PYTHON / TINYGRAD_PATH)")
        print(f"load average {os.getloadavg()[0]:.1f} at the end (above the core count, ratios are suspect)")
    finally:
        if not args.keep:
            shutil.rmtree(d)


if __name__ == "__main__":
    main()
